import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'vpn-config-'));

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const c = loadConfig({ DATA_DIR: dataDir() });
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      companyName: 'VPN Service',
      captcha: { provider: 'altcha' },
      databaseUrl: undefined,
      seedDemo: true,
      adminUsername: 'admin',
    });
  });

  it('generates SECRET_KEY once and keeps it in DATA_DIR (owner-only file)', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir }).secretKey;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ DATA_DIR: dir }).secretKey).toBe(first);
    expect(readFileSync(join(dir, 'secret.key'), 'utf8').trim()).toBe(first);
    expect(statSync(join(dir, 'secret.key')).mode & 0o077).toBe(0);
  });

  it('names every bad variable with its value and the reason, in Spanish', () => {
    let error: unknown;
    try {
      loadConfig({
        DATA_DIR: dataDir(),
        PORT: 'ochenta',
        DATABASE_URL: 'mysql://x',
        CAPTCHA_PROVIDER: 'recaptcha',
        SUPPORT_URL: 'soporte',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as Error).message;
    expect(text).toContain('PORT="ochenta": debe ser un número');
    expect(text).toContain('DATABASE_URL="mysql://x": debe empezar por postgres:// o postgresql://');
    expect(text).toContain('CAPTCHA_PROVIDER="recaptcha": debe ser altcha o turnstile');
    expect(text).toContain('SUPPORT_URL="soporte"');
  });

  it('refuses a rate limit variable that does not exist, naming the ones that do', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), RATE_LIMIT_PEER_CHANGES_PER_PEER: '100/1' })).toThrow(
      /RATE_LIMIT_PEER_CHANGES_PER_PEER: no existe; los límites son .*RATE_LIMIT_PEER_CHANGES\b/,
    );
    expect(loadConfig({ DATA_DIR: dataDir(), RATE_LIMIT_PEER_CHANGES: '100/1' }).rateLimits).toEqual({
      peerChangesPerPeer: { max: 100, windowSeconds: 1 },
    });
  });

  it('requires the Turnstile keys when Turnstile is chosen', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), CAPTCHA_PROVIDER: 'turnstile' })).toThrow(
      /TURNSTILE_SITE_KEY.*obligatorio/,
    );
  });

  it('refuses to start with mail on and no PUBLIC_URL: mail links never come from request headers', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), SMTP_URL: 'smtp://mail.example:587' })).toThrow(
      'PUBLIC_URL="": es obligatorio con SMTP_URL (los enlaces de los correos usan esta dirección)',
    );
    const c = loadConfig({
      DATA_DIR: dataDir(),
      SMTP_URL: 'smtp://mail.example:587',
      PUBLIC_URL: 'https://panel.example/',
    });
    expect(c.mail).toMatchObject({ url: 'smtp://mail.example:587', publicUrl: 'https://panel.example' });
    // Without mail, PUBLIC_URL stays optional (`npm start` with no environment at all).
    expect(loadConfig({ DATA_DIR: dataDir() }).mail).toBeNull();
  });

  it('does not seed PostgreSQL unless asked', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'postgres://localhost/x' }).seedDemo).toBe(false);
    expect(
      loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'postgres://localhost/x', SEED_DEMO: 'true' }).seedDemo,
    ).toBe(true);
  });

  it('takes a direct database URL for LISTEN and migrations, and a pool size (docs/scale.md)', () => {
    const pooled = 'postgres://vpn@pgbouncer:6432/vpn';
    expect(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: pooled })).toMatchObject({
      databaseUrl: pooled,
      databaseDirectUrl: pooled,
      databasePoolSize: 10,
    });
    const direct = 'postgres://vpn@db:5432/vpn';
    expect(
      loadConfig({
        DATA_DIR: dataDir(),
        DATABASE_URL: pooled,
        DATABASE_DIRECT_URL: direct,
        DATABASE_POOL_SIZE: '40',
      }),
    ).toMatchObject({ databaseUrl: pooled, databaseDirectUrl: direct, databasePoolSize: 40 });
    expect(() => loadConfig({ DATA_DIR: dataDir(), DATABASE_POOL_SIZE: '0' })).toThrow(
      /DATABASE_POOL_SIZE.*entre 1 y 500/,
    );
    expect(() => loadConfig({ DATA_DIR: dataDir(), DATABASE_DIRECT_URL: 'mysql://x' })).toThrow(
      /DATABASE_DIRECT_URL.*postgres:\/\//,
    );
  });

  it('refuses a short SECRET_KEY', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), SECRET_KEY: 'corta' })).toThrow(/SECRET_KEY.*32/);
  });
});
