/**
 * The bot when Telegram refuses, as the Bot API documents it (the stand-in's `flood`, `block`;
 * docs/decisions.md, "Telegram bot"): flood control (429 with `parameters.retry_after`) and a user
 * who blocked the bot (403 "Forbidden: bot was blocked by the user").
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeTelegram } from './fakeTelegram.ts';
import { bearer, createCustomer, createTestApp, login, managerToken, type TestApp } from './helpers.ts';

const TOKEN = '424242424:AAH-refusals-test-token-standin_cd';

describe('Telegram refusing the bot', () => {
  const fake = new FakeTelegram(TOKEN);
  let t: TestApp;
  let owner: string;

  beforeAll(async () => {
    const apiUrl = await fake.start();
    t = await createTestApp({
      scheduler: false,
      env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: apiUrl, COMPANY_NAME: 'Nube VPN' },
    });
    await t.ctx.telegram.cycle();
    expect(t.ctx.telegram.isLeader).toBe(true);
    owner = await managerToken(t);
  });
  afterAll(async () => {
    vi.useRealTimers();
    await t?.close();
    await fake.close();
  });

  const sendsTo = (chat: number) =>
    fake.calls.filter((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat).length;

  /** An announcement published from Contenido with "Enviar por Telegram" ticked. */
  async function announce(name: string, message: string): Promise<void> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/advertisements',
      headers: bearer(owner),
      payload: { name, message, telegram: true },
    });
    expect(res.statusCode).toBe(201);
  }

  /** A customer's chat linked through the dashboard's one-time code. */
  async function linkedChat(username: string, chat: number): Promise<void> {
    const c = await createCustomer(t, username);
    const { access } = await login(t, c.username, c.password);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/client/telegram/link',
      headers: bearer(access),
    });
    const code = new URL(res.json().url).searchParams.get('start')!;
    const before = fake.sent.length;
    fake.message(chat, `/start ${code}`);
    await fake.waitFor(chat, 1, before);
  }

  it('an answer refused by flood control is sent again once retry_after has passed, not lost', async () => {
    fake.flood(1);
    const before = fake.sent.length;
    fake.message(6001, '/ayuda');
    const [answer] = await fake.waitFor(6001, 1, before);
    expect(answer!.text).toMatch(/^Ayuda de Nube VPN/);
    // Asked once during the flood, and not again until it was over (else a second 429 shows here).
    expect(fake.refused.filter((r) => r.chatId === 6001)).toEqual([
      expect.objectContaining({ method: 'sendMessage', code: 429 }),
    ]);
    expect(sendsTo(6001)).toBe(2);
  });

  it('a chat that blocked the bot gets one try per notice and holds up no other chat', async () => {
    await linkedChat('bloqueo', 6101);
    await linkedChat('abierto', 6102);
    fake.block(6101);
    await announce('Corte', 'El lunes de 2:00 a 3:00.');
    await t.ctx.telegram.notifier.tick();
    await t.ctx.telegram.notifier.tick();
    expect(fake.to(6102).at(-1)?.text).toBe('Nube VPN: Corte\n\nEl lunes de 2:00 a 3:00.');
    // The blocked chat was tried once (403) and not again on the next pass.
    expect(fake.refused.filter((r) => r.chatId === 6101)).toEqual([
      expect.objectContaining({ method: 'sendMessage', code: 403 }),
    ]);
  });

  // Last: the flood it starts lasts past the test (the clock is moved only inside it).
  it('during a long flood wait nothing is sent nor asked, and notices and announcements go after it', async () => {
    // A chat of its own, linked before the flood: the announcement's wait is checked on it.
    await linkedChat('espera', 6202);
    fake.flood(40);
    expect(await t.ctx.telegram.send(6002, 'Aviso uno')).toBe(false);
    expect(sendsTo(6002)).toBe(1);
    // Told to wait 40 s: the next notices do not knock meanwhile, and an announcement waits too.
    expect(await t.ctx.telegram.send(6002, 'Aviso uno')).toBe(false);
    expect(await t.ctx.telegram.send(6003, 'Aviso dos')).toBe(false);
    await announce('Tarifas', 'Nuevos planes.');
    const linkedBefore = fake.to(6202).length;
    expect(linkedBefore).toBeGreaterThan(0); // its link's welcome: the chat is linked
    await t.ctx.telegram.notifier.tick();
    expect(sendsTo(6002) + sendsTo(6003)).toBe(1);
    expect(fake.to(6202)).toHaveLength(linkedBefore);
    // 41 s later (the clock moved for the bot and the stand-in alike) they go.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 41_000 });
    try {
      expect(await t.ctx.telegram.send(6002, 'Aviso uno')).toBe(true);
      await t.ctx.telegram.notifier.tick();
    } finally {
      vi.useRealTimers();
    }
    expect(fake.to(6002).map((m) => m.text)).toEqual(['Aviso uno']);
    expect(
      fake
        .to(6202)
        .slice(linkedBefore)
        .map((m) => m.text),
    ).toEqual(['Nube VPN: Tarifas\n\nNuevos planes.']);
  });
});
