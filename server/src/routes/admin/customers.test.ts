import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, customers, invoices, rooms, peers, plans } from '../../db/schema.ts';
import { encrypt } from '../../lib/crypto.ts';
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
import WebSocket from 'ws';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';
import { TestSmtp, tokenFrom } from '../../../test/smtp.ts';
import { openMirrorToken } from '../../services/peers/mirrorTokens.ts';

let t: TestApp;
let smtp: TestSmtp;
let base: string;
let owner: string;
let planId: number;
let serverId: number;
let agent: ProtocolAgent;

beforeAll(async () => {
  smtp = await TestSmtp.start();
  t = await createTestApp({
    scheduler: false,
    env: { SMTP_URL: smtp.url, PUBLIC_URL: 'https://panel.example' },
  });
  base = await listen(t);
  owner = await managerToken(t);
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days' })
    .returning();
  planId = plan!.id;
  invalidatePlans(t.ctx.db);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name: 'Uno', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana', allow_partys: true },
  });
  serverId = res.json().server.id;
  agent = await ProtocolAgent.connect(base, res.json().agent_token);
});
afterAll(async () => {
  await agent.close();
  await t.close();
  await smtp.close();
});

const get = (url: string, token = owner) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
const patchCustomer = (id: number, payload: object, token = owner) =>
  t.app.inject({ method: 'PATCH', url: `/api/admin/customers/${id}`, headers: bearer(token), payload });

async function peerFor(username: string, name: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/peers',
    headers: bearer(owner),
    payload: { username, plan: planId, name, server: serverId },
  });
  expect(res.statusCode).toBe(201);
  const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, res.json().id));
  return row!;
}

describe('GET /api/admin/customers', () => {
  it('finds customers by part of the username, e-mail or alias, filters by state, and pages with a count', async () => {
    const ana = await createCustomer(t, 'ana_busqueda');
    await t.ctx.db
      .update(customers)
      .set({ email: 'Pepa.Correo@nauta.cu', alias: 'Zorro Plateado' })
      .where(eq(customers.id, ana.id));
    const off = await createCustomer(t, 'busqueda_baja');
    await t.ctx.db.update(customers).set({ active: false }).where(eq(customers.id, off.id));

    const names = async (query: string) =>
      (await get(`/api/admin/customers?${query}`))
        .json<{ results: { username: string }[] }>()
        .results.map((r) => r.username);
    expect(await names('q=BUSQUEDA')).toEqual(['busqueda_baja', 'ana_busqueda']);
    expect(await names('q=pepa.correo')).toEqual(['ana_busqueda']);
    expect(await names('q=zorro')).toEqual(['ana_busqueda']);
    expect(await names('q=busqueda&state=disabled')).toEqual(['busqueda_baja']);
    expect(await names('q=busqueda&state=active')).toEqual(['ana_busqueda']);
    // LIKE wildcards in the search are literal text.
    expect(await names('q=%25')).toEqual([]);

    const page = await get('/api/admin/customers?q=busqueda&page=2&page_size=1');
    expect(page.json()).toMatchObject({ count: 2, results: [{ username: 'ana_busqueda', disabled: false }] });
    expect(page.json().results[0]).toMatchObject({ email: 'Pepa.Correo@nauta.cu', alias: 'Zorro Plateado' });

    const bad = await get('/api/admin/customers?page_size=500');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ page_size: 'El tamaño de página debe estar entre 1 y 100' });
    const badState = await get('/api/admin/customers?state=borrado');
    expect(badState.statusCode).toBe(400);
    expect(badState.json().fields).toEqual({ state: 'El estado debe ser active o disabled' });
  });
});

describe('GET /api/admin/customers/{id}', () => {
  it('shows the peers, invoices, rooms and open sessions, never a token', async () => {
    const c = await createCustomer(t, 'detalle');
    const tokens = await t.app.inject({
      method: 'POST',
      url: '/api/client/login',
      headers: { 'user-agent': 'Navegador de prueba/1.0' },
      payload: { username: c.username, password: c.password, remember: true },
    });
    const { refresh, access } = tokens.json<{ refresh: string; access: string }>();
    // A rotation keeps one session (the family), now with a newer token.
    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/refresh-token',
      headers: { 'user-agent': 'Navegador de prueba/1.0' },
      payload: { refresh },
    });
    expect(rotated.statusCode).toBe(200);
    const peer = await peerFor(c.username, 'Portátil');
    const [room] = await t.ctx.db
      .insert(rooms)
      .values({ name: 'Sala Detalle', ownerId: c.id, passwordEnc: encrypt(t.ctx.keys.encryption, 'x') })
      .returning();
    await t.ctx.db.update(peers).set({ roomId: room!.id }).where(eq(peers.id, peer.id));
    await t.ctx.db.insert(invoices).values({
      customerId: c.id,
      operation: 'add_plan',
      peerId: peer.id,
      planId,
      planName: 'Mensual',
      amount: '3.00',
      gateway: 'sandbox',
    });

    const res = await get(`/api/admin/customers/${c.id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      username: 'detalle',
      disabled: false,
      peers: 1,
      live_peers: 1,
      peer_list: [{ name: 'Portátil', server: { name: 'Uno' }, live: true, party: { name: 'Sala Detalle' } }],
      invoice_count: 1,
      invoices: [{ status: 'pending', plan_name: 'Mensual', amount: '3.00', peer: { name: 'Portátil' } }],
      rooms: [{ name: 'Sala Detalle', role: 'owner', members: 1 }],
    });
    expect(body.sessions).toHaveLength(1);
    expect(body.sessions[0]).toMatchObject({ remember: true, user_agent: 'Navegador de prueba/1.0' });
    expect(res.body).not.toContain(refresh);
    expect(res.body).not.toContain(rotated.json().refresh);
    expect(res.body).not.toContain(access);

    const missing = await get('/api/admin/customers/999999');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Cliente no encontrado');
  });
});

describe('PATCH /api/admin/customers/{id} {disabled}', () => {
  it('refuses login, voids every session at once, and takes the peers off the server until re-enabled', async () => {
    const c = await createCustomer(t, 'aislado');
    const session = await login(t, c.username, c.password, true);
    const live = await peerFor(c.username, 'Activo');
    const off = await peerFor(c.username, 'Apagado');
    const expired = await peerFor(c.username, 'Caducado');
    const adminPeer = (id: number, payload: object) =>
      t.app.inject({ method: 'PATCH', url: `/api/admin/peers/${id}`, headers: bearer(owner), payload });
    expect((await adminPeer(off.id, { active: false })).statusCode).toBe(200);
    const past = new Date(Date.now() - 60_000).toISOString();
    expect((await adminPeer(expired.id, { expires_at: past })).statusCode).toBe(200);
    await agent.until(
      () =>
        agent.peers.has(live.publicKey) &&
        !agent.peers.has(off.publicKey) &&
        !agent.peers.has(expired.publicKey),
    );

    // The customer's open push socket, and a console following the audit log.
    const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/ws?token=${session.access}`);
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise((resolve) => socket.once('message', resolve));
    const auditTail = await PushClient.connect(base, owner);

    const res = await patchCustomer(c.id, { disabled: true, reason: 'Fraude con tarjetas' });
    expect(res.statusCode).toBe(200);
    expect(await closed).toBe(4401);
    expect(res.json()).toMatchObject({ disabled: true, live_peers: 0, sessions: [] });

    // The agent receives the removal.
    await agent.until(() => !agent.peers.has(live.publicKey));
    const delta = agent.received.filter((m) => m.type === 'delta').at(-1);
    expect(delta).toMatchObject({ remove: [live.publicKey] });

    const relogin = await t.app.inject({
      method: 'POST',
      url: '/api/client/login',
      payload: { username: c.username, password: c.password },
    });
    expect(relogin.statusCode).toBe(403);
    expect(relogin.json().message).toBe('Tu cuenta está deshabilitada. Contacta con soporte.');
    const withAccess = await get('/api/client/accounts/peers', session.access);
    expect(withAccess.statusCode).toBe(401);
    const withRefresh = await t.app.inject({
      method: 'POST',
      url: '/api/refresh-token',
      payload: { refresh: session.refresh },
    });
    expect(withRefresh.statusCode).toBe(401);
    // The mirror link of a disabled customer's peer serves nothing.
    const mirror = await t.app.inject({
      method: 'GET',
      url: `/api/mirror/${openMirrorToken(t.ctx.keys.encryption, live.mirrorTokenEnc)}`,
    });
    expect(mirror.statusCode).toBe(404);

    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetType, 'customer'), eq(auditLog.targetId, String(c.id))))
      .orderBy(desc(auditLog.id));
    expect(entry).toMatchObject({ action: 'customer.disable', actorName: expect.any(String) });
    await auditTail.waitFor('admin_audit', (m) => m.entry_id === entry!.id);
    auditTail.close();
    expect(entry!.data).toMatchObject({
      changes: { disabled: { before: false, after: true } },
      reason: 'Fraude con tarjetas',
    });

    const enabled = await patchCustomer(c.id, { disabled: false });
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toMatchObject({ disabled: false, live_peers: 1 });
    await agent.until(() => agent.peers.has(live.publicKey));
    // Exactly the active, unexpired peer comes back.
    expect(agent.peers.has(off.publicKey)).toBe(false);
    expect(agent.peers.has(expired.publicKey)).toBe(false);
    const back = await t.app.inject({
      method: 'POST',
      url: '/api/client/login',
      payload: { username: c.username, password: c.password },
    });
    expect(back.statusCode).toBe(200);
    // The old session stays closed: re-enabling does not revive it.
    expect((await get('/api/client/accounts/peers', session.access)).statusCode).toBe(401);
  });

  it('keeps a disabled customer out of a reconnecting agent’s snapshot', async () => {
    const c = await createCustomer(t, 'fuera_snapshot');
    const p = await peerFor(c.username, 'Uno');
    await agent.until(() => agent.peers.has(p.publicKey));
    await patchCustomer(c.id, { disabled: true, reason: 'Impago reiterado' });
    await agent.until(() => !agent.peers.has(p.publicKey));
    await agent.close();
    const token = await t.app.inject({
      method: 'POST',
      url: `/api/admin/servers/${serverId}/token`,
      headers: await confirmed(t, owner),
    });
    agent = await ProtocolAgent.connect(base, token.json().agent_token);
    const snapshot = agent.received.find((m) => m.type === 'snapshot');
    expect(snapshot && snapshot.type === 'snapshot' && snapshot.peers.map((x) => x.public_key)).not.toContain(
      p.publicKey,
    );
  });

  it('asks for a reason to disable, answers 409 to a second disable, and changes nothing then', async () => {
    const c = await createCustomer(t, 'motivo');
    const none = await patchCustomer(c.id, { disabled: true });
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toBe('Indique el motivo para deshabilitar la cuenta');
    const short = await patchCustomer(c.id, { disabled: true, reason: 'x' });
    expect(short.statusCode).toBe(400);
    expect(short.json().fields).toEqual({ reason: 'Indique el motivo (al menos 3 caracteres)' });
    const [row] = await t.ctx.db.select().from(customers).where(eq(customers.id, c.id));
    expect(row!.active).toBe(true);

    expect((await patchCustomer(c.id, { disabled: true, reason: 'Pedido del cliente' })).statusCode).toBe(
      200,
    );
    const again = await patchCustomer(c.id, { disabled: true, reason: 'Otra vez' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('El cliente ya está deshabilitado');
    const entries = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetType, 'customer'), eq(auditLog.targetId, String(c.id))));
    expect(entries).toHaveLength(1);
  });

  it('lets support and finance read customers but not disable them (403 naming the role)', async () => {
    const c = await createCustomer(t, 'permisos');
    for (const role of ['support', 'finance'] as const) {
      const token = await managerToken(t, role);
      expect((await get(`/api/admin/customers?q=permisos`, token)).statusCode).toBe(200);
      const res = await patchCustomer(c.id, { disabled: true, reason: 'No debería' }, token);
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toMatch(/^Su rol \((Soporte|Finanzas)\) no tiene permiso/);
    }
    const ops = await managerToken(t, 'operations');
    expect((await get('/api/admin/customers', ops)).statusCode).toBe(403);
  });
});

describe('POST /api/admin/customers/{id}/password-reset', () => {
  const reset = (id: number, token = owner) =>
    t.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${id}/password-reset`,
      headers: bearer(token),
    });

  it('mails a working one-time link to the verified address, by a support manager, and records it', async () => {
    const c = await createCustomer(t, 'olvidadiza');
    await t.ctx.db
      .update(customers)
      .set({ email: 'olvido@nauta.cu', emailVerified: true })
      .where(eq(customers.id, c.id));
    const support = await managerToken(t, 'support');
    const res = await reset(c.id, support);
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('Enlace de restablecimiento enviado a olvido@nauta.cu');
    const mail = await smtp.waitFor('olvido@nauta.cu');
    expect(mail.text).toContain('olvidadiza');
    const token = tokenFrom(mail, 'https://panel.example/reset-password');
    const done = await t.app.inject({
      method: 'POST',
      url: '/api/client/reset-password',
      payload: { token, password: 'nueva-clave-123' },
    });
    expect(done.statusCode).toBe(200);
    expect((await login(t, c.username, 'nueva-clave-123')).access).toBeTruthy();
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'customer.password_reset'), eq(auditLog.targetId, String(c.id))));
    expect(entry).toBeTruthy();
    expect(JSON.stringify(entry!.data)).not.toContain(token);
  });

  it('answers 400 in Spanish without a verified e-mail, and when mail is off', async () => {
    const c = await createCustomer(t, 'sin_correo');
    const res = await reset(c.id);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'El cliente no tiene un email verificado: no se le puede enviar el enlace',
    );
    await t.ctx.db
      .update(customers)
      .set({ email: 'sin@nauta.cu', emailVerified: false })
      .where(eq(customers.id, c.id));
    expect((await reset(c.id)).statusCode).toBe(400);

    const mailOff = await createTestApp({ database: t.database, scheduler: false });
    try {
      await t.ctx.db.update(customers).set({ emailVerified: true }).where(eq(customers.id, c.id));
      const off = await mailOff.app.inject({
        method: 'POST',
        url: `/api/admin/customers/${c.id}/password-reset`,
        headers: bearer(owner),
      });
      expect(off.statusCode).toBe(400);
      expect(off.json().message).toBe(
        'El correo está desactivado en este servidor (falta SMTP_URL): no se puede enviar el enlace',
      );
    } finally {
      await mailOff.close();
    }
    expect(smtp.mails.some((m) => m.to.includes('sin@nauta.cu'))).toBe(false);
  });

  it('is refused to operations (403)', async () => {
    const c = await createCustomer(t);
    const ops = await managerToken(t, 'operations');
    expect((await reset(c.id, ops)).statusCode).toBe(403);
  });
});
