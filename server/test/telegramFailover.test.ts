/**
 * The Telegram poller on two compiled instances sharing one PostgreSQL: exactly one polls (the
 * lease holder); when it is killed (-9, no goodbye), the other takes over once the lease runs out,
 * and no update is ever answered twice (PostgreSQL only: PGlite is one process by nature); only the
 * holder polls (the stand-in ends a waiting getUpdates with 409 when another comes, as Telegram
 * does). Then two pollers, as when a holder freezes right after Telegram handed it updates and wakes
 * after its lease ran out: both are handed the same updates, and once the frozen one has handled
 * its batch each is still answered once (the update claims; both databases).
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { telegramLease } from '../src/db/schema.ts';
import { TelegramService } from '../src/services/telegram/service.ts';
import type { Database } from '../src/db/client.ts';
import { FakeTelegram } from './fakeTelegram.ts';
import { createTestApp, createTestDatabase, TEST_SECRET, type TestApp } from './helpers.ts';
import { buildServer, exited, freePort, killStarted, startServer } from './serverProcess.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const TOKEN = '555000111:AAF-failover-test-token-standin_ab';

describe.skipIf(!onPostgres)('Telegram poller fail-over between two instances', () => {
  const fake = new FakeTelegram(TOKEN);
  let database: Database & { url?: string };
  const procs: ChildProcess[] = [];

  beforeAll(async () => {
    expect(buildServer()).toBe(true);
    database = await createTestDatabase();
    const apiUrl = await fake.start();
    const env = {
      DATABASE_URL: database.url!,
      SECRET_KEY: TEST_SECRET,
      ADMIN_PASSWORD: 'clave-inicial-segura',
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_URL: apiUrl,
    };
    for (let i = 0; i < 2; i++) procs.push(await startServer(await freePort(), env));
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null && !p.signalCode) p.kill('SIGTERM');
    await Promise.all(procs.map(exited));
    // One still starting when a test timed out is not in procs yet.
    await killStarted();
    await fake.close();
    await database?.close();
  });

  const holderPid = async () => {
    const [row] = await database.db.select().from(telegramLease);
    return row ? Number(row.holder.split(':').at(-2)) : null;
  };

  /** Each of `chats` asks /ayuda; resolves when every one has its answer. */
  async function round(chats: number[], limitMs: number) {
    for (const chat of chats) fake.message(chat, '/ayuda');
    for (const chat of chats) await fake.waitFor(chat, 1, 0, limitMs);
  }

  it('one instance polls; after it is killed the other answers, and no update is answered twice', async () => {
    // The first cycle of each instance runs at start: one of them holds the lease.
    let leader: number | null = null;
    while (!(leader = await holderPid())) await new Promise((r) => setTimeout(r, 100));
    const leaderProc = procs.find((p) => p.pid === leader)!;
    const other = procs.find((p) => p !== leaderProc)!;
    expect(leaderProc).toBeDefined();

    await round([101, 102, 103, 104, 105, 106, 107, 108], 30_000);
    // Both alive, only the holder polls: Telegram (and the stand-in) ends a waiting getUpdates with
    // 409 when another one comes, so a second poller would show here.
    const conflicts = () => fake.refused.filter((r) => r.method === 'getUpdates');
    expect(conflicts()).toEqual([]);

    leaderProc.kill('SIGKILL');
    await exited(leaderProc);
    const killedAt = Date.now();
    // Asked while nobody polls: answered once the survivor holds the lease (≤ 15 s lease + a 5 s cycle).
    await round([201, 202, 203, 204, 205, 206, 207, 208], 60_000);
    const takeover = Date.now() - killedAt;
    console.log(`telegram fail-over: answered ${takeover} ms after the holder was killed`);
    expect(await holderPid()).toBe(other.pid);

    // Every chat got exactly one answer: no update answered by both instances, none lost.
    const perChat = new Map<number, number>();
    for (const s of fake.sent) perChat.set(s.chatId, (perChat.get(s.chatId) ?? 0) + 1);
    expect([...perChat.values()]).toEqual(new Array(16).fill(1));
    expect(fake.sent.every((s) => s.text?.startsWith('Ayuda de '))).toBe(true);
    // Still none: a killed instance's poll is gone with its connection and conflicts with nothing.
    expect(conflicts()).toEqual([]);
    expect(fake.calls.filter((c) => c.method === 'getUpdates').length).toBeGreaterThan(0);
    // Each instance cleared the webhook once, when it first took the lease.
    expect(fake.calls.filter((c) => c.method === 'deleteWebhook').length).toBe(2);
  }, 120_000);
});

describe('Telegram: two pollers at once (a holder frozen past its lease)', () => {
  const fake = new FakeTelegram(TOKEN);
  let t: TestApp;
  const services: TelegramService[] = [];

  beforeAll(async () => {
    const apiUrl = await fake.start();
    t = await createTestApp({ scheduler: false, telegram: false });
    const make = () =>
      new TelegramService({
        db: t.ctx.db,
        encryptionKey: t.ctx.keys.encryption,
        telegram: { token: TOKEN, apiUrl, webhook: false },
        publicUrl: undefined,
        companyName: 'Nube VPN',
        supportUrl: () => Promise.resolve(null),
        peers: t.ctx.peers,
        createInvoice: (customerId, body) => t.ctx.invoices.create(customerId, body),
        log: t.app.log,
        notices: false,
        // Long polls that outlast the test's steps: the old holder is still waiting when updates come.
        pollSeconds: 50,
      });
    services.push(make(), make());
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
    await t?.close();
    await fake.close();
  });

  const polls = () => fake.calls.filter((c) => c.method === 'getUpdates').length;
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((r) => setTimeout(r, 20));
  };

  it('both get the same updates, and each is answered once', async () => {
    const [a, b] = services as [TelegramService, TelegramService];
    await a.cycle();
    expect(a.isLeader).toBe(true);
    await until(() => polls() === 1);
    // A's poll hands the updates out and A freezes before handling them (its answer held back);
    // meanwhile its lease runs out.
    const release = fake.holdNextAnswer();
    const chats = [301, 302, 303, 304, 305, 306];
    for (const chat of chats) fake.message(chat, '/ayuda');
    await until(() => fake.deliveries.length === 1);
    await t.ctx.db.update(telegramLease).set({ expiresAt: sql`now() - interval '1 second'` });
    await b.cycle();
    expect(b.isLeader).toBe(true);
    // B is handed the same updates (no offset confirmed them) and answers every chat.
    for (const chat of chats) await fake.waitFor(chat, 1);
    expect(fake.deliveries[1]).toEqual(fake.deliveries[0]);
    expect(fake.deliveries[0]).toHaveLength(chats.length);
    // A wakes and handles the batch it was given, then finds the lease gone and stops polling.
    // Only then is "answered once" known: every chat still has exactly one answer.
    release();
    await until(() => !a.isLeader);
    for (const chat of chats) expect(fake.to(chat)).toHaveLength(1);
  });
});
