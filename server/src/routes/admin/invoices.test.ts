import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, invoices, peers, plans } from '../../db/schema.ts';
import { invalidatePlans } from '../../services/billing/plans.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';

let t: TestApp;
let base: string;
let owner: string;
let planId: number;
let agent: ProtocolAgent;
const sockets: PushClient[] = [];

beforeAll(async () => {
  t = await createTestApp({
    scheduler: false,
    env: { PAYMENTS_SANDBOX: 'true', PUBLIC_URL: 'https://panel.example' },
  });
  base = await listen(t);
  owner = await managerToken(t);
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.50', validity: '30 days' })
    .returning();
  planId = plan!.id;
  invalidatePlans(t.ctx.db);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name: 'Uno', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' },
  });
  agent = await ProtocolAgent.connect(base, res.json().agent_token);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await agent.close();
  await t.close();
});

const get = (url: string, token = owner) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
const mark = (id: string, reason: unknown, token = owner) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/admin/invoices/${id}`,
    headers: bearer(token),
    payload: { operation: 'mark_paid', reason },
  });

async function buyer(username?: string) {
  const c = await createCustomer(t, username);
  const { access } = await login(t, c.username, c.password);
  return { ...c, access };
}
async function buy(access: string, payload: object): Promise<string> {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/client/invoices',
    headers: bearer(access),
    payload: { plan: planId, ...payload },
  });
  expect(res.statusCode).toBe(200);
  return res.json().id;
}
const customerPeers = async (access: string) =>
  (await get('/api/client/accounts/peers', access)).json<
    { id: number; name: string; expiration_date: string }[]
  >();

describe('GET /api/admin/invoices', () => {
  it('searches by username, peer name and remote id, filters by state and gateway, and pages', async () => {
    const a = await buyer('factura_ana');
    const b = await buyer('factura_beto');
    const first = await buy(a.access, { operation: 'new_peer', peer: 'Router Casa' });
    const second = await buy(b.access, { operation: 'new_peer', peer: 'Tableta' });
    await t.ctx.db.update(invoices).set({ status: 'canceled' }).where(eq(invoices.id, second));

    const ids = async (query: string) =>
      (await get(`/api/admin/invoices?${query}`))
        .json<{ results: { id: string }[] }>()
        .results.map((r) => r.id);
    expect(await ids('q=FACTURA_')).toEqual([second, first]);
    expect(await ids('q=router')).toEqual([first]);
    expect(await ids(`q=${first.slice(0, 13)}`)).toEqual([first]);
    expect(await ids('q=factura_&state=canceled')).toEqual([second]);
    expect(await ids('q=factura_&gateway=sandbox&state=pending')).toEqual([first]);
    expect(await ids('q=factura_&gateway=qvapay')).toEqual([]);

    const page = await get('/api/admin/invoices?q=factura_&page=2&page_size=1');
    expect(page.json()).toMatchObject({
      count: 2,
      results: [
        {
          id: first,
          customer: { username: 'factura_ana' },
          operation: 'new_peer',
          new_peer_name: 'Router Casa',
          amount: '3.50',
          status: 'pending',
          gateway: 'sandbox',
          remote_id: first,
          marked_by: null,
        },
      ],
    });
    const bad = await get('/api/admin/invoices?state=regalada');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({
      state: 'El estado debe ser pending, paid, canceled, expired, failed o refunded',
    });

    const one = await get(`/api/admin/invoices/${first}`);
    expect(one.json()).toMatchObject({ id: first, customer: { username: 'factura_ana' } });
    expect((await get('/api/admin/invoices/no-es-un-id')).statusCode).toBe(404);
    expect((await get('/api/admin/invoices/00000000-0000-4000-8000-000000000000')).json().message).toBe(
      'Factura no encontrada',
    );
  });
});

describe('PATCH /api/admin/invoices/{id} mark_paid', () => {
  it('credits a new_peer invoice once: the peer reaches the agent and the customer; a second mark changes nothing', async () => {
    const c = await buyer();
    const push = await PushClient.connect(base, c.access);
    sockets.push(push);
    const id = await buy(c.access, { operation: 'new_peer', peer: 'Transferencia' });
    const finance = await managerToken(t, 'finance');

    const res = await mark(id, 'Transferencia BANMET 12345', finance);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'paid',
      mark_reason: 'Transferencia BANMET 12345',
      marked_by: { username: expect.stringMatching(/^m/) },
      peer: { name: 'Transferencia' },
      delivered: expect.any(String),
    });
    const created = await push.waitFor('created_peer');
    const peer = (created as unknown as { peer: { id: number; name: string } }).peer;
    expect(peer.name).toBe('Transferencia');
    const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id));
    await agent.until(() => agent.peers.has(row!.publicKey));

    const again = await mark(id, 'Otra vez', finance);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('La factura ya está pagada');
    // A gateway confirmation arriving late credits nothing either.
    await t.app.inject({ method: 'POST', url: `/api/payments/sandbox/${id}/pay` });
    expect(await customerPeers(c.access)).toHaveLength(1);
    const entries = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'invoice.mark_paid'), eq(auditLog.targetId, id)));
    expect(entries).toHaveLength(1);
    expect(entries[0]!.data).toMatchObject({
      changes: { status: { before: 'pending', after: 'paid' } },
      reason: 'Transferencia BANMET 12345',
    });
  });

  it('credits an expired add_plan invoice (a late bank transfer is real money), extending the peer', async () => {
    const c = await buyer();
    const first = await buy(c.access, { operation: 'new_peer', peer: 'Móvil' });
    expect((await mark(first, 'Pago en efectivo en oficina')).statusCode).toBe(200);
    const [before] = await customerPeers(c.access);
    const renewal = await buy(c.access, { operation: 'add_plan', peer: before!.id });
    await t.ctx.db.update(invoices).set({ status: 'expired' }).where(eq(invoices.id, renewal));
    const res = await mark(renewal, 'Transferencia recibida tras vencer la factura');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'paid', peer: { id: before!.id } });
    const [after] = await customerPeers(c.access);
    const days = (Date.parse(after!.expiration_date) - Date.parse(before!.expiration_date)) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'invoice.mark_paid'), eq(auditLog.targetId, renewal)));
    expect(entry!.data).toMatchObject({ changes: { status: { before: 'expired', after: 'paid' } } });
  });

  it('requires a reason and the invoices.write permission, changing nothing otherwise', async () => {
    const c = await buyer();
    const id = await buy(c.access, { operation: 'new_peer', peer: 'Sin motivo' });
    const none = await mark(id, '');
    expect(none.statusCode).toBe(400);
    expect(none.json().fields).toEqual({ reason: 'Indique el motivo (al menos 3 caracteres)' });
    const support = await managerToken(t, 'support');
    expect((await get(`/api/admin/invoices/${id}`, support)).statusCode).toBe(200);
    const denied = await mark(id, 'Soporte no puede', support);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toBe('Su rol (Soporte) no tiene permiso para realizar esta acción');
    const ops = await managerToken(t, 'operations');
    expect((await get('/api/admin/invoices', ops)).statusCode).toBe(403);
    const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, id));
    expect(row).toMatchObject({ status: 'pending', markedBy: null, creditedAt: null });
    expect(await customerPeers(c.access)).toEqual([]);
  });
});

describe('admin_invoice pushes', () => {
  it('tell managers who read invoices that one was created, paid or canceled; not the others', async () => {
    const finance = await PushClient.connect(base, await managerToken(t, 'finance'));
    const ops = await PushClient.connect(base, await managerToken(t, 'operations'));
    sockets.push(finance, ops);
    const c = await buyer();
    const id = await buy(c.access, { operation: 'new_peer', peer: 'Empujado' });
    await finance.waitFor('admin_invoice', (m) => m.invoice_id === id && m.status === 'pending');
    await t.app.inject({ method: 'POST', url: `/api/payments/sandbox/${id}/pay` });
    await finance.waitFor('admin_invoice', (m) => m.invoice_id === id && m.status === 'paid');
    const other = await buy(c.access, { operation: 'new_peer', peer: 'Cancelado' });
    await t.app.inject({ method: 'POST', url: `/api/payments/sandbox/${other}/cancel` });
    await finance.waitFor('admin_invoice', (m) => m.invoice_id === other && m.status === 'canceled');
    expect(ops.messages.filter((m) => m.type === 'admin_invoice')).toEqual([]);
  });
});
