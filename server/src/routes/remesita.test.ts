/**
 * Remesita (issue 9) against a local stand-in of its REST API: the payment link is created with our
 * invoice id and a per-invoice notification URL; a notification is heard only on that URL, and
 * credits only what Remesita's own order list shows paid, for this invoice, for the full amount.
 */
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msg } from '@vpn/contracts';
import { invoices, plans } from '../db/schema.ts';
import {
  bearer,
  createCustomer,
  createTestApp,
  login,
  managerToken,
  setSettings,
  type TestApp,
} from '../../test/helpers.ts';
import { FakeQvaPay } from '../../test/fakeQvapay.ts';
import { FakeRemesita, type FakeOrder } from '../../test/fakeRemesita.ts';

let t: TestApp;
let remesita: FakeRemesita;
let qvapay: FakeQvaPay;
let planId: number;
let owner: string;

beforeAll(async () => {
  remesita = await FakeRemesita.start();
  qvapay = await FakeQvaPay.start();
  t = await createTestApp({
    scheduler: false,
    env: {
      REMESITA_API_KEY: 'rk-1',
      REMESITA_API_SECRET: 'rs-1',
      REMESITA_BUSINESS_ID: 'bu-1',
      REMESITA_BASE_URL: remesita.baseUrl,
      QVAPAY_APP_ID: 'app-1',
      QVAPAY_APP_SECRET: 'secreto',
      QVAPAY_API_URL: qvapay.apiUrl,
      PUBLIC_URL: 'https://panel.example',
    },
  });
  const admin = await managerToken(t);
  owner = await managerToken(t, 'owner');
  await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: bearer(admin),
    payload: { name: 'Uno', endpoint: 'uno.example:51820', ubication: 'X' },
  });
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.50', validity: '30 days' })
    .returning();
  planId = plan!.id;
  await setSettings(t, { allow_payments_qvapay: false, allow_payments_remesita: true });
});
afterAll(async () => {
  await t.close();
  await remesita.close();
  await qvapay.close();
});

async function buyer() {
  const c = await createCustomer(t);
  const { access } = await login(t, c.username, c.password);
  return { ...c, access };
}
const put = (access: string, payload: object) =>
  t.app.inject({ method: 'PUT', url: '/api/client/invoices', headers: bearer(access), payload });
/** A new_peer invoice paid with Remesita: its id and the order Remesita holds for it. */
async function invoiceOf(access: string, name: string) {
  const res = await put(access, { operation: 'new_peer', peer: name, plan: planId, gateway: 'remesita' });
  expect(res.statusCode).toBe(200);
  const { id, payment_url } = res.json();
  const order = remesita.orderOf(id);
  expect(payment_url).toBe(`https://remesita.example/pay/${order.reference}`);
  return { id: id as string, order };
}
/** Remesita calling the IPN URL it was given, with the plugin's JSON body. */
const notify = (
  order: FakeOrder,
  body: object = { custom_id: order.customId, ref: order.reference, status: order.status },
) => t.app.inject({ method: 'POST', url: new URL(order.ipnUrl).pathname, payload: body });
const shown = async (access: string, id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/client/invoices/${id}`, headers: bearer(access) })).json();
const myPeers = async (access: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/client/accounts/peers', headers: bearer(access) })).json();

describe('Remesita', () => {
  it('happy path: link created for this invoice, paid, notified, confirmed with Remesita, credited once', async () => {
    const c = await buyer();
    const { id, order } = await invoiceOf(c.access, 'Móvil');
    expect(order).toMatchObject({
      customId: id,
      amount: 3.5,
      businessUnitId: 'bu-1',
      concept: 'Mensual Movil',
    });
    expect(order.successUrl).toBe(`https://panel.example/dashboard/payment?remote_id=${id}&status=success`);
    expect(order.cancelUrl).toBe(`https://panel.example/dashboard/payment?remote_id=${id}&status=canceled`);
    // The notification URL carries a per-invoice secret; the database keeps only its hash.
    const m = /^https:\/\/panel\.example\/api\/payments\/remesita\/ipn\/([^/]+)\/([A-Za-z0-9_-]{43})$/.exec(
      order.ipnUrl,
    );
    expect(m?.[1]).toBe(id);
    const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, id));
    expect(row!.notifySecretHash).toBe(createHash('sha256').update(m![2]!).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(m![2]!);

    // Not paid yet: a notification saying "paid" is not believed.
    expect((await notify(order, { custom_id: id, ref: order.reference, status: 'paid' })).json()).toEqual({
      ok: true,
      credited: false,
    });
    expect(await myPeers(c.access)).toEqual([]);

    remesita.pay(id);
    const results = await Promise.all([1, 2, 3].map(() => notify(order)));
    expect(results.map((r) => r.json().credited).filter(Boolean)).toHaveLength(1);
    expect(await myPeers(c.access)).toHaveLength(1);
    expect(await shown(c.access, id)).toMatchObject({
      status: 'paid',
      delivered: true,
      gateway: 'remesita',
      transaction_uuid: order.reference,
    });
    // Replayed later: nothing more.
    expect((await notify(order)).json()).toEqual({ ok: true, credited: false });
    expect(await myPeers(c.access)).toHaveLength(1);
  });

  it('the payment-result page confirms with Remesita too (no notification needed)', async () => {
    const c = await buyer();
    const { id } = await invoiceOf(c.access, 'PC');
    remesita.pay(id);
    expect(await shown(c.access, id)).toMatchObject({ status: 'paid', delivered: true });
  });

  it('cancel: the invoice is canceled and nothing is credited', async () => {
    const c = await buyer();
    const { id, order } = await invoiceOf(c.access, 'Tablet');
    remesita.cancel(id);
    expect((await notify(order)).json()).toEqual({ ok: true, credited: false });
    expect(await shown(c.access, id)).toMatchObject({ status: 'canceled', delivered: false });
    expect(await myPeers(c.access)).toEqual([]);
  });

  it('a notification saying canceled does not cancel what Remesita shows paid', async () => {
    const c = await buyer();
    const { id, order } = await invoiceOf(c.access, 'Router');
    remesita.pay(id);
    expect((await notify(order, { custom_id: id, status: 'canceled' })).json()).toMatchObject({
      credited: true,
    });
    expect(await shown(c.access, id)).toMatchObject({ status: 'paid' });
  });

  it('forged notifications: wrong secret, another invoice’s URL, another invoice named → nothing credited', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    const b = await invoiceOf(c.access, 'B');
    remesita.pay(a.id);
    const [, , , , , secretA] = new URL(a.order.ipnUrl).pathname.split('/');
    const [, , , , , secretB] = new URL(b.order.ipnUrl).pathname.split('/');
    const guessed = 'x'.repeat(43);
    for (const url of [
      `/api/payments/remesita/ipn/${b.id}/${guessed}`,
      // A's (valid) secret replayed for B: B's own order is not paid either way, but it is not even heard.
      `/api/payments/remesita/ipn/${b.id}/${secretA}`,
      `/api/payments/remesita/ipn/${a.id}`,
      `/api/payments/remesita/ipn/no-es-uuid/${secretB}`,
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        payload: { custom_id: b.id, ref: a.order.reference, status: 'paid' },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toMatch(/^[A-Z]/);
    }
    // B's own URL, pointing at A's paid order: B's order at Remesita is what counts, and it is unpaid.
    expect(
      (await notify(b.order, { custom_id: a.id, ref: a.order.reference, status: 'paid' })).json(),
    ).toEqual({
      ok: true,
      credited: false,
      message: msg.paymentNotThisInvoice,
    });
    expect(
      (await notify(b.order, { custom_id: b.id, ref: a.order.reference, status: 'paid' })).json(),
    ).toEqual({
      ok: true,
      credited: false,
    });
    expect(await shown(c.access, b.id)).toMatchObject({ status: 'pending', delivered: false });
    expect(await myPeers(c.access)).toEqual([]);
  });

  it('a smaller or missing amount at Remesita credits nothing, and the customer is told why', async () => {
    const c = await buyer();
    const low = await invoiceOf(c.access, 'Barato');
    remesita.pay(low.id, 1);
    expect((await notify(low.order)).json()).toEqual({
      ok: true,
      credited: false,
      message: msg.paymentAmountLow,
    });
    expect(await shown(c.access, low.id)).toMatchObject({ status: 'pending', message: msg.paymentAmountLow });

    const none = await invoiceOf(c.access, 'Raro');
    remesita.pay(none.id, 'tres');
    expect((await notify(none.order)).json()).toMatchObject({
      credited: false,
      message: msg.paymentAmountUnknown,
    });
    expect(await myPeers(c.access)).toEqual([]);
  });

  it('Remesita down: creating answers a clear message; a payment waits, credited once Remesita answers', async () => {
    const c = await buyer();
    const paid = await invoiceOf(c.access, 'Luego');
    remesita.pay(paid.id);
    await remesita.close();
    try {
      const res = await put(c.access, {
        operation: 'new_peer',
        peer: 'Caído',
        plan: planId,
        gateway: 'remesita',
      });
      expect(res.statusCode).toBe(502);
      expect(res.json().message).toBe(msg.gatewayFailed);
      expect((await notify(paid.order)).json()).toEqual({
        ok: true,
        credited: false,
        message: msg.paymentUnverifiable,
      });
      expect(await shown(c.access, paid.id)).toMatchObject({
        status: 'pending',
        message: msg.paymentUnverifiable,
      });
      // A notification of a cancel while Remesita cannot be asked cancels nothing either.
      expect((await notify(paid.order, { status: 'canceled' })).json()).toMatchObject({ credited: false });
      expect(await myPeers(c.access)).toEqual([]);
    } finally {
      await remesita.listenAgain();
    }
    expect((await notify(paid.order)).json()).toMatchObject({ credited: true });
    expect(await myPeers(c.access)).toHaveLength(1);
  });

  it('with both gateways on the customer chooses; a gateway that is off cannot be chosen', async () => {
    const c = await buyer();
    await setSettings(t, { allow_payments_qvapay: true, allow_payments_remesita: true });
    try {
      const settings = await t.app.inject({
        method: 'GET',
        url: '/api/client/payments',
        headers: bearer(c.access),
      });
      expect(settings.json()).toMatchObject({ allow_payments_qvapay: true, allow_payments_remesita: true });
      const viaQvapay = await put(c.access, {
        operation: 'new_peer',
        peer: 'Q',
        plan: planId,
        gateway: 'qvapay',
      });
      expect(viaQvapay.json().payment_url).toMatch(/^https:\/\/qvapay\.example\//);
      const viaRemesita = await put(c.access, {
        operation: 'new_peer',
        peer: 'R',
        plan: planId,
        gateway: 'remesita',
      });
      expect(viaRemesita.json().payment_url).toMatch(/^https:\/\/remesita\.example\//);

      await setSettings(t, { allow_payments_remesita: false });
      const off = await put(c.access, {
        operation: 'new_peer',
        peer: 'X',
        plan: planId,
        gateway: 'remesita',
      });
      expect(off.statusCode).toBe(400);
      expect(off.json().message).toBe(msg.gatewayUnavailable);
    } finally {
      await setSettings(t, { allow_payments_qvapay: false, allow_payments_remesita: true });
    }
  });

  it('credentials and API URL saved in Ajustes replace the environment’s', async () => {
    const other = await FakeRemesita.start('rk-2', 'rs-2', 'bu-2');
    const patch = (remesita: object | null) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/admin/settings/gateways',
        headers: bearer(owner),
        payload: { remesita },
      });
    try {
      const bad = await patch({ api_key: 'k', api_secret: 's', business_id: 'b', base_url: 'ftp://x' });
      expect(bad.statusCode).toBe(400);
      expect(JSON.stringify(bad.json())).toContain('La URL de la API debe empezar por https://');
      const saved = await patch({
        api_key: 'rk-2',
        api_secret: 'rs-2',
        business_id: 'bu-2',
        base_url: other.baseUrl,
      });
      expect(saved.statusCode).toBe(200);
      const c = await buyer();
      const res = await put(c.access, {
        operation: 'new_peer',
        peer: 'Ajustes',
        plan: planId,
        gateway: 'remesita',
      });
      expect(res.statusCode).toBe(200);
      const order = other.orderOf(res.json().id);
      expect(order.businessUnitId).toBe('bu-2');
      other.pay(order.customId);
      expect((await notify(order)).json()).toMatchObject({ credited: true });
    } finally {
      await patch(null);
      await other.close();
    }
  });
});
