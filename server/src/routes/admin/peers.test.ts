import { readFileSync } from 'node:fs';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { catalogMsg, msgManagers, REAUTH_REQUIRED } from '@vpn/contracts';
import { auditLog, invoices, peers, peerStats, plans, servers } from '../../db/schema.ts';
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
import { customerPayments } from '../../../test/payments.ts';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';

// Each test signs in several customers (memory-hard password hashing): slow on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

let t: TestApp;
let base: string;
let owner: string;
let planId: number;
let s1: { id: number; token: string };
let s2: { id: number; token: string };
let a1: ProtocolAgent;
let a2: ProtocolAgent;
const sockets: PushClient[] = [];

const api = (
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  token = owner,
  payload?: object,
  headers: Record<string, string> = bearer(token),
) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

async function newServer(name: string) {
  const res = await api(
    'POST',
    '/api/admin/servers',
    owner,
    { name, endpoint: `${name.toLowerCase()}.example:51820`, ubication: 'X' },
    await confirmed(t, owner),
  );
  return { id: res.json().server.id as number, token: res.json().agent_token as string };
}

async function customerWithPeer(peerName: string, serverId = s1.id, username?: string) {
  const c = await createCustomer(t, username);
  const { access } = await login(t, c.username, c.password);
  const push = await PushClient.connect(base, access);
  sockets.push(push);
  const res = await api('POST', '/api/admin/peers', owner, {
    username: c.username,
    plan: planId,
    name: peerName,
    server: serverId,
  });
  expect(res.statusCode).toBe(201);
  const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, res.json().id));
  return { customer: c, access, push, peer: row! };
}

const ids = (res: { json(): { results: { id: number }[] } }) => res.json().results.map((p) => p.id);

beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { PAYMENTS_SANDBOX: 'true' } });
  base = await listen(t);
  owner = await managerToken(t);
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days' })
    .returning();
  planId = plan!.id;
  s1 = await newServer('Uno');
  s2 = await newServer('Dos');
  a1 = await ProtocolAgent.connect(base, s1.token);
  a2 = await ProtocolAgent.connect(base, s2.token);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await a1.close();
  await a2.close();
  await t.close();
});

describe('GET /api/admin/peers', () => {
  it('finds a peer by its name, its owner, its public key and its address', async () => {
    const { peer, customer } = await customerWithPeer('Router Abuela', s1.id, 'busqueda_ana');
    const other = await customerWithPeer('Otro');
    const host = peer.address.replace(/\/\d+$/, '');
    for (const q of ['router abu', 'BUSQUEDA_A', peer.publicKey.slice(3, 20), host]) {
      const res = await api('GET', `/api/admin/peers?q=${encodeURIComponent(q)}`);
      expect(res.statusCode).toBe(200);
      expect(ids(res), q).toContain(peer.id);
      expect(ids(res), q).not.toContain(other.peer.id);
    }
    const [found] = (await api('GET', `/api/admin/peers?q=${encodeURIComponent(host)}`)).json().results;
    expect(found).toMatchObject({
      name: 'Router Abuela',
      owner: { id: customer.id, username: 'busqueda_ana', disabled: false },
      server: { id: s1.id, name: 'Uno' },
      address: host,
      active: true,
      enabled: true,
    });
    // Wildcards are text, not patterns.
    expect((await api('GET', '/api/admin/peers?q=%25')).json().count).toBe(0);
  });

  it('filters by server and by state, and pages', async () => {
    const onTwo = await customerWithPeer('En Dos', s2.id);
    const off = await customerWithPeer('Apagado');
    const soon = await customerWithPeer('Vence pronto');
    await api('PATCH', `/api/admin/peers/${off.peer.id}`, owner, { active: false });
    await t.ctx.db
      .update(peers)
      .set({ expiresAt: sql`now() + interval '3 days'` })
      .where(eq(peers.id, soon.peer.id));

    const server2 = ids(await api('GET', `/api/admin/peers?server=${s2.id}&page_size=100`));
    expect(server2).toContain(onTwo.peer.id);
    expect(server2).not.toContain(off.peer.id);
    const disabled = ids(await api('GET', '/api/admin/peers?state=disabled&page_size=100'));
    expect(disabled).toContain(off.peer.id);
    expect(disabled).not.toContain(onTwo.peer.id);
    const active = ids(await api('GET', '/api/admin/peers?state=active&page_size=100'));
    expect(active).toContain(onTwo.peer.id);
    expect(active).not.toContain(off.peer.id);
    const expiring = ids(await api('GET', '/api/admin/peers?state=expiring&page_size=100'));
    expect(expiring).toEqual([soon.peer.id]);

    const all = (await api('GET', '/api/admin/peers?page_size=2')).json();
    expect(all.results).toHaveLength(2);
    const last = (await api('GET', `/api/admin/peers?page_size=2&page=${Math.ceil(all.count / 2)}`)).json();
    expect(last.results.length).toBe(all.count % 2 || 2);

    // A disabled customer's peers are off their servers: listed as disabled, not active.
    const blocked = await customerWithPeer('De cliente bloqueado');
    const res = await api('PATCH', `/api/admin/customers/${blocked.customer.id}`, owner, {
      disabled: true,
      reason: 'Contracargo',
    });
    expect(res.statusCode, res.body).toBe(200);
    const found = (await api('GET', `/api/admin/peers/${blocked.peer.id}`)).json();
    expect(found).toMatchObject({ active: false, enabled: true, owner: { disabled: true } });
    expect(ids(await api('GET', '/api/admin/peers?state=active&page_size=100'))).not.toContain(
      blocked.peer.id,
    );
    expect(ids(await api('GET', '/api/admin/peers?state=disabled&page_size=100'))).toContain(blocked.peer.id);

    const bad = await api('GET', '/api/admin/peers?state=caducado');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields.state).toBe(catalogMsg.peerStateInvalid);
  });
});

describe('PATCH /api/admin/peers/{id}', () => {
  it('grants a plan like a paid add_plan: expiry extended, switched on, manual history, owner told live', async () => {
    const { peer, push } = await customerWithPeer('Regalo');
    // Off because its data ran out (a manager's switch-off is another matter: see below).
    await t.ctx.db.update(peers).set({ dataAllowance: 1000, dataUsed: 1000 }).where(eq(peers.id, peer.id));
    expect(await t.ctx.peers.disableExhausted()).toBeGreaterThanOrEqual(1);
    await a1.until(() => !a1.peers.has(peer.publicKey));
    const expiry = peer.expiresAt!.getTime();

    const res = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, {
      operation: 'grant',
      plan: planId,
      reason: 'Compensación por la caída del martes',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.active).toBe(true);
    // max(now, expiry) + 30 days: the expiry was in the future, so it moves by exactly 30 days.
    expect(new Date(body.expires_at).getTime() - expiry).toBe(30 * 86_400_000);
    expect(body.plans_history[0]).toMatchObject({
      plan_name: 'Mensual',
      plan_price: '3.00',
      validity_days: 30,
      manual: true,
      reason: 'Compensación por la caída del martes',
      granted_by: expect.stringMatching(/^m/),
      invoice_id: null,
    });
    expect(body.plans_history[1].manual).toBe(false);
    await a1.until(() => a1.peers.has(peer.publicKey));
    await push.waitFor('updated_peer', (m) => {
      const p = m.peer as { id: number; active: boolean; plans_history: unknown[] };
      return p.id === peer.id && p.active && p.plans_history.length === 2;
    });
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'peer.grant'), eq(auditLog.targetId, String(peer.id))));
    const data = entry!.data as { reason: string; changes: Record<string, { before: unknown }> };
    expect(data.reason).toBe('Compensación por la caída del martes');
    expect(data.changes.enabled).toEqual({ before: false, after: true });
  });

  it('refuses a grant without a plan or a reason, changing nothing', async () => {
    const { peer } = await customerWithPeer('Sin motivo');
    for (const [payload, field, message] of [
      [{ operation: 'grant', plan: planId }, 'reason', catalogMsg.peerGrantReason],
      [
        { operation: 'grant', plan: planId, reason: 'x' },
        'reason',
        'Indique el motivo (al menos 3 caracteres)',
      ],
      [{ operation: 'grant', reason: 'Porque sí' }, 'plan', catalogMsg.peerGrantPlan],
      [
        { operation: 'grant', plan: planId, reason: 'Porque sí', active: true },
        'operation',
        catalogMsg.peerPatchMixed,
      ],
      [{ operation: 'change_server' }, 'server', catalogMsg.peerTargetServer],
    ] as const) {
      const res = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().fields[field]).toBe(message);
    }
    const missing = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, {
      operation: 'grant',
      plan: 999999,
      reason: 'Porque sí',
    });
    expect(missing.statusCode).toBe(404);
    const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id));
    expect(row!.expiresAt).toEqual(peer.expiresAt);
  });

  it('moves a peer to another server through the agents: busy until both ack, then the owner is told', async () => {
    const { peer, push } = await customerWithPeer('Viajero');
    await a1.until(() => a1.peers.has(peer.publicKey));
    // Issue 31: the session alone (a stolen token) cannot send a customer's tunnel to another machine.
    const move = { operation: 'change_server', server: s2.id };
    const refused = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, move);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ message: msgManagers.reauthRequired, code: REAUTH_REQUIRED });
    const [still] = await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id));
    expect(still!.serverId).toBe(s1.id);
    expect(still!.pendingOperation).toBeNull();
    const res = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, move, await confirmed(t, owner));
    expect(res.statusCode).toBe(200);
    expect(res.json().server).toEqual({ id: s2.id, name: 'Dos' });
    await a2.until(() => a2.peers.has(peer.publicKey));
    await a1.until(() => !a1.peers.has(peer.publicKey));
    const success = await push.waitFor('success', (m) => m.peer_id === peer.id);
    expect(success.message).toBe('Peer Viajero movido al servidor Dos');
    const detail = (await api('GET', `/api/admin/peers/${peer.id}`)).json();
    expect(detail.processing).toBeNull();
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'peer.change_server'), eq(auditLog.targetId, String(peer.id))));
    expect((entry!.data as { changes: object }).changes).toEqual({ server: { before: 'Uno', after: 'Dos' } });

    const same = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, move, await confirmed(t, owner));
    expect(same.statusCode).toBe(400);
  });

  it('switches a peer off with a reason, audited with before and after', async () => {
    const { peer } = await customerWithPeer('Moroso');
    const res = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, {
      active: false,
      reason: 'Fraude con la tarjeta',
    });
    expect(res.json()).toMatchObject({ active: false, enabled: false });
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'peer.disable'), eq(auditLog.targetId, String(peer.id))));
    expect(entry!.data).toMatchObject({
      reason: 'Fraude con la tarjeta',
      changes: { enabled: { before: true, after: false } },
    });
  });

  it("keeps a manager's switch-off through a plan bought meanwhile, tells the owner why, and lifts it only when a manager switches the peer on", async () => {
    const { customer, access, peer, push } = await customerWithPeer('Apagado');
    await a1.until(() => a1.peers.has(peer.publicKey));
    const pay = customerPayments(() => t);
    // A peer the customer pays for (the console's new peers are manual-payment ones).
    await t.ctx.db.update(peers).set({ manualPayment: false }).where(eq(peers.id, peer.id));
    // An add_plan invoice opened before the switch-off (its payment arrives afterwards).
    const opened = await pay.put(access, { operation: 'add_plan', peer: peer.id, plan: planId });
    expect(opened.statusCode).toBe(200);

    const off = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, { active: false, reason: 'Abuso' });
    expect(off.json()).toMatchObject({ active: false, enabled: false });
    await a1.until(() => !a1.peers.has(peer.publicKey));
    const told = await push.waitFor('info', (m) => m.peer_id === peer.id);
    expect(told.message).toBe(
      'Un administrador deshabilitó el peer Apagado. Contacta con soporte para reactivarlo.',
    );
    const mine = async () =>
      (
        (await pay.myPeers(access)) as {
          id: number;
          active: boolean;
          manager_disabled: boolean;
          expiration_date: string;
        }[]
      ).find((p) => p.id === peer.id)!;
    expect(await mine()).toMatchObject({ active: false, manager_disabled: true });

    // A new purchase for it is refused, with the reason, and opens no invoice.
    const before = await t.ctx.db.select().from(invoices).where(eq(invoices.customerId, customer.id));
    const refused = await pay.put(access, { operation: 'add_plan', peer: peer.id, plan: planId });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe(
      'Un administrador deshabilitó este peer: contacta con soporte antes de renovarlo',
    );
    const after = await t.ctx.db.select().from(invoices).where(eq(invoices.customerId, customer.id));
    expect(after).toHaveLength(before.length);

    // The invoice opened earlier is paid: the period is added, the peer stays off.
    const paid = await t.app.inject({
      method: 'POST',
      url: `/api/payments/sandbox/${opened.json().id}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(paid.statusCode).toBe(303);
    const extended = await mine();
    expect(new Date(extended.expiration_date).getTime() - peer.expiresAt!.getTime()).toBe(30 * 86_400_000);
    expect(extended).toMatchObject({ active: false, manager_disabled: true });
    const [server] = await t.ctx.db.select().from(servers).where(eq(servers.id, s1.id));
    await a1.until(() => a1.revision >= server!.revision);
    expect(a1.peers.has(peer.publicKey)).toBe(false);

    // Only a manager lifts it.
    const on = await api('PATCH', `/api/admin/peers/${peer.id}`, owner, { active: true });
    expect(on.json()).toMatchObject({ active: true, enabled: true });
    await a1.until(() => a1.peers.has(peer.publicKey));
    expect(await mine()).toMatchObject({ active: true, manager_disabled: false });
  });

  it('migration 0022 keeps the switch-offs managers made before it, and only those', async () => {
    const switchedOff = await customerWithPeer('Antes apagado');
    const relit = await customerWithPeer('Antes reencendido');
    const expired = await customerWithPeer('Antes vencido');
    await api('PATCH', `/api/admin/peers/${switchedOff.peer.id}`, owner, { active: false });
    await api('PATCH', `/api/admin/peers/${relit.peer.id}`, owner, { active: false });
    await api('PATCH', `/api/admin/peers/${relit.peer.id}`, owner, { active: true });
    await t.ctx.db
      .update(peers)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(peers.id, expired.peer.id));
    await t.ctx.peers.disableExpired();
    const three = [switchedOff.peer.id, relit.peer.id, expired.peer.id];
    // The rows as they were before the migration: no column to remember a switch-off.
    await t.ctx.db.update(peers).set({ managerDisabledAt: null }).where(inArray(peers.id, three));
    const migration = readFileSync(
      new URL('../../../drizzle/0022_manager_switch_off.sql', import.meta.url),
      'utf8',
    );
    const update = migration.split('--> statement-breakpoint').find((st) => st.includes('UPDATE "peers"'))!;
    await t.ctx.db.execute(sql.raw(update));
    const rows = await t.ctx.db
      .select({ id: peers.id, active: peers.active, marked: peers.managerDisabledAt })
      .from(peers)
      .where(inArray(peers.id, three));
    const marked = new Map(rows.map((r) => [r.id, r.marked !== null]));
    expect([...three].map((id) => marked.get(id))).toEqual([true, false, false]);
  });

  it('lets support read peers but not change them; finance cannot even read them', async () => {
    const { peer } = await customerWithPeer('Permisos');
    const support = await managerToken(t, 'support');
    expect((await api('GET', `/api/admin/peers/${peer.id}`, support)).statusCode).toBe(200);
    const res = await api('PATCH', `/api/admin/peers/${peer.id}`, support, { active: false });
    expect(res.statusCode).toBe(403);
    const finance = await managerToken(t, 'finance');
    expect((await api('GET', '/api/admin/peers', finance)).statusCode).toBe(403);
    const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id));
    expect(row!.active).toBe(true);
  });

  it("shows support only the client's network (/24, /48), operations the address and port", async () => {
    const { peer } = await customerWithPeer('Red');
    const support = await managerToken(t, 'support');
    const operations = await managerToken(t, 'operations');
    const shown = async (as: string) =>
      (await api('GET', `/api/admin/peers/${peer.id}`, as)).json().usage.endpoint as string | null;
    for (const [endpoint, network] of [
      ['203.0.113.57:40512', '203.0.113.0/24'],
      ['[2001:db8:abcd:12::7]:51820', '2001:db8:abcd::/48'],
    ] as const) {
      await t.ctx.db
        .insert(peerStats)
        .values({ peerId: peer.id, serverId: peer.serverId!, publicKey: peer.publicKey, endpoint })
        .onConflictDoUpdate({ target: peerStats.peerId, set: { endpoint } });
      expect(await shown(support)).toBe(network);
      expect(await shown(operations)).toBe(endpoint);
    }
  });
});
