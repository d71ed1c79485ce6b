import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentFileUrl, performUpgrade } from './upgrade.ts';

const TOKEN = 'tok_abc-123';
const OLD = '// the running agent\nconsole.log("1.0.0");\n';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

let served = '';
let status = 200;
let server: Server;
let base: string;
let dir: string;
let file: string;
const seen: { url: string; auth: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization });
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(status, { 'content-type': 'text/javascript' }).end(status === 200 ? served : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/panel`;
});

afterAll(() => server.close());

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vpn-upgrade-'));
  file = join(dir, 'vpn-agent.mjs');
  writeFileSync(file, OLD);
  status = 200;
  seen.length = 0;
  return () => rmSync(dir, { recursive: true, force: true });
});

const leftovers = () => readdirSync(dir).filter((f) => f !== 'vpn-agent.mjs');

describe('self-upgrade', () => {
  it('downloads with the token, checks hash and version, and replaces the file', async () => {
    served = 'if (process.argv.includes("--version")) console.log("2.0.0");\n';
    const outcome = await performUpgrade(
      { type: 'upgrade', version: '2.0.0', sha256: sha(served) },
      { url: base, token: TOKEN, file },
    );
    expect(outcome).toEqual({ ok: true });
    expect(readFileSync(file, 'utf8')).toBe(served);
    // The file that was running stays beside it, for a rollback by hand.
    expect(readFileSync(`${file}.previous`, 'utf8')).toBe(OLD);
    expect(seen).toEqual([{ url: '/panel/api/agent/vpn-agent.mjs', auth: `Bearer ${TOKEN}` }]);
    expect(leftovers()).toEqual(['vpn-agent.mjs.previous']);
  });

  it('keeps the running file when the hash differs, the token is refused or the file does not start', async () => {
    served = 'console.log("2.0.0");\n';
    const wrongHash = await performUpgrade(
      { type: 'upgrade', version: '2.0.0', sha256: sha('otra cosa') },
      { url: base, token: TOKEN, file },
    );
    expect(wrongHash).toMatchObject({
      ok: false,
      message: expect.stringContaining('no coincide con su SHA-256'),
    });

    const refused = await performUpgrade(
      { type: 'upgrade', version: '2.0.0', sha256: sha(served) },
      { url: base, token: 'otro', file },
    );
    expect(refused).toEqual({
      ok: false,
      message: 'el panel rechazó el token del agente al descargar el archivo',
    });

    served = 'const = ;\n';
    const broken = await performUpgrade(
      { type: 'upgrade', version: '2.0.0', sha256: sha(served) },
      { url: base, token: TOKEN, file },
    );
    expect(broken).toMatchObject({
      ok: false,
      message: expect.stringContaining('el archivo nuevo no arranca con Node'),
    });

    served = 'console.log("1.9.9");\n';
    const otherVersion = await performUpgrade(
      { type: 'upgrade', version: '2.0.0', sha256: sha(served) },
      { url: base, token: TOKEN, file },
    );
    expect(otherVersion).toEqual({
      ok: false,
      message: 'el archivo nuevo dice ser la versión 1.9.9 y se esperaba 2.0.0',
    });

    status = 503;
    const unavailable = await performUpgrade(
      { type: 'upgrade', version: '2.0.0', sha256: sha(served) },
      { url: base, token: TOKEN, file },
    );
    expect(unavailable).toEqual({
      ok: false,
      message: 'el panel respondió HTTP 503 al descargar el archivo',
    });

    expect(readFileSync(file, 'utf8')).toBe(OLD);
    expect(leftovers()).toEqual([]);
  });

  it('refuses when the agent does not run from the single file', async () => {
    const outcome = await performUpgrade(
      { type: 'upgrade', version: '2.0.0', sha256: sha('x') },
      { url: base, token: TOKEN, file: null },
    );
    expect(outcome).toMatchObject({
      ok: false,
      message: expect.stringContaining('se ejecuta desde el repositorio'),
    });
    expect(seen).toEqual([]);
  });

  it('derives the file URL from any form of the control-plane URL', () => {
    expect(agentFileUrl('wss://panel.example.com/').toString()).toBe(
      'https://panel.example.com/api/agent/vpn-agent.mjs',
    );
    expect(agentFileUrl('http://127.0.0.1:8080/base?x=1').toString()).toBe(
      'http://127.0.0.1:8080/base/api/agent/vpn-agent.mjs',
    );
  });
});
