/**
 * Issue 10: a QvaPay confirmation credits an invoice only when QvaPay's own answer is about the
 * transaction stored when that invoice was created, for our app, and for a finite amount at least
 * the invoice's. Anything else credits nothing, and the customer is told why in Spanish.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msg } from '@vpn/contracts';
import { invoices } from '../db/schema.ts';
import {
  bearer,
  createTestApp,
  listen,
  managerToken,
  setSettings,
  type TestApp,
} from '../../test/helpers.ts';
import { customerPayments, gatewayCheckOver, openShop } from '../../test/payments.ts';
import { FakeQvaPay } from '../../test/fakeQvapay.ts';
import { PushClient } from '../../test/protocolAgent.ts';

let t: TestApp;
let qvapay: FakeQvaPay;
let planId: number;

beforeAll(async () => {
  qvapay = await FakeQvaPay.start();
  t = await createTestApp({
    scheduler: false,
    env: {
      QVAPAY_APP_ID: 'app-1',
      QVAPAY_APP_SECRET: 'secreto',
      QVAPAY_API_URL: qvapay.apiUrl,
      PUBLIC_URL: 'https://panel.example',
    },
  });
  const admin = await managerToken(t);
  planId = await openShop(t, admin);
  await setSettings(t, { allow_payments_qvapay: true });
});
afterAll(async () => {
  await t.close();
  await qvapay.close();
});

const { buyer, shown, myPeers } = customerPayments(() => t);
/** A new_peer invoice at QvaPay: its id and the transaction uuid QvaPay gave it. */
async function invoiceOf(access: string, name: string) {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/client/invoices',
    headers: bearer(access),
    payload: { operation: 'new_peer', peer: name, plan: planId },
  });
  expect(res.statusCode).toBe(200);
  const { id } = res.json();
  const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, id));
  return { id: id as string, uuid: row!.transactionUuid! };
}
const notify = async (uuid: string, remoteId?: string) =>
  (
    await t.app.inject({
      method: 'POST',
      url: '/api/payments/qvapay/webhook',
      payload: remoteId ? { transaction_uuid: uuid, remote_id: remoteId } : { transaction_uuid: uuid },
    })
  ).json();

const checkWindowOver = (id: string) => gatewayCheckOver(t, id);

describe('a QvaPay confirmation credits only the invoice it belongs to', () => {
  it('refuses a paid transaction other than the one stored at creation, even naming this invoice', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    // The attacker's own payment at QvaPay, 3.50 to our app, naming the victim's invoice.
    const forged = qvapay.add({
      app_id: 42,
      app: { uuid: 'app-1', name: 'VPN' },
      remote_id: a.id,
      amount: 3.5,
      status: 'paid',
    });
    expect(await notify(forged, a.id)).toEqual({ ok: true, credited: false, message: msg.paymentNotFound });
    expect(await notify(forged)).toMatchObject({ credited: false });
    expect(await shown(c.access, a.id)).toMatchObject({ status: 'pending', delivered: false });
    expect(await myPeers(c.access)).toEqual([]);
  });

  it('refuses a transaction QvaPay says belongs to another app, and tells the customer why', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    const tx = qvapay.transactions.get(a.uuid)!;
    tx.app_id = 7;
    tx.app = { uuid: 'otra-app', name: 'Otra tienda' };
    qvapay.pay(a.uuid);
    expect(await notify(a.uuid, a.id)).toMatchObject({ credited: false, message: msg.paymentNotThisInvoice });
    expect(await shown(c.access, a.id)).toMatchObject({
      status: 'pending',
      message: msg.paymentNotThisInvoice,
    });
    expect(await myPeers(c.access)).toEqual([]);
  });

  it.each([
    ['a smaller amount', 3.49, msg.paymentAmountLow],
    ['a smaller amount as text', '1.00', msg.paymentAmountLow],
    ['an amount that is not a number', 'NaN', msg.paymentAmountUnknown],
    ['no amount at all', undefined, msg.paymentAmountUnknown],
  ])('refuses %s', async (_case, amount, message) => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    const tx = qvapay.transactions.get(a.uuid)!;
    if (amount === undefined) delete tx.amount;
    else tx.amount = amount;
    qvapay.pay(a.uuid);
    expect(await notify(a.uuid, a.id)).toMatchObject({ credited: false, message });
    expect(await shown(c.access, a.id)).toMatchObject({ status: 'pending', delivered: false, message });
    expect(await myPeers(c.access)).toEqual([]);
  });

  it('refuses a transaction that does not name the invoice, or names another one', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    delete qvapay.transactions.get(a.uuid)!.remote_id;
    qvapay.pay(a.uuid);
    expect(await notify(a.uuid, a.id)).toMatchObject({ credited: false, message: msg.paymentNotThisInvoice });
    expect(await shown(c.access, a.id)).toMatchObject({
      status: 'pending',
      message: msg.paymentNotThisInvoice,
    });
    expect(await myPeers(c.access)).toEqual([]);
  });

  it('a paid transaction replayed for a second invoice credits only the first', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    const b = await invoiceOf(c.access, 'B');
    qvapay.pay(a.uuid);
    expect(await notify(a.uuid, a.id)).toMatchObject({ credited: true });
    // Replayed naming B, and with QvaPay's answer naming no invoice: B stays unpaid.
    delete qvapay.transactions.get(a.uuid)!.remote_id;
    expect(await notify(a.uuid, b.id)).toMatchObject({ credited: false, message: msg.paymentNotThisInvoice });
    expect(await notify(a.uuid)).toMatchObject({ credited: false });
    expect(await shown(c.access, b.id)).toMatchObject({ status: 'pending' });
    expect(await myPeers(c.access)).toHaveLength(1);

    // QvaPay (or anyone in between) answering A's uuid for a new invoice: refused at creation.
    qvapay.nextUuid = a.uuid;
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/client/invoices',
      headers: bearer(c.access),
      payload: { operation: 'new_peer', peer: 'C', plan: planId },
    });
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toBe(msg.gatewayFailed);
    const rows = await t.ctx.db.select().from(invoices).where(eq(invoices.transactionUuid, a.uuid));
    expect(rows.map((r) => r.id)).toEqual([a.id]);
  });

  it('the right transaction, app and amount credits once (a larger amount too)', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    qvapay.transactions.get(a.uuid)!.amount = '4.00';
    qvapay.pay(a.uuid);
    expect(await notify(a.uuid)).toEqual({ ok: true, credited: true });
    expect(await notify(a.uuid, a.id)).toEqual({ ok: true, credited: false });
    const invoice = await shown(c.access, a.id);
    expect(invoice).toMatchObject({ status: 'paid', delivered: true });
    expect(invoice.message).toBeUndefined();
    expect(await myPeers(c.access)).toHaveLength(1);
  });

  it('QvaPay unreachable: nothing credited, and the customer is told the payment could not be checked', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    qvapay.pay(a.uuid);
    await qvapay.close();
    try {
      expect(await notify(a.uuid, a.id)).toMatchObject({ credited: false, message: msg.paymentUnverifiable });
      expect(await shown(c.access, a.id)).toMatchObject({
        status: 'pending',
        message: msg.paymentUnverifiable,
      });
    } finally {
      await qvapay.listenAgain();
    }
    // QvaPay's next notice, once the 30 s of the last check have passed, credits it.
    await checkWindowOver(a.id);
    expect(await notify(a.uuid, a.id)).toMatchObject({ credited: true });
  });
});

describe('the webhook, called by anyone', () => {
  it('50 hits for one invoice ask QvaPay once; the payment page shares that check', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'Martillo');
    const asked = () => qvapay.requests.filter((p) => p.endsWith(`/transaction/${a.uuid}`)).length;
    const before = asked();
    const hits = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.app.inject({
          method: i % 2 ? 'GET' : 'POST',
          url: `/api/payments/qvapay/webhook?transaction_uuid=${a.uuid}`,
          remoteAddress: `198.18.9.${i + 1}`,
        }),
      ),
    );
    expect(hits.map((h) => h.statusCode)).toEqual(Array(50).fill(200));
    expect(hits.every((h) => h.json().credited === false)).toBe(true);
    expect(asked() - before).toBe(1);
    // Paid now: the page's polls and more hits within the 30 s still make no call...
    qvapay.pay(a.uuid);
    expect((await shown(c.access, a.id)).status).toBe('pending');
    expect(await notify(a.uuid)).toMatchObject({ credited: false });
    expect(asked() - before).toBe(1);
    // ...and the first hit after them asks again, and credits.
    await checkWindowOver(a.id);
    expect(await notify(a.uuid)).toEqual({ ok: true, credited: true });
    expect(asked() - before).toBe(2);
    // A paid invoice is never asked about again, however often the webhook is called.
    await checkWindowOver(a.id);
    expect(await notify(a.uuid)).toEqual({ ok: true, credited: false });
    expect(asked() - before).toBe(2);
  });
});

describe('polling the payment page', () => {
  it('asks QvaPay at most once per invoice per 30 s, whatever the number of polls', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'Sondeo');
    const asked = () => qvapay.requests.filter((p) => p.endsWith(`/transaction/${a.uuid}`)).length;
    const before = asked();
    const polls = await Promise.all(Array.from({ length: 12 }, () => shown(c.access, a.id)));
    expect(polls.every((p) => p.status === 'pending')).toBe(true);
    expect(asked() - before).toBe(1);
    // Paid meanwhile: still pending for the customer until the window ends (no second call)...
    qvapay.pay(a.uuid);
    expect((await shown(c.access, a.id)).status).toBe('pending');
    expect(asked() - before).toBe(1);
    // ...and the first poll after it asks again and credits (the window moved back, not waited for).
    await t.ctx.db
      .update(invoices)
      .set({ gatewayCheckedAt: sql`now() - interval '31 seconds'` })
      .where(eq(invoices.id, a.id));
    expect(await shown(c.access, a.id)).toMatchObject({ status: 'paid', delivered: true });
    expect(asked() - before).toBe(2);
  });

  it('a payment confirmed for an invoice canceled or expired meanwhile credits it; a short one is listed for the operator', async () => {
    const c = await buyer();
    const late = await invoiceOf(c.access, 'Tarde');
    await t.ctx.db.update(invoices).set({ status: 'canceled' }).where(eq(invoices.id, late.id));
    qvapay.pay(late.uuid);
    expect(await notify(late.uuid, late.id)).toMatchObject({ credited: true });
    expect(await myPeers(c.access)).toHaveLength(1);

    const finance = await managerToken(t, 'finance');
    const financeConsole = await PushClient.connect(await listen(t), finance);
    const short = await invoiceOf(c.access, 'Corta');
    await t.ctx.db.update(invoices).set({ status: 'expired' }).where(eq(invoices.id, short.id));
    qvapay.pay(short.uuid);
    qvapay.transactions.get(short.uuid)!.amount = '1.00';
    expect(await notify(short.uuid, short.id)).toMatchObject({
      credited: false,
      message: msg.paymentAmountLow,
    });
    const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, short.id));
    expect(row!.status).toBe('expired');
    const listed = await t.app.inject({
      method: 'GET',
      url: `/api/admin/payments/unmatched?q=${short.uuid}`,
      headers: bearer(finance),
    });
    expect(listed.json()).toMatchObject({
      count: 1,
      results: [{ gateway: 'qvapay', reference: short.uuid, amount: '1.00', invoice_id: short.id }],
    });
    // The finance console open meanwhile heard of it.
    expect(await financeConsole.waitFor('admin_payment')).toEqual({
      type: 'admin_payment',
      payment_id: listed.json().results[0].id,
    });
    financeConsole.close();
  });
});
