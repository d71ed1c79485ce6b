import { desc, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, invoices, settings } from '../../db/schema.ts';
import {
  bearer,
  createCustomer,
  createTestApp,
  login,
  managerToken,
  reauthHeader,
  type TestApp,
} from '../../../test/helpers.ts';
import { openShop } from '../../../test/payments.ts';
import { FakeQvaPay } from '../../../test/fakeQvapay.ts';

let t: TestApp;
let qvapay: FakeQvaPay;
let owner: string;
let ownerProof: { 'x-reauth': string };
let ops: string;
let planId: number;

beforeAll(async () => {
  // QvaPay knows app-1/secreto; the environment carries other (stale) credentials.
  qvapay = await FakeQvaPay.start('app-1', 'secreto');
  t = await createTestApp({
    scheduler: false,
    env: {
      QVAPAY_APP_ID: 'app-viejo',
      QVAPAY_APP_SECRET: 'secreto-viejo',
      QVAPAY_API_URL: qvapay.apiUrl,
      PUBLIC_URL: 'https://panel.example',
    },
  });
  owner = await managerToken(t, 'owner');
  // Credentials are a sensitive change: the owner's session confirms its password (reauth.test.ts).
  ownerProof = await reauthHeader(t, owner, 'clave-de-gestor');
  ops = await managerToken(t, 'operations');
  planId = await openShop(t, owner);
});
afterAll(async () => {
  await t.close();
  await qvapay.close();
});

const gateways = (method: 'GET' | 'PATCH', payload?: object, token = owner) =>
  t.app.inject({
    method,
    url: '/api/admin/settings/gateways',
    headers: { ...bearer(token), ...(token === owner ? ownerProof : {}) },
    ...(payload ? { payload } : {}),
  });

async function buy() {
  const c = await createCustomer(t);
  const { access } = await login(t, c.username, c.password);
  return t.app.inject({
    method: 'PUT',
    url: '/api/client/invoices',
    headers: bearer(access),
    payload: { operation: 'new_peer', peer: 'Móvil', plan: planId },
  });
}

describe('gateway credentials in Ajustes', () => {
  it('shows only whether credentials are set and where from', async () => {
    const res = await gateways('GET');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      allow_payments_qvapay: false,
      allow_payments_remesita: false,
      qvapay: { configured: true, source: 'env' },
      remesita: { configured: false, source: 'none' },
    });
    expect(res.body).not.toContain('secreto-viejo');
  });

  it('is for the owner only: operations gets 403 and cannot flip a gateway through the public PATCH', async () => {
    expect((await gateways('GET', undefined, ops)).statusCode).toBe(403);
    const patch = await gateways('PATCH', { allow_payments_qvapay: true }, ops);
    expect(patch.statusCode).toBe(403);
    expect(patch.json().message).toBe('Su rol (Operaciones) no tiene permiso para realizar esta acción');
    const sneaky = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: bearer(ops),
      payload: { allow_payments_qvapay: true },
    });
    expect(sneaky.statusCode).toBe(400);
    expect(JSON.stringify(sneaky.json())).toContain('Las pasarelas de pago se cambian en');
    expect((await gateways('GET')).json().allow_payments_qvapay).toBe(false);
    // Public switches still work for operations.
    const pub = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: bearer(ops),
      payload: { allow_registration: false },
    });
    expect(pub.statusCode).toBe(200);
    expect(pub.json().allow_registration).toBe(false);
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'settings.update'))
      .orderBy(desc(auditLog.id));
    expect(entry?.data).toMatchObject({ changes: { allow_registration: { before: true, after: false } } });
  });

  it('QvaPay uses the credentials saved in Ajustes, stored encrypted; forgetting them falls back to the environment', async () => {
    // Switched on with the environment's stale credentials: QvaPay refuses, the customer is told.
    expect((await gateways('PATCH', { allow_payments_qvapay: true })).statusCode).toBe(200);
    const stale = await buy();
    expect(stale.statusCode).toBe(502);

    const saved = await gateways('PATCH', { qvapay: { app_id: 'app-1', app_secret: 'secreto' } });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().qvapay).toEqual({ configured: true, source: 'console' });
    expect(saved.body).not.toContain('secreto');
    const [row] = await t.ctx.db.select().from(settings).where(like(settings.key, 'gateway.qvapay'));
    expect(JSON.stringify(row?.value)).not.toContain('secreto');
    expect(JSON.stringify(row?.value)).not.toContain('app-1');

    const ok = await buy();
    expect(ok.statusCode).toBe(200);
    expect(ok.json().payment_url).toMatch(/^https:\/\/qvapay\.example\/pay\//);
    // The notification is checked with QvaPay using the same saved credentials, and credits.
    const [invoice] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, ok.json().id));
    qvapay.pay(invoice!.transactionUuid!);
    await t.app.inject({
      method: 'GET',
      url: `/api/payments/qvapay/webhook?transaction_uuid=${invoice!.transactionUuid}&remote_id=${invoice!.id}`,
    });
    const [paid] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, invoice!.id));
    expect(paid!.status).toBe('paid');

    const audit = await t.ctx.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'settings.gateways'))
      .orderBy(desc(auditLog.id));
    expect(JSON.stringify(audit)).not.toContain('secreto');
    expect(audit[0]?.data).toMatchObject({
      changes: { qvapay_credentials: { before: 'no configurado', after: 'configurado' } },
    });

    const forgot = await gateways('PATCH', { qvapay: null });
    expect(forgot.json().qvapay).toEqual({ configured: true, source: 'env' });
    expect((await buy()).statusCode).toBe(502);
  });

  it('stores Remesita credentials for its gateway, and refuses incomplete ones changing nothing', async () => {
    const partial = await gateways('PATCH', { remesita: { api_key: 'k' } });
    expect(partial.statusCode).toBe(400);
    expect(JSON.stringify(partial.json())).toContain('Indique el API secret');
    expect((await gateways('GET')).json().remesita.configured).toBe(false);
    const saved = await gateways('PATCH', {
      remesita: { api_key: 'clave', api_secret: 'secreto-r', business_id: 'bu-7' },
      allow_payments_remesita: true,
    });
    expect(saved.json()).toMatchObject({
      allow_payments_remesita: true,
      remesita: { configured: true, source: 'console' },
    });
    expect(await t.ctx.gatewayCredentials.remesita()).toEqual({
      apiKey: 'clave',
      apiSecret: 'secreto-r',
      businessId: 'bu-7',
    });
    expect((await gateways('PATCH', {})).statusCode).toBe(400);
  });
});
