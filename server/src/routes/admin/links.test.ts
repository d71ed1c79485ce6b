import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MANAGER_PASSWORD,
  bearer,
  createTestApp,
  managerToken,
  reauthHeader,
  type TestApp,
} from '../../../test/helpers.ts';

/**
 * Ajustes → Enlaces para clientes (issue 32): the support link set in the console wins over
 * SUPPORT_URL everywhere a customer sees it, only links a phone can open are kept, the Android app's
 * link and the APK the panel serves (ANDROID_APK_FILE, with its size), and the console is told when
 * no channel can carry a password recovery.
 */
let t: TestApp;
let admin: string;
const dir = mkdtempSync(join(tmpdir(), 'vpn-apk-'));
const apk = join(dir, 'wireguard.apk');
const APK_BYTES = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(10_271_000 - 4, 7)]);

beforeAll(async () => {
  writeFileSync(apk, APK_BYTES);
  t = await createTestApp({
    scheduler: false,
    env: { SUPPORT_URL: 'https://soporte.example.com', ANDROID_APK_FILE: apk },
  });
  admin = await managerToken(t);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const links = () => t.app.inject({ method: 'GET', url: '/api/admin/settings/links', headers: bearer(admin) });
const patch = (payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PATCH', url: '/api/admin/settings/links', headers: bearer(admin), payload });
const config = async () => (await t.app.inject({ method: 'GET', url: '/config.json' })).json();

describe('/api/admin/settings/links', () => {
  it('starts from SUPPORT_URL, and a link set in the console wins over it for customers', async () => {
    expect((await links()).json()).toMatchObject({
      support_url: null,
      support_url_env: 'https://soporte.example.com',
    });
    expect((await config()).support_url).toBe('https://soporte.example.com');

    const saved = await patch({ support_url: '  https://t.me/soporte_nube  ' });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().support_url).toBe('https://t.me/soporte_nube');
    expect((await config()).support_url).toBe('https://t.me/soporte_nube');

    for (const url of ['tg://resolve?domain=soporte_nube', 'whatsapp://send?phone=5355555555'])
      expect((await patch({ support_url: url })).json().support_url).toBe(url);

    // Cleared: SUPPORT_URL again.
    expect((await patch({ support_url: null })).json().support_url).toBeNull();
    expect((await config()).support_url).toBe('https://soporte.example.com');
  });

  it('refuses a link a phone cannot open safely, with the reason, and keeps the one in force', async () => {
    await patch({ support_url: 'https://wa.me/5355555555' });
    for (const bad of [
      'javascript:alert(1)',
      'http://soporte.example.com',
      'soporte',
      'https://localhost/x',
    ]) {
      const res = await patch({ support_url: bad });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        'El enlace de soporte debe empezar por https://, tg:// o whatsapp:// (por ejemplo https://t.me/tu_soporte o https://wa.me/5355555555)',
      );
    }
    expect((await config()).support_url).toBe('https://wa.me/5355555555');
    const android = await patch({ android_app_url: 'http://apps.example.com/wg.apk' });
    expect(android.statusCode).toBe(400);
    expect(android.json().message).toBe('El enlace de la app de Android debe empezar por https://');
    expect((await patch({})).statusCode).toBe(400);
  });

  it("gives customers the operator's Android link and the APK the panel serves, with its size", async () => {
    // What customers install: refused without the password confirmed again, nothing changed.
    const before = (await config()).android;
    const refused = await patch({ android_app_url: 'https://descargas.example.com/wireguard.apk' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('reauth_required');
    expect((await config()).android).toEqual(before);
    const saved = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/settings/links',
      headers: { ...bearer(admin), ...(await reauthHeader(t, admin, MANAGER_PASSWORD)) },
      payload: { android_app_url: 'https://descargas.example.com/wireguard.apk' },
    });
    expect(saved.statusCode).toBe(200);
    expect((await config()).android).toEqual({
      app_url: 'https://descargas.example.com/wireguard.apk',
      apk: { url: '/descargas/wireguard-android.apk', size: APK_BYTES.length },
    });
    const file = await t.app.inject({ method: 'GET', url: '/descargas/wireguard-android.apk' });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/vnd.android.package-archive');
    expect(Number(file.headers['content-length'])).toBe(APK_BYTES.length);
    expect(file.headers['content-disposition']).toContain('wireguard-android.apk');
    expect(file.rawPayload.equals(APK_BYTES)).toBe(true);
  });

  it('tells the console that no channel carries a recovery, and customers see recovery off', async () => {
    // Neither mail (no SMTP_URL) nor a Telegram bot: the switch is on but nothing could be sent.
    expect((await links()).json().recovery).toEqual({ email: false, telegram: false });
    const settings = (await t.app.inject({ method: 'GET', url: '/api/client' })).json();
    expect(settings.allow_password_recovery).toBe(false);
    const ask = await t.app.inject({
      method: 'POST',
      url: '/api/client/password-recovery',
      payload: { username: 'ana' },
    });
    expect(ask.statusCode).toBe(403);
    expect(ask.json().message).toBe('La recuperación de contraseña no está habilitada');
  });

  it('lets only managers who may change the public settings change links', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: '/api/admin/settings/links', payload: {} });
    expect(res.statusCode).toBe(401);
  });
});
