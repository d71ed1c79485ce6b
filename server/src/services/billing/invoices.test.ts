/**
 * Delivery of paid invoices: a payment is never lost. Paid after the only server went away (it was
 * live when the purchase began: a new peer is sold only then), or while provisioning fails, the
 * invoice stays "paid, delivery pending", the failure is logged, and the scheduler's tick delivers
 * it exactly once when it can.
 */
import { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { invoices, peers, planHistory, plans, servers } from '../../db/schema.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  listen,
  login,
  managerToken,
  setSettings,
  type TestApp,
} from '../../../test/helpers.ts';
import { FakeQvaPay } from '../../../test/fakeQvapay.ts';
import { agentHeard } from '../../../test/payments.ts';
import { PushClient } from '../../../test/protocolAgent.ts';

let t: TestApp;
let qvapay: FakeQvaPay;
let base: string;
let admin: string;
let planId: number;
const sockets: PushClient[] = [];
/** Every log line the app wrote, parsed. */
const logLines: Record<string, unknown>[] = [];

/** The scheduler's next tick, as far ahead as any retry wait (one minute at most). */
const nextTick = () => t.ctx.invoices.deliverPending(new Date(Date.now() + 61_000));
/** When the tick that failed a second time started and ended (its retry is due 30 s after). */
const secondFailure = { from: 0, to: 0 };

beforeAll(async () => {
  qvapay = await FakeQvaPay.start();
  t = await createTestApp({
    scheduler: false,
    logStream: new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line) logLines.push(JSON.parse(line));
        done();
      },
    }),
    env: {
      QVAPAY_APP_ID: 'app-1',
      QVAPAY_APP_SECRET: 'secreto',
      QVAPAY_API_URL: qvapay.apiUrl,
      PAYMENTS_SANDBOX: 'true',
      PUBLIC_URL: 'https://panel.example',
    },
  });
  base = await listen(t);
  admin = await managerToken(t);
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.50', validity: '30 days' })
    .returning();
  planId = plan!.id;
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t.close();
  await qvapay.close();
});

async function buyer() {
  const c = await createCustomer(t);
  const { access } = await login(t, c.username, c.password);
  const push = await PushClient.connect(base, access);
  sockets.push(push);
  return { ...c, access, push };
}
const put = (access: string, payload: object) =>
  t.app.inject({ method: 'PUT', url: '/api/client/invoices', headers: bearer(access), payload });
const showInvoice = async (access: string, id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/client/invoices/${id}`, headers: bearer(access) })).json();
const myPeers = async (access: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/client/accounts/peers', headers: bearer(access) })).json();
const historyOf = (invoiceId: string) =>
  t.ctx.db.select().from(planHistory).where(eq(planHistory.invoiceId, invoiceId));
const failuresOf = (invoiceId: string) =>
  logLines.filter((l) => l.invoice === invoiceId && l.msg === 'factura pagada sin entregar: se reintentará');

/** Between the purchase and the payment (e.g. the only server goes away). */
type Between = () => Promise<void>;
const nothing: Between = async () => {};

/** Pays through the sandbox page, as the customer's browser does. */
async function payInSandbox(access: string, name: string, between = nothing) {
  await setSettings(t, { allow_payments_qvapay: false });
  const { id } = (await put(access, { operation: 'new_peer', peer: name, plan: planId })).json();
  await between();
  const pay = await t.app.inject({ method: 'POST', url: `/api/payments/sandbox/${id}/pay` });
  expect(pay.statusCode).toBe(303);
  expect(pay.headers.location).toContain('status=success');
  return id as string;
}

/** Pays at QvaPay; QvaPay then notifies the webhook, which asks QvaPay before crediting. */
async function payAtQvapay(access: string, name: string, between = nothing) {
  await setSettings(t, { allow_payments_qvapay: true });
  const { id } = (await put(access, { operation: 'new_peer', peer: name, plan: planId })).json();
  await between();
  const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, id));
  qvapay.pay(row!.transactionUuid!);
  const hook = await t.app.inject({
    method: 'POST',
    url: '/api/payments/qvapay/webhook',
    payload: { transaction_uuid: row!.transactionUuid, remote_id: id },
  });
  expect(hook.json().credited).toBe(true);
  return id as string;
}

/** Server 'Uno', the one the deliveries end up on (created once the first server went away). */
let uno: number;

describe('an invoice paid after its only server went away', () => {
  let sandboxBuyer: Awaited<ReturnType<typeof buyer>>;
  let qvapayBuyer: Awaited<ReturnType<typeof buyer>>;
  let sandboxInvoice: string;
  let qvapayInvoice: string;

  it('is paid, shows "delivery pending", delivers nothing yet and logs why (sandbox and QvaPay)', async () => {
    // 'Cero' is live when each purchase begins, and switched off by a manager before the payment.
    const [cero] = await t.ctx.db
      .insert(servers)
      .values({ name: 'Cero', host: 'cero.example', ubication: 'X', publicKey: 'k', privateKeyEnc: 'x' })
      .returning();
    const live = () =>
      t.ctx.db.update(servers).set({ active: true, lastSeenAt: new Date() }).where(eq(servers.id, cero!.id));
    const goesAway = async () => {
      await t.ctx.db.update(servers).set({ active: false }).where(eq(servers.id, cero!.id));
    };
    sandboxBuyer = await buyer();
    qvapayBuyer = await buyer();
    await live();
    sandboxInvoice = await payInSandbox(sandboxBuyer.access, 'Móvil', goesAway);
    await live();
    qvapayInvoice = await payAtQvapay(qvapayBuyer.access, 'Portátil', goesAway);

    for (const [who, id] of [
      [sandboxBuyer, sandboxInvoice],
      [qvapayBuyer, qvapayInvoice],
    ] as const) {
      expect(await showInvoice(who.access, id)).toMatchObject({ status: 'paid', delivered: false });
      expect(await myPeers(who.access)).toEqual([]);
      const [failure] = failuresOf(id);
      expect(failure).toMatchObject({ level: 50, reason: 'No hay servidores disponibles temporalmente.' });
      // The log names the invoice, never the transaction reference.
      const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, id));
      expect(JSON.stringify(failure)).not.toContain(row!.transactionUuid!);
      expect(row).toMatchObject({ status: 'paid', creditedAt: null, deliveryAttempts: 1 });
    }

    // A tick while still no server: nothing delivered, nothing lost, one more logged failure each.
    secondFailure.from = Date.now();
    expect(await nextTick()).toBe(0);
    secondFailure.to = Date.now();
    expect(failuresOf(sandboxInvoice)).toHaveLength(2);
    expect(await showInvoice(sandboxBuyer.access, sandboxInvoice)).toMatchObject({ delivered: false });
  });

  it('waits longer after each failure (15 s, 30 s, then every minute)', async () => {
    const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, sandboxInvoice));
    // 30 s after the second failure, which happened while the tick ran: bracketed by the clock read
    // before and after it (no time budget, however slow the machine; the database shares its clock).
    const retryAt = row!.deliveryRetryAt!.getTime();
    expect(retryAt).toBeGreaterThanOrEqual(secondFailure.from + 30_000 - 1);
    expect(retryAt).toBeLessThanOrEqual(secondFailure.to + 30_000 + 1);
    // Not due yet: a tick now does not even try.
    expect(await t.ctx.invoices.deliverPending()).toBe(0);
    expect(failuresOf(sandboxInvoice)).toHaveLength(2);
  });

  it('two instances ticking at once take different invoices, not the same ones twice', async () => {
    // The first instance's tick is held inside its deliveries; the second one's tick then runs.
    const service = t.ctx.invoices;
    const deliver = service.deliver.bind(service);
    const taken: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const delivering = new Promise<void>((r) => (started = r));
    service.deliver = async (id: string) => {
      taken.push(id);
      started();
      await gate;
      return deliver(id);
    };
    try {
      const first = nextTick();
      await delivering;
      // Before issue 33 the second tick read the same two paid invoices and delivered them again.
      expect(await nextTick()).toBe(0);
      release();
      expect(await first).toBe(0);
      expect(taken.sort()).toEqual([sandboxInvoice, qvapayInvoice].sort());
      expect(failuresOf(sandboxInvoice)).toHaveLength(3);
    } finally {
      service.deliver = deliver;
    }
  });

  it('once a server is active, the next tick delivers exactly one peer each, live; a replay delivers nothing', async () => {
    const server = await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: await confirmed(t, admin),
      payload: { name: 'Uno', endpoint: 'uno.example:51820', ubication: 'La Habana' },
    });
    expect(server.statusCode).toBe(201);
    uno = server.json<{ server: { id: number } }>().server.id;

    // Two instances' schedulers at once: each invoice is delivered by one of them.
    const ticks = await Promise.all([nextTick(), nextTick()]);
    expect(ticks[0] + ticks[1]).toBe(2);
    for (const [who, id, name] of [
      [sandboxBuyer, sandboxInvoice, 'Móvil'],
      [qvapayBuyer, qvapayInvoice, 'Portátil'],
    ] as const) {
      const created = await who.push.waitFor('created_peer');
      expect(created.peer).toMatchObject({ name });
      const list = await myPeers(who.access);
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ name, plans_history: [{ plan_name: 'Mensual', plan_price: 3.5 }] });
      expect(await showInvoice(who.access, id)).toMatchObject({
        status: 'paid',
        delivered: true,
        peer_name: name,
      });
    }

    // Replays: another tick, a repeated confirmation, a direct delivery, two at once.
    expect(await nextTick()).toBe(0);
    await t.app.inject({ method: 'POST', url: `/api/payments/sandbox/${sandboxInvoice}/pay` });
    const again = await Promise.all([
      t.ctx.invoices.deliver(sandboxInvoice),
      t.ctx.invoices.deliver(sandboxInvoice),
    ]);
    expect(again).toEqual([false, false]);
    expect(await myPeers(sandboxBuyer.access)).toHaveLength(1);
    expect(await historyOf(sandboxInvoice)).toHaveLength(1);
    expect(sandboxBuyer.push.messages.filter((m) => m.type === 'created_peer')).toHaveLength(1);
  });

  it('even with its delivered mark lost, an invoice never delivers twice (unique plan_history.invoice_id)', async () => {
    await t.ctx.db.update(invoices).set({ creditedAt: null }).where(eq(invoices.id, sandboxInvoice));
    expect(await nextTick()).toBe(0);
    expect(await myPeers(sandboxBuyer.access)).toHaveLength(1);
    expect(await historyOf(sandboxInvoice)).toHaveLength(1);
    const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, sandboxInvoice));
    expect(row!.creditedAt).not.toBeNull();
    expect(logLines.filter((l) => l.invoice === sandboxInvoice && l.level === 40)).toHaveLength(1);
  });
});

describe('a provisioning failure', () => {
  // 'Uno' answers: new peers are sold again.
  beforeAll(() => agentHeard(t, uno));

  it('is logged, leaves nothing half-made, and is retried until the peer is delivered', async () => {
    const c = await buyer();
    // The peer rows are written, then something fails inside the same transaction.
    const insertPeer = t.ctx.peers.insertPeer.bind(t.ctx.peers);
    const spy = vi.spyOn(t.ctx.peers, 'insertPeer').mockImplementationOnce(async (tx, input) => {
      await insertPeer(tx, input);
      throw new Error('disco lleno');
    });
    const id = await payInSandbox(c.access, 'Tablet');
    spy.mockRestore();

    expect(failuresOf(id)).toEqual([expect.objectContaining({ reason: 'disco lleno' })]);
    expect(await showInvoice(c.access, id)).toMatchObject({ status: 'paid', delivered: false });
    expect(await t.ctx.db.select().from(peers).where(eq(peers.customerId, c.id))).toEqual([]);
    expect(await historyOf(id)).toEqual([]);

    expect(await nextTick()).toBe(1);
    expect(await myPeers(c.access)).toHaveLength(1);
    expect(await showInvoice(c.access, id)).toMatchObject({ delivered: true });
  });

  it('add_plan: a failed extension is retried and adds the plan once', async () => {
    const c = await buyer();
    await payInSandbox(c.access, 'Router');
    const [peer] = await myPeers(c.access);
    const before = Date.parse(peer.expiration_date);
    await setSettings(t, { allow_payments_qvapay: false });
    const { id } = (await put(c.access, { operation: 'add_plan', peer: peer.id, plan: planId })).json();
    // The plan's history row cannot be written this once: the extension must roll back whole.
    await t.ctx.db.execute(
      sql`create or replace function no_history() returns trigger language plpgsql as $$ begin raise exception 'sin espacio'; end $$`,
    );
    await t.ctx.db.execute(
      sql`create trigger no_history before insert on plan_history for each row execute function no_history()`,
    );
    try {
      await t.app.inject({ method: 'POST', url: `/api/payments/sandbox/${id}/pay` });
    } finally {
      await t.ctx.db.execute(sql`drop trigger no_history on plan_history`);
      await t.ctx.db.execute(sql`drop function no_history()`);
    }
    expect(failuresOf(id)).toHaveLength(1);
    // The database's refusal is logged as the query's name and SQLSTATE: Drizzle's message would
    // quote the query's values (the peer, the invoice, the plan).
    const [failure] = failuresOf(id);
    expect(failure!.reason).toBe('database error P0001 in insert into plan_history');
    expect(JSON.stringify(failure)).not.toMatch(/sin espacio|params/);
    expect(await showInvoice(c.access, id)).toMatchObject({ status: 'paid', delivered: false });
    const [unchanged] = await myPeers(c.access);
    expect(Date.parse(unchanged.expiration_date)).toBe(before);

    expect(await nextTick()).toBe(1);
    const updated = await c.push.waitFor('updated_peer');
    expect(Date.parse((updated.peer as { expiration_date: string }).expiration_date)).toBeGreaterThan(before);
    const [after] = await myPeers(c.access);
    expect((Date.parse(after.expiration_date) - before) / 86_400_000).toBeCloseTo(30, 1);
    expect(after.plans_history).toHaveLength(2);
    expect(await nextTick()).toBe(0);
    expect((await myPeers(c.access))[0].plans_history).toHaveLength(2);
  });
});
