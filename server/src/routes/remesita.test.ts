/**
 * Remesita (issue 15) against a stand-in built only from what Remesita documents
 * (test/fakeRemesita.ts): the payment link is created with the documented fields, the customer pays
 * at the link, Remesita posts its IPN to the link's `ipnUrl`, and only an IPN that names this invoice,
 * our business unit, a covering amount and a new `ref`, on this invoice's secret URL, credits.
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msg } from '@vpn/contracts';
import { customers, invoices, paymentNotices } from '../db/schema.ts';
import {
  bearer,
  createTestApp,
  listen,
  managerToken,
  reauthHeader,
  setSettings,
  type TestApp,
} from '../../test/helpers.ts';
import { customerPayments, openShop } from '../../test/payments.ts';
import { FakeQvaPay } from '../../test/fakeQvapay.ts';
import { FakeRemesita, type Ipn } from '../../test/fakeRemesita.ts';
import { PushClient } from '../../test/protocolAgent.ts';
import { BUS_CHANNEL, type BusEvent } from '../realtime/bus.ts';

let t: TestApp;
let remesita: FakeRemesita;
let qvapay: FakeQvaPay;
let planId: number;
let owner: string;
const logs: string[] = [];

/** Remesita's IPN reaches the app under test in-process, at the path of the URL it was given. */
function routeInto(fake: FakeRemesita) {
  fake.deliver = async (url, body) => {
    const res = await t.app.inject({ method: 'POST', url: new URL(url).pathname, payload: body });
    return { status: res.statusCode, body: res.body };
  };
}

/** The environment of the app under test: both gateways pointed at their stand-ins. */
const remesitaEnv = () => ({
  REMESITA_API_KEY: 'rk-1',
  REMESITA_API_SECRET: 'rs-1',
  REMESITA_BUSINESS_ID: 'bu-1',
  REMESITA_BASE_URL: remesita.baseUrl,
  QVAPAY_APP_ID: 'app-1',
  QVAPAY_APP_SECRET: 'secreto',
  QVAPAY_API_URL: qvapay.apiUrl,
  PUBLIC_URL: 'https://panel.example',
});

beforeAll(async () => {
  remesita = await FakeRemesita.start();
  qvapay = await FakeQvaPay.start();
  t = await createTestApp({
    scheduler: false,
    logStream: new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    }),
    env: remesitaEnv(),
  });
  routeInto(remesita);
  const admin = await managerToken(t);
  owner = await managerToken(t, 'owner');
  planId = await openShop(t, admin);
  await setSettings(t, { allow_payments_qvapay: false, allow_payments_remesita: true });
});
afterAll(async () => {
  await t.close();
  await remesita.close();
  await qvapay.close();
});

const { buyer, put, shown, myPeers } = customerPayments(() => t);
/** A new_peer invoice paid with Remesita: its id and the link Remesita made for it. */
async function invoiceOf(access: string, name: string) {
  const res = await put(access, { operation: 'new_peer', peer: name, plan: planId, gateway: 'remesita' });
  expect(res.statusCode).toBe(200);
  const { id, payment_url } = res.json();
  const link = remesita.linkOf(id);
  expect(payment_url).toBe(link.link);
  return { id: id as string, link };
}
const answer = (r: { status: number; body: string }) => ({ status: r.status, ...JSON.parse(r.body) });
const status = async (id: string) =>
  (await t.ctx.db.select().from(invoices).where(eq(invoices.id, id)))[0]!.status;

describe('Remesita: credited on its documented IPN', () => {
  it('the link carries the documented fields; the customer pays; the IPN credits once, repeats change nothing', async () => {
    const c = await buyer();
    const { id, link } = await invoiceOf(c.access, 'Móvil');
    expect(link).toMatchObject({
      customId: id,
      amount: 3.5,
      businessUnitId: 'bu-1',
      concept: 'Mensual Movil',
    });
    expect(link.sandbox).toBe(false);
    expect(link.successUrl).toBe(`https://panel.example/dashboard/payment?remote_id=${id}&status=success`);
    expect(link.cancelUrl).toBe(`https://panel.example/dashboard/payment?remote_id=${id}&status=canceled`);
    // The notification URL carries a per-invoice secret; the database keeps only its hash.
    const m = /^https:\/\/panel\.example\/api\/payments\/remesita\/ipn\/([^/]+)\/([A-Za-z0-9_-]{43})$/.exec(
      link.ipnUrl,
    );
    expect(m?.[1]).toBe(id);
    const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, id));
    expect(row!.notifySecretHash).toBe(createHash('sha256').update(m![2]!).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(m![2]!);

    // Polling the payment page never asks Remesita anything (it documents no look-up).
    const before = remesita.requests.length;
    for (let i = 0; i < 5; i++) expect(await shown(c.access, id)).toMatchObject({ status: 'pending' });
    expect(remesita.requests.length).toBe(before);
    // Start and processing notices credit nothing.
    for (const s of ['start', 'processing', 'payment_review', 'paused'] as const)
      expect(answer(await remesita.notify(id, remesita.ipn(id, s)))).toEqual({
        status: 200,
        ok: true,
        credited: false,
      });
    expect(await myPeers(c.access)).toEqual([]);

    const paid = remesita.ipn(id, 'paid');
    const results = await Promise.all([1, 2, 3].map(() => remesita.notify(id, paid)));
    expect(results.map((r) => answer(r))).toContainEqual({ status: 200, ok: true, credited: true });
    expect(results.filter((r) => answer(r).credited)).toHaveLength(1);
    expect(answer(await remesita.complete(id))).toEqual({ status: 200, ok: true, credited: false });
    const peers = await myPeers(c.access);
    expect(peers).toHaveLength(1);
    expect(peers[0]).toMatchObject({ name: 'Móvil', active: true });
    expect(await shown(c.access, id)).toMatchObject({
      status: 'paid',
      delivered: true,
      gateway: 'remesita',
      transaction_uuid: link.ref,
    });
  });

  it('the customer pays at the link’s page: the IPN arrives and the browser returns to /dashboard/payment', async () => {
    const c = await buyer();
    const { id, link } = await invoiceOf(c.access, 'Página');
    const page = await fetch(link.link);
    expect(await page.text()).toContain('3.50 USD');
    const back = await fetch(`${link.link}/pay`, { method: 'POST', redirect: 'manual' });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(link.successUrl);
    expect(await shown(c.access, id)).toMatchObject({ status: 'paid', delivered: true });
  });

  it('a canceled payment leaves the invoice unpaid and sends the customer to /dashboard/payment', async () => {
    const c = await buyer();
    const { id, link } = await invoiceOf(c.access, 'Tablet');
    const back = await fetch(`${link.link}/cancel`, { method: 'POST', redirect: 'manual' });
    expect(back.headers.get('location')).toBe(
      `https://panel.example/dashboard/payment?remote_id=${id}&status=canceled`,
    );
    expect(remesita.sent.at(-1)!.body.status).toBe('cancelled');
    expect(await shown(c.access, id)).toMatchObject({ status: 'canceled', delivered: false });
    expect(await myPeers(c.access)).toEqual([]);
  });

  it('IPNs naming another invoice, another business unit, a smaller amount, another currency, or on another URL credit nothing', async () => {
    const c = await buyer();
    const a = await invoiceOf(c.access, 'A');
    const b = await invoiceOf(c.access, 'B');
    const secretA = new URL(a.link.ipnUrl).pathname.split('/')[6]!;
    const forged: [string, Ipn, string?][] = [
      ['otra custom_id', remesita.ipn(b.id, 'paid', { custom_id: a.id })],
      ['otra unidad de negocio', remesita.ipn(b.id, 'paid', { app_id: 'bu-ajena' })],
      ['sin ref', remesita.ipn(b.id, 'paid', { ref: '' })],
      ['importe no numérico', remesita.ipn(b.id, 'paid', { amount: 'tres' as unknown as number })],
      ['otra moneda', { ...remesita.ipn(b.id, 'paid'), currency: 'EUR' } as Ipn],
      [
        'secreto adivinado',
        remesita.ipn(b.id, 'paid'),
        `https://panel.example/api/payments/remesita/ipn/${b.id}/${'x'.repeat(43)}`,
      ],
      [
        'secreto de A para B',
        remesita.ipn(b.id, 'paid'),
        `https://panel.example/api/payments/remesita/ipn/${b.id}/${secretA}`,
      ],
      [
        'no es uuid',
        remesita.ipn(b.id, 'paid'),
        `https://panel.example/api/payments/remesita/ipn/no-es-uuid/${secretA}`,
      ],
    ];
    for (const [why, body, url] of forged) {
      const res = answer(await remesita.notify(b.id, body, url));
      expect(res, why).toEqual({ status: 200, ok: true, credited: false });
    }
    expect(await status(b.id)).toBe('pending');

    // A smaller amount: nothing credited, the customer told why, the money listed for the operator.
    const low = answer(await remesita.pay(b.id, 1));
    expect(low).toEqual({ status: 200, ok: true, credited: false });
    expect(await shown(c.access, b.id)).toMatchObject({ status: 'pending', message: msg.paymentAmountLow });
    const unmatched = await t.app.inject({
      method: 'GET',
      url: `/api/admin/payments/unmatched?q=${b.link.ref}`,
      headers: bearer(owner),
    });
    expect(unmatched.json()).toMatchObject({
      count: 1,
      results: [
        { reference: b.link.ref, invoice_id: b.id, amount: '1.00', gateway: 'remesita', resolved: null },
      ],
    });
    expect(await myPeers(c.access)).toEqual([]);
    // A's own, right notice still credits A.
    expect(answer(await remesita.pay(a.id))).toMatchObject({ credited: true });
    expect(await myPeers(c.access)).toHaveLength(1);
  });

  it('a payment for an invoice canceled or expired meanwhile credits it; a second payment of a paid invoice is listed, not lost', async () => {
    const c = await buyer();
    const late = await invoiceOf(c.access, 'Tarde');
    await remesita.cancel(late.id);
    expect(await status(late.id)).toBe('canceled');
    expect(answer(await remesita.pay(late.id))).toMatchObject({ credited: true });
    expect(await shown(c.access, late.id)).toMatchObject({ status: 'paid', delivered: true });

    const expired = await invoiceOf(c.access, 'Caducada');
    await t.ctx.db.update(invoices).set({ status: 'expired' }).where(eq(invoices.id, expired.id));
    expect(answer(await remesita.pay(expired.id))).toMatchObject({ credited: true });
    expect(await myPeers(c.access)).toHaveLength(2);

    // The same link paid twice (another ref): the invoice is paid already, the money is listed.
    const again = remesita.ipn(late.id, 'paid', { ref: 'RPSEGUNDO01' });
    expect(answer(await remesita.notify(late.id, again))).toMatchObject({ credited: false });
    const [notice] = await t.ctx.db
      .select()
      .from(paymentNotices)
      .where(eq(paymentNotices.reference, 'RPSEGUNDO01'));
    expect(notice).toMatchObject({ outcome: 'unmatched', invoiceId: late.id });
    expect(notice!.reason).toContain('Pago sin factura abierta');
    expect(await myPeers(c.access)).toHaveLength(2);

    // A canceled invoice paid with too little stays canceled and the money is listed.
    const short = await invoiceOf(c.access, 'Corta');
    await remesita.cancel(short.id);
    expect(answer(await remesita.pay(short.id, 2))).toMatchObject({ credited: false });
    expect(await status(short.id)).toBe('canceled');
    const listed = await t.app.inject({
      method: 'GET',
      url: '/api/admin/payments/unmatched?resolved=false',
      headers: bearer(owner),
    });
    expect(listed.json().results.map((r: { reference: string }) => r.reference)).toEqual(
      expect.arrayContaining([short.link.ref, 'RPSEGUNDO01']),
    );
    // The operator settles one, with a reason; it leaves the open list.
    const id = listed.json().results.find((r: { reference: string }) => r.reference === 'RPSEGUNDO01').id;
    const settled = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/payments/unmatched/${id}`,
      headers: bearer(owner),
      payload: { resolved: true, reason: 'Devuelto por transferencia' },
    });
    expect(settled.statusCode).toBe(200);
    expect(settled.json().resolved).not.toBeNull();
    const open = await t.app.inject({
      method: 'GET',
      url: '/api/admin/payments/unmatched?resolved=false',
      headers: bearer(owner),
    });
    const openRefs = open.json().results.map((r: { reference: string }) => r.reference);
    expect(openRefs).not.toContain('RPSEGUNDO01');
    expect(openRefs).toContain(short.link.ref);
    const done = await t.app.inject({
      method: 'GET',
      url: '/api/admin/payments/unmatched?resolved=true',
      headers: bearer(owner),
    });
    expect(done.json().results.map((r: { reference: string }) => r.reference)).toContain('RPSEGUNDO01');
  });

  it('money that credited nothing reaches the consoles that read revenue at once, and no other role’s', async () => {
    const base = await listen(t);
    const roles = ['finance', 'owner', 'support', 'operations'] as const;
    const [finance, ownerSocket, support, operations] = await Promise.all(
      roles.map(async (role) => PushClient.connect(base, await managerToken(t, role))),
    );
    const c = await buyer();
    const short = await invoiceOf(c.access, 'Pocoapoco');
    expect(answer(await remesita.pay(short.id, 1))).toMatchObject({ credited: false });
    // The same notice again is the same money: nothing new to show.
    expect(answer(await remesita.pay(short.id, 1))).toMatchObject({ credited: false });
    const [notice] = await t.ctx.db
      .select()
      .from(paymentNotices)
      .where(eq(paymentNotices.reference, short.link.ref));
    expect(notice).toMatchObject({ outcome: 'unmatched' });
    const pushed = { type: 'admin_payment', payment_id: notice!.id };
    expect(await finance!.waitFor('admin_payment')).toEqual(pushed);
    expect(await ownerSocket!.waitFor('admin_payment')).toEqual(pushed);

    // A marker every manager gets, announced the same way after the payment: once a console has
    // it, it would have had the payment's push before it.
    const marker: BusEvent = {
      kind: 'managers',
      permission: 'self',
      message: { type: 'admin_audit', entry_id: -26 },
    };
    await t.ctx.db.execute(sql`select pg_notify(${BUS_CHANNEL}, ${JSON.stringify(marker)})`);
    for (const s of [finance!, ownerSocket!, support!, operations!])
      await s.waitFor('admin_audit', (m) => m.entry_id === -26);
    expect(finance!.messages.filter((m) => m.type === 'admin_payment')).toEqual([pushed]);
    // Support reads invoices but not revenue, operations neither (docs/permissions.md).
    expect(support!.messages.filter((m) => m.type === 'admin_payment')).toEqual([]);
    expect(operations!.messages.filter((m) => m.type === 'admin_payment')).toEqual([]);

    // Settled by one operator: the others' open lists hear of it too.
    const heard = finance!.messages.length;
    const settled = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/payments/unmatched/${notice!.id}`,
      headers: bearer(owner),
      payload: { resolved: true, reason: 'Devuelto al cliente' },
    });
    expect(settled.statusCode).toBe(200);
    expect(await finance!.waitFor('admin_payment', (m) => finance!.messages.indexOf(m) >= heard)).toEqual(
      pushed,
    );
    for (const s of [finance!, ownerSocket!, support!, operations!]) s.close();
  });

  it('the IPN’s secret never reaches a log line', async () => {
    const c = await buyer();
    const { id, link } = await invoiceOf(c.access, 'Log');
    await remesita.pay(id);
    const secret = new URL(link.ipnUrl).pathname.split('/')[6]!;
    const text = logs.join('');
    expect(text).toContain(`/api/payments/remesita/ipn/${id}/[redactado]`);
    expect(text).not.toContain(secret);
    // Nor the payer's personal data Remesita sends along.
    expect(text).not.toContain('ana@example.com');
  });

  it('REMESITA_SANDBOX asks Remesita for sandbox links', async () => {
    // The same database served by a second instance started with REMESITA_SANDBOX=true: the
    // environment is read by the config, handed to the gateway, and reaches Remesita's request.
    const sandboxed = await createTestApp({
      scheduler: false,
      database: t.database,
      env: { ...remesitaEnv(), REMESITA_SANDBOX: 'true' },
    });
    try {
      const c = await buyer();
      const viaSandbox = await sandboxed.app.inject({
        method: 'PUT',
        url: '/api/client/invoices',
        headers: bearer(c.access),
        payload: { operation: 'new_peer', peer: 'Prueba', plan: planId, gateway: 'remesita' },
      });
      expect(viaSandbox.statusCode).toBe(200);
      expect(remesita.linkOf(viaSandbox.json().id).sandbox).toBe(true);
    } finally {
      await sandboxed.close();
    }
    // Without it, real links.
    const c = await buyer();
    const { id } = await invoiceOf(c.access, 'Real');
    expect(remesita.linkOf(id).sandbox).toBe(false);
  });

  it('Remesita down: buying answers a clear message and no invoice waits on it', async () => {
    const c = await buyer();
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
    } finally {
      await remesita.listenAgain();
    }
    // The invoice written before asking Remesita is marked failed: none of hers is left pending.
    const [customer] = await t.ctx.db.select().from(customers).where(eq(customers.username, c.username));
    const mine = await t.ctx.db.select().from(invoices).where(eq(invoices.customerId, customer!.id));
    expect(mine.map((i) => i.status)).toEqual(['failed']);
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
      expect(viaRemesita.json().payment_url).toBe(remesita.linkOf(viaRemesita.json().id).link);
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

  it('credentials and API URL saved in Ajustes replace the environment’s, business unit included', async () => {
    const other = await FakeRemesita.start('rk-2', 'rs-2', 'bu-2');
    routeInto(other);
    // Gateway credentials are a sensitive change: the owner confirms the password first.
    const proof = await reauthHeader(t, owner, 'clave-de-gestor');
    const patch = (creds: object | null) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/admin/settings/gateways',
        headers: { ...bearer(owner), ...proof },
        payload: { remesita: creds },
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
      const id = res.json().id as string;
      expect(other.linkOf(id).businessUnitId).toBe('bu-2');
      // The environment's business unit no longer pays here.
      expect(answer(await other.notify(id, other.ipn(id, 'paid', { app_id: 'bu-1' })))).toMatchObject({
        credited: false,
      });
      expect(answer(await other.pay(id))).toMatchObject({ credited: true });
    } finally {
      await patch(null);
      await other.close();
    }
  });
});
