/**
 * Renewal reminders (issue 9): a mail 72 h and another 24 h before a peer expires, each sent once
 * even with two control-plane instances running the scheduler at the same moment. The clock is the
 * `now` the scheduler passes; the mail goes through a real SMTP server on loopback.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../db/client.ts';
import { customers, peers, plans } from '../../db/schema.ts';
import { invalidatePlans } from './plans.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { TestSmtp } from '../../../test/smtp.ts';

const HOUR = 3_600_000;
let smtp: TestSmtp;
let t: TestApp;
/** A second control-plane instance: on PostgreSQL with its own connection pool. */
let t2: TestApp;
let db2: Database;
let admin: string;
let serverId: number;
let plan: typeof plans.$inferSelect;

beforeAll(async () => {
  smtp = await TestSmtp.start();
  const env = {
    PUBLIC_URL: 'https://panel.example',
    SMTP_URL: smtp.url,
    COMPANY_NAME: 'Nube Segura',
  };
  t = await createTestApp({ scheduler: false, env });
  db2 = t.database.url ? await openDatabase({ databaseUrl: t.database.url, poolSize: 5 }) : t.database;
  t2 = await createTestApp({ scheduler: false, env, database: db2 });
  admin = await managerToken(t);
  const [row] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days' })
    .returning();
  plan = row!;
  invalidatePlans(t.ctx.db);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, admin),
    payload: { name: 'Uno', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' },
  });
  serverId = res.json().server.id;
});
afterAll(async () => {
  await t2.close();
  if (db2 !== t.database) await db2.close();
  await t.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.mails.length = 0;
});

/** A customer (verified e-mail unless told) with one peer; answers the peer's expiry. */
async function peerOf(email: string, verified = true) {
  const c = await createCustomer(t);
  await t.ctx.db.update(customers).set({ email, emailVerified: verified }).where(eq(customers.id, c.id));
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/peers',
    headers: bearer(admin),
    payload: { username: c.username, plan: plan.id, name: 'Teléfono', server: serverId },
  });
  expect(res.statusCode).toBe(201);
  const id = res.json().id as number;
  const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, id));
  return { id, expiresAt: row!.expiresAt!.getTime() };
}

/** Both instances' schedulers run at the same moment `at`. */
const bothRun = (at: number) =>
  Promise.all([t.ctx.reminders.sendDue(new Date(at)), t2.ctx.reminders.sendDue(new Date(at))]);
const mailsTo = (to: string) => smtp.mails.filter((m) => m.to.includes(to));

describe('renewal reminders', () => {
  it('mails 72 h and 24 h before expiry, each once with two instances, in Spanish with the company name', async () => {
    const { expiresAt } = await peerOf('ana@example.com');
    await bothRun(expiresAt - 100 * HOUR);
    expect(mailsTo('ana@example.com')).toHaveLength(0);

    await bothRun(expiresAt - 71 * HOUR);
    await bothRun(expiresAt - 70 * HOUR);
    const first = mailsTo('ana@example.com');
    expect(first).toHaveLength(1);
    expect(first[0]!.text).toContain('Tu peer «Teléfono» de Nube Segura vence en menos de 3 días');
    expect(first[0]!.text).toContain('Renovar: https://panel.example/dashboard/home');
    expect(first[0]!.text).toContain('— Nube Segura');
    expect(first[0]!.raw).toMatch(/^Subject: .*vence/m);

    await bothRun(expiresAt - 23 * HOUR);
    await bothRun(expiresAt - 1 * HOUR);
    const all = mailsTo('ana@example.com');
    expect(all).toHaveLength(2);
    expect(all[1]!.text).toContain('vence en menos de 24 horas');
  });

  it('sends again after a renewal, for the new expiry', async () => {
    const { id, expiresAt } = await peerOf('luis@example.com');
    await bothRun(expiresAt - 71 * HOUR);
    await bothRun(expiresAt - 23 * HOUR);
    expect(mailsTo('luis@example.com')).toHaveLength(2);
    await t.ctx.peers.extendWithPlan(id, plan, {});
    const [renewed] = await t.ctx.db.select().from(peers).where(eq(peers.id, id));
    const next = renewed!.expiresAt!.getTime();
    expect(next).toBeGreaterThan(expiresAt);
    await bothRun(next - 71 * HOUR);
    await bothRun(next - 23 * HOUR);
    expect(mailsTo('luis@example.com')).toHaveLength(4);
  });

  it('inside 24 h sends only the 24 h reminder; never to an unverified address or a disabled peer', async () => {
    const late = await peerOf('tarde@example.com');
    await bothRun(late.expiresAt - 10 * HOUR);
    await bothRun(late.expiresAt - 9 * HOUR);
    expect(
      mailsTo('tarde@example.com').map((m) => /vence en menos de (24 horas|3 días)/.exec(m.text)?.[1]),
    ).toEqual(['24 horas']);

    const unverified = await peerOf('nadie@example.com', false);
    await bothRun(unverified.expiresAt - 71 * HOUR);
    expect(mailsTo('nadie@example.com')).toHaveLength(0);

    const off = await peerOf('apagado@example.com');
    await t.ctx.db.update(peers).set({ active: false }).where(eq(peers.id, off.id));
    await bothRun(off.expiresAt - 71 * HOUR);
    expect(mailsTo('apagado@example.com')).toHaveLength(0);
  });

  it('gives the claim back when the mail cannot be sent, and sends on the next run', async () => {
    const { expiresAt } = await peerOf('reintento@example.com');
    await smtp.close();
    expect(await t.ctx.reminders.sendDue(new Date(expiresAt - 71 * HOUR))).toBe(0);
    smtp = await TestSmtp.start(smtp.port);
    await bothRun(expiresAt - 70 * HOUR);
    expect(mailsTo('reintento@example.com')).toHaveLength(1);
  });
});
