/**
 * Password recovery without e-mail (issue 32): the reset link goes to the Telegram chat linked to
 * the account, through the Bot API stand-in (fakeTelegram.ts). The answer to the request is the
 * same whether the username exists, has a linked chat or not; the link works once; the per-name
 * limit of recovery requests applies as for e-mail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegram } from './fakeTelegram.ts';
import { bearer, createCustomer, createTestApp, login, managerToken, type TestApp } from './helpers.ts';

const TOKEN = '123456789:AAE-test-token-for-the-stand-in_rec';
const CHAT = 5301;

describe('password recovery through the linked Telegram chat', () => {
  const fake = new FakeTelegram(TOKEN);
  let t: TestApp;
  let ana: { id: number; username: string; password: string };

  const recover = (username: string) =>
    t.app.inject({ method: 'POST', url: '/api/client/password-recovery', payload: { username } });

  beforeAll(async () => {
    const apiUrl = await fake.start();
    t = await createTestApp({
      scheduler: false,
      env: {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_URL: apiUrl,
        PUBLIC_URL: 'https://panel.example',
        COMPANY_NAME: 'Nube VPN',
        RATE_LIMIT_RECOVERY_PER_USERNAME: '3/3600',
      },
    });
    await t.ctx.telegram.cycle();
    ana = await createCustomer(t, 'ana');
    await createCustomer(t, 'beto'); // no chat linked
    const access = (await login(t, ana.username, ana.password)).access;
    const link = await t.app.inject({
      method: 'POST',
      url: '/api/client/telegram/link',
      headers: bearer(access),
    });
    const code = new URL(link.json().url).searchParams.get('start');
    const before = fake.sent.length;
    fake.message(CHAT, `/start ${code}`);
    await fake.waitFor(CHAT, 1, before);
  });
  afterAll(async () => {
    await t?.close();
    await fake.close();
  });

  it('offers recovery to customers with e-mail off, and tells the console it goes by Telegram', async () => {
    const settings = (await t.app.inject({ method: 'GET', url: '/api/client' })).json();
    expect(settings).toMatchObject({ allow_email: false, allow_password_recovery: true });
    const links = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings/links',
      headers: bearer(await managerToken(t)),
    });
    expect(links.json().recovery).toEqual({ email: false, telegram: true });
  });

  it('sends a one-time link to the linked chat, answering as for anyone else', async () => {
    const answers = [];
    const from = fake.sent.length;
    for (const name of ['nadie-aqui', 'beto', 'ANA']) answers.push(await recover(name));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers[0]!.json().message).toMatch(/Telegram/);

    const [message] = await fake.waitFor(CHAT, 1, from);
    // Only ana's chat heard anything: no other chat exists for the two others.
    expect(fake.sent.slice(from).filter((s) => s.chatId !== CHAT)).toEqual([]);
    expect(message!.text).toContain('«ana»');
    const url = /https:\/\/panel\.example\/reset-password#token=([A-Za-z0-9_-]+)/.exec(message!.text ?? '');
    expect(url).not.toBeNull();
    expect(
      fake.calls.find((c) => c.method === 'sendMessage' && String(c.params.text).includes('#token='))?.params,
    ).toMatchObject({ link_preview_options: { is_disabled: true } });

    const reset = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/client/reset-password',
        payload: { token: url![1], password },
      });
    expect((await reset('clave-nueva-telegram')).statusCode).toBe(200);
    expect((await login(t, 'ana', 'clave-nueva-telegram')).access).toBeTruthy();
    // Once only.
    const again = await reset('otra-clave-mas');
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe('El enlace no es válido o ha caducado');
  });

  it('counts Telegram requests against the per-name limit, as for e-mail', async () => {
    // Three for "ana" within the hour (3/3600): two more here reach the limit, then a captcha.
    await recover('ana');
    await recover('ana');
    const past = await recover('ana');
    expect(past.statusCode).toBe(429);
    expect(past.json().code).toBe('captcha_required');
  });
});
