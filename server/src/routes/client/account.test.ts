import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { customers, emailTokens, rateLimits } from '../../db/schema.ts';
import {
  bearer,
  createCustomer,
  createTestApp,
  login,
  managerToken,
  MANAGER_PASSWORD,
  reauthHeader,
  setSettings,
  solveCaptcha,
  type TestApp,
} from '../../../test/helpers.ts';
import { TestSmtp, tokenFrom } from '../../../test/smtp.ts';

let t: TestApp;
let smtp: TestSmtp;
let admin: string;
beforeAll(async () => {
  smtp = await TestSmtp.start();
  t = await createTestApp({
    scheduler: false,
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'CubaNet VPN <no-reply@cubanet.example>',
      COMPANY_NAME: 'CubaNet VPN',
      PUBLIC_URL: 'https://panel.example',
    },
  });
  admin = await managerToken(t);
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(async () => {
  await t.ctx.db.delete(rateLimits);
  await setSettings(t, {
    allow_email: true,
    allow_partys: true,
    allow_password_recovery: true,
    allow_registration: true,
  });
});

async function signedIn(email?: string, verified = false) {
  const c = await createCustomer(t);
  if (email)
    await t.ctx.db.update(customers).set({ email, emailVerified: verified }).where(eq(customers.id, c.id));
  const tokens = await login(t, c.username, c.password);
  return { ...c, ...tokens };
}
const patchSettings = (access: string, payload: object) =>
  t.app.inject({ method: 'PATCH', url: '/api/client/settings', headers: bearer(access), payload });

describe('GET /api/client/advertisements and /api/client/agent', () => {
  it('lists published announcements newest first, and the newest client version', async () => {
    const c = await signedIn();
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/client/agent', headers: bearer(c.access) })).json(),
    ).toEqual({ version: null, url: null });
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/advertisements',
      headers: bearer(admin),
      payload: { name: 'Primero', message: 'Hola' },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/advertisements',
      headers: bearer(admin),
      payload: { name: 'Segundo', message: 'Nuevo servidor en Miami' },
    });
    const ads = (
      await t.app.inject({ method: 'GET', url: '/api/client/advertisements', headers: bearer(c.access) })
    ).json();
    expect(ads.map((a: { name: string }) => a.name).slice(0, 2)).toEqual(['Segundo', 'Primero']);
    expect(ads[0]).toMatchObject({ message: 'Nuevo servidor en Miami' });
    expect(Number.isNaN(Date.parse(ads[0].created))).toBe(false);
    // Without the password asked again, nothing is published (X-Reauth).
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/admin/agent',
      headers: bearer(admin),
      payload: { version: '6.6.6', url: 'https://malo.example/app.apk' },
    });
    expect(refused.json<{ code: string }>().code).toBe('reauth_required');
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/agent',
      headers: { ...bearer(admin), ...(await reauthHeader(t, admin, MANAGER_PASSWORD)) },
      payload: { version: '2.1.0', url: 'https://descargas.example/app-2.1.0.apk' },
    });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/client/agent', headers: bearer(c.access) })).json(),
    ).toEqual({ version: '2.1.0', url: 'https://descargas.example/app-2.1.0.apk' });
  });

  it('a withdrawn announcement is no longer listed', async () => {
    const c = await signedIn();
    const ad = (
      await t.app.inject({
        method: 'POST',
        url: '/api/admin/advertisements',
        headers: bearer(admin),
        payload: { name: 'Temporal', message: 'x' },
      })
    ).json();
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/admin/advertisements/${ad.id}`,
          headers: bearer(admin),
        })
      ).statusCode,
    ).toBe(200);
    const ads = (
      await t.app.inject({ method: 'GET', url: '/api/client/advertisements', headers: bearer(c.access) })
    ).json();
    expect(ads.map((a: { id: number }) => a.id)).not.toContain(ad.id);
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: '/api/admin/advertisements/999999',
          headers: bearer(admin),
        })
      ).statusCode,
    ).toBe(404);
  });

  it('needs a customer session', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/client/advertisements' })).statusCode).toBe(401);
  });
});

describe('PATCH /api/client/settings: email', () => {
  it('changes the email and sends a verification link that works once', async () => {
    const c = await signedIn();
    const res = await patchSettings(c.access, { email: 'nuevo@nauta.cu', password: c.password });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe(
      'Email modificado correctamente. Te enviamos un enlace para verificarlo.',
    );
    expect(res.json().user).toMatchObject({ email: 'nuevo@nauta.cu', email_verified: false });
    const mail = await smtp.waitFor('nuevo@nauta.cu');
    expect(mail.raw).toContain('CubaNet VPN');
    const token = tokenFrom(mail, 'https://panel.example/verify-email');
    const ok = await t.app.inject({ method: 'POST', url: '/api/client/verify-email', payload: { token } });
    expect(ok.json().message).toBe('Email verificado correctamente');
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/client/verify-token',
      headers: bearer(c.access),
    });
    expect(me.json().email_verified).toBe(true);
    const again = await t.app.inject({ method: 'POST', url: '/api/client/verify-email', payload: { token } });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe('El enlace no es válido o ha caducado');
  });

  it('applies the spec’s messages: blank, same as before, invalid, taken, disabled', async () => {
    await signedIn('ocupado@nauta.cu');
    const c = await signedIn('actual@nauta.cu');
    const cases: [object, number, string][] = [
      [{ email: '  ', password: c.password }, 400, 'El email no puede estar en blanco'],
      [
        { email: 'ACTUAL@nauta.cu', password: c.password },
        400,
        'El nuevo email no puede ser igual q el anterior',
      ],
      [{ email: 'no-es-email', password: c.password }, 400, 'El email no es válido'],
      [{ email: 'ocupado@nauta.cu', password: c.password }, 409, 'El email ya está en uso'],
      [{ email: 'otro@nauta.cu', password: '' }, 400, 'Indica tu contraseña actual para cambiar el email'],
      [{ email: 'otro@nauta.cu', password: 'no-es-la-mia' }, 400, 'La contraseña actual no es correcta'],
    ];
    for (const [payload, status, message] of cases) {
      const res = await patchSettings(c.access, payload);
      expect(res.statusCode).toBe(status);
      expect(res.json().message).toBe(message);
    }
    await setSettings(t, { allow_email: false });
    const off = await patchSettings(c.access, { email: 'otro@nauta.cu', password: c.password });
    expect(off.statusCode).toBe(400);
    expect(off.json().message).toBe('El uso de email no está habilitado');
    const [row] = await t.ctx.db.select().from(customers).where(eq(customers.id, c.id));
    expect(row!.email).toBe('actual@nauta.cu');
  });

  it('limits password checks per account: a stolen session cannot guess the password', async () => {
    const limited = await createTestApp({
      database: t.database,
      rateLimits: { passwordChangePerAccount: { max: 3, windowSeconds: 3600 } },
    });
    const c = await signedIn();
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await limited.app.inject({
        method: 'PATCH',
        url: '/api/client/settings',
        headers: bearer(c.access),
        payload: { old_password: `intento-${i}`, new_password: 'nueva-clave-segura' },
      });
      codes.push(res.statusCode);
    }
    expect(codes).toEqual([400, 400, 400, 429]);
    await limited.app.close();
  });

  it('DELETE removes the email', async () => {
    const c = await signedIn('borrar@nauta.cu', true);
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/api/client/settings',
      headers: bearer(c.access),
    });
    expect(res.json().message).toBe('Email eliminado correctamente');
    expect(res.json().user).toMatchObject({ email: null, email_verified: false });
    const again = await t.app.inject({
      method: 'DELETE',
      url: '/api/client/settings',
      headers: bearer(c.access),
    });
    expect(again.json().message).toBe('La cuenta no tiene email');
  });

  it('refuses a body mixing fields or with none', async () => {
    const c = await signedIn();
    for (const payload of [{}, { email: 'a@b.cu', alias: 'x' }, { old_password: 'x' }, { nada: 1 }]) {
      expect((await patchSettings(c.access, payload)).statusCode).toBe(400);
    }
  });
});

describe('PATCH /api/client/settings: alias', () => {
  it('sets, then modifies, the alias; aliases are unique regardless of case', async () => {
    const c = await signedIn();
    const first = await patchSettings(c.access, { alias: 'Yoandy' });
    expect(first.json().message).toBe('Alias configurado correctamente');
    const second = await patchSettings(c.access, { alias: 'Yoandy 2' });
    expect(second.json().message).toBe('Alias modificado correctamente');
    expect(second.json().user.alias).toBe('Yoandy 2');
    const other = await signedIn();
    const clash = await patchSettings(other.access, { alias: 'yoandy 2' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().message).toBe('El alias ya está en uso');
  });

  it('applies the rules: blank, format, rooms off', async () => {
    const c = await signedIn();
    expect((await patchSettings(c.access, { alias: ' ' })).json().message).toBe(
      'El alias no puede estar en blanco',
    );
    expect((await patchSettings(c.access, { alias: 'a' })).json().message).toBe(
      'El alias debe tener entre 3 y 24 caracteres: letras, números, espacio, punto, guion o guion bajo',
    );
    await setSettings(t, { allow_partys: false });
    const off = await patchSettings(c.access, { alias: 'Valido' });
    expect(off.statusCode).toBe(400);
    expect(off.json().message).toBe('Las salas no están habilitadas');
  });
});

describe('PATCH /api/client/settings: password', () => {
  it('changes the password, closes the other sessions and keeps this one', async () => {
    const c = await signedIn();
    const other = await login(t, c.username, c.password);
    await new Promise((r) => setTimeout(r, 1100)); // the other device's token is from an earlier second
    const res = await patchSettings(c.access, { old_password: c.password, new_password: 'otra-clave-nueva' });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('Contraseña modificada correctamente');
    const { access, refresh } = res.json();
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/client/verify-token', headers: bearer(access) }))
        .statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/refresh-token', payload: { refresh } })).statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/client/verify-token', headers: bearer(other.access) }))
        .statusCode,
    ).toBe(401);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/refresh-token', payload: { refresh: other.refresh } }))
        .statusCode,
    ).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/client/login',
          payload: { username: c.username, password: c.password },
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/client/login',
          payload: { username: c.username, password: 'otra-clave-nueva' },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('applies the spec’s messages: blank, same, wrong current password, too short', async () => {
    const c = await signedIn();
    const cases: [object, string][] = [
      [{ old_password: '', new_password: 'x' }, 'Las contraseñas no pueden estar en blanco.'],
      [
        { old_password: c.password, new_password: c.password },
        'La nueva contraseña no puede ser igual a la anterior.',
      ],
      [{ old_password: 'equivocada', new_password: 'nueva-clave-1' }, 'La contraseña actual no es correcta'],
      [{ old_password: c.password, new_password: 'corta' }, 'La contraseña debe tener al menos 8 caracteres'],
    ];
    for (const [payload, message] of cases) {
      const res = await patchSettings(c.access, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(message);
    }
  });
});

describe('password recovery', () => {
  const recover = (username: string) =>
    t.app.inject({ method: 'POST', url: '/api/client/password-recovery', payload: { username } });

  it('mails a one-time reset link to the verified email; the new password works and old sessions end', async () => {
    const c = await signedIn('recupera@nauta.cu', true);
    const res = await recover(c.username);
    expect(res.json().message).toBe(
      'Si la cuenta tiene un email verificado o un chat de Telegram vinculado, recibirás allí un enlace para restablecer la contraseña.',
    );
    const mail = await smtp.waitFor('recupera@nauta.cu');
    expect(mail.text).toContain(c.username);
    const token = tokenFrom(mail, 'https://panel.example/reset-password');
    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/client/reset-password',
      payload: { token, password: 'recuperada-123' },
    });
    expect(reset.json().message).toBe('Contraseña restablecida. Ya puedes iniciar sesión.');
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/refresh-token', payload: { refresh: c.refresh } }))
        .statusCode,
    ).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/client/login',
          payload: { username: c.username, password: 'recuperada-123' },
        })
      ).statusCode,
    ).toBe(200);
    const twice = await t.app.inject({
      method: 'POST',
      url: '/api/client/reset-password',
      payload: { token, password: 'otra-vez-123' },
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().message).toBe('El enlace no es válido o ha caducado');
  });

  it('links to PUBLIC_URL whatever Host or X-Forwarded-Host the request claims', async () => {
    const c = await signedIn('victima@nauta.cu', true);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/client/password-recovery',
      headers: {
        host: 'atacante.example',
        'x-forwarded-host': 'atacante.example',
        'x-forwarded-proto': 'https',
      },
      payload: { username: c.username },
    });
    expect(res.statusCode).toBe(200);
    const mail = await smtp.waitFor('victima@nauta.cu');
    expect(mail.text).toContain('https://panel.example/reset-password#token=');
    expect(mail.text).not.toContain('atacante');
  });

  it('answers the same, and sends nothing, without a verified email or for an unknown user', async () => {
    const unverified = await signedIn('sinverificar@nauta.cu', false);
    const none = await signedIn();
    const before = smtp.mails.length;
    const answers = await Promise.all([
      recover(unverified.username),
      recover(none.username),
      recover('no-existe'),
    ]);
    for (const a of answers) {
      expect(a.statusCode).toBe(200);
      expect(a.json().message).toBe(
        'Si la cuenta tiene un email verificado o un chat de Telegram vinculado, recibirás allí un enlace para restablecer la contraseña.',
      );
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.mails.length).toBe(before);
  });

  it('refuses an expired link', async () => {
    const c = await signedIn('caduca@nauta.cu', true);
    await recover(c.username);
    const token = tokenFrom(await smtp.waitFor('caduca@nauta.cu'), 'https://panel.example/reset-password');
    await t.ctx.db
      .update(emailTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(emailTokens.customerId, c.id));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/client/reset-password',
      payload: { token, password: 'recuperada-123' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('El enlace no es válido o ha caducado');
  });

  it('is off when allow_password_recovery is off, and rate limited per username', async () => {
    await setSettings(t, { allow_password_recovery: false });
    expect((await recover('alguien')).statusCode).toBe(403);
    await setSettings(t, { allow_password_recovery: true });
    const codes: number[] = [];
    for (let i = 0; i < 6; i++)
      codes.push(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/client/password-recovery',
            remoteAddress: `192.0.2.${i + 10}`,
            payload: { username: 'insistente' },
          })
        ).statusCode,
      );
    expect(codes).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('past the per-username limit asks for a captcha instead of locking the name for an hour', async () => {
    const c = await signedIn('bloqueada@nauta.cu', true);
    const send = (captcha_token?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/client/password-recovery',
        remoteAddress: '198.51.100.77',
        payload: { username: c.username, ...(captcha_token ? { captcha_token } : {}) },
      });
    // Someone else spends the name's five requests from other addresses.
    for (let i = 0; i < 5; i++)
      await t.app.inject({
        method: 'POST',
        url: '/api/client/password-recovery',
        remoteAddress: `192.0.2.${i + 120}`,
        payload: { username: c.username },
      });
    const asked = await send();
    expect(asked.statusCode).toBe(429);
    expect(asked.json()).toEqual({
      message: 'Demasiadas solicitudes para este usuario. Completa el captcha para continuar.',
      code: 'captcha_required',
    });
    // The five requests' mails have all arrived before counting.
    for (let i = 0; i < 500 && smtp.mails.filter((m) => m.to.includes('bloqueada@nauta.cu')).length < 5; i++)
      await new Promise((r) => setTimeout(r, 20));
    const mailsBefore = smtp.mails.filter((m) => m.to.includes('bloqueada@nauta.cu')).length;
    const done = await send(await solveCaptcha(t));
    expect(done.statusCode).toBe(200);
    const mailsFor = () => smtp.mails.filter((m) => m.to.includes('bloqueada@nauta.cu')).length;
    for (let i = 0; i < 500 && mailsFor() === mailsBefore; i++) await new Promise((r) => setTimeout(r, 20));
    expect(mailsFor()).toBe(mailsBefore + 1);
  });
});

describe('registration with an email', () => {
  it('sends the verification mail', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/client/register',
      payload: {
        username: 'conemail',
        password: 'clave-segura-1',
        email: 'registro@nauta.cu',
        captcha_token: await solveCaptcha(t),
      },
    });
    expect(res.statusCode).toBe(201);
    const mail = await smtp.waitFor('registro@nauta.cu');
    expect(mail.text).toContain('https://panel.example/verify-email#token=');
  });
});
