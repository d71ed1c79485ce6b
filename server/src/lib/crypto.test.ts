import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { promisify } from 'node:util';
import { randomBytes, scrypt as scryptCb } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { meshPresharedKey } from '../services/fleet/desiredState.ts';
import {
  deriveKeys,
  generateWireguardKeyPair,
  hashPassword,
  needsRehash,
  setPasswordCostForTests,
  verifyPassword,
} from './crypto.ts';

const SECRET = 'una-clave-secreta-de-prueba-suficientemente-larga-0123';

describe('keys', () => {
  it('derives one key per purpose: the mesh links’ preshared keys never come from the at-rest key', () => {
    const keys = deriveKeys(SECRET);
    const distinct = new Set([
      Buffer.from(keys.jwt).toString('hex'),
      keys.encryption.toString('hex'),
      keys.captcha,
      keys.mesh.toString('hex'),
    ]);
    expect(distinct.size).toBe(4);
    const psk = meshPresharedKey(keys.mesh, 2, 1);
    expect(psk).toBe(meshPresharedKey(keys.mesh, 1, 2));
    expect(psk).not.toBe(createHmac('sha256', keys.encryption).update('mesh:1:2').digest('base64'));
  });
});

describe('password hashes', () => {
  // The other test files hash at a test cost (test/setup.ts): this one checks production's.
  beforeAll(() => setPasswordCostForTests(null));

  it('use scrypt at one of OWASP’s minimums (N=2^15, r=8, p=3) and verify', async () => {
    const stored = await hashPassword('contraseña-segura');
    expect(stored).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(await verifyPassword('contraseña-segura', stored)).toBe(true);
    expect(await verifyPassword('otra', stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
  });

  it('still verify an older p=1 hash, and flag it for an upgrade', async () => {
    const salt = randomBytes(16);
    const scrypt = promisify(scryptCb) as (p: string, s: Buffer, n: number, o: object) => Promise<Buffer>;
    const hash = await scrypt('vieja', salt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const old = `scrypt$32768$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
    expect(await verifyPassword('vieja', old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
  });

  it('flag a hash made at the tests’ lower cost for an upgrade at the production parameters', async () => {
    setPasswordCostForTests({ N: 1024, r: 8, p: 1 });
    const cheap = await hashPassword('barata');
    setPasswordCostForTests(null);
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('barata', cheap)).toBe(true);
    expect(needsRehash(cheap)).toBe(true);
    expect(await hashPassword('barata')).toMatch(/^scrypt\$32768\$8\$3\$/);
  });
});

describe('WireGuard key pairs', () => {
  it('give the public key that wireguard-tools derives from the private key', () => {
    for (let i = 0; i < 5; i++) {
      const pair = generateWireguardKeyPair();
      const wg = spawnSync('wg', ['pubkey'], { input: `${pair.privateKey}\n`, encoding: 'utf8' });
      expect(wg.status, wg.stderr).toBe(0);
      expect(pair.publicKey).toBe(wg.stdout.trim());
      expect(Buffer.from(pair.privateKey, 'base64')).toHaveLength(32);
    }
  });

  it('keep coming: 20,000 in a row, all different (through the JWK export plain node hung, at random, within a few thousand)', async () => {
    // Bundled and run by plain node in a child with a deadline (the hang showed under plain node,
    // rarely under tsx's loader): a hang there is a failure here, not a stuck suite.
    const { build } = await import('esbuild');
    const dir = mkdtempSync(join(tmpdir(), 'vpn-keys-'));
    try {
      await build({
        stdin: {
          contents: `import { generateWireguardKeyPair } from ${JSON.stringify(new URL('./crypto.ts', import.meta.url).pathname)};
            const seen = new Set();
            for (let i = 0; i < 20000; i++) {
              seen.add(generateWireguardKeyPair().publicKey);
              if (i % 500 === 499) await new Promise((r) => setImmediate(r));
            }
            console.log(seen.size);`,
          resolveDir: dir,
          loader: 'ts',
        },
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: join(dir, 'keys.mjs'),
        logLevel: 'silent',
      });
      const run = spawnSync(process.execPath, [join(dir, 'keys.mjs')], { encoding: 'utf8', timeout: 60_000 });
      expect(run.signal, 'la generación de claves se colgó').toBeNull();
      expect(run.stdout.trim(), run.stderr).toBe('20000');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
