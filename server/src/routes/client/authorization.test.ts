/**
 * The customer side of the authorization matrix (issue 10, point 4), generated from the route
 * table (the OpenAPI document): every /api/client route × no token, a manager's token, an expired
 * token, a disabled account's token, and another customer's token on the owner's resources; plus
 * the websocket. The manager side (every admin route × every role) is routes/admin/matrix.test.ts.
 */
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, plans } from '../../db/schema.ts';
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
import { agentHeard } from '../../../test/payments.ts';
import { PushClient } from '../../../test/protocolAgent.ts';

/** Customer routes open to anonymous callers, on purpose. Any other route must refuse them. */
const PUBLIC = new Set([
  'GET /api/client',
  'GET /api/client/status',
  'GET /api/client/plans',
  'GET /api/client/captcha',
  'POST /api/client/login',
  'PUT /api/client/register',
  'POST /api/client/password-recovery',
  'POST /api/client/reset-password',
  'POST /api/client/verify-email',
]);

let t: TestApp;
let base: string;
const tok: Record<'owner' | 'other' | 'manager' | 'expired' | 'disabled', string> = {
  owner: '',
  other: '',
  manager: '',
  expired: '',
  disabled: '',
};
/** The owner's resources, by path parameter. */
const ids = { peer: 0, room: 0, invoice: '' };
let routes: { method: string; path: string }[];

beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { PAYMENTS_SANDBOX: 'true' } });
  base = await listen(t);
  await setSettings(t, { allow_partys: true });
  tok.manager = await managerToken(t);
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'Uno', price: '3.00', validity: '30 days' })
    .returning();
  const server = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, tok.manager),
    payload: { name: 'Uno', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana', allow_partys: true },
  });
  const owner = await createCustomer(t, 'duena', 'clave-de-la-duena');
  await t.ctx.db.update(customers).set({ alias: 'Duena' }).where(eq(customers.id, owner.id));
  tok.owner = (await login(t, owner.username, owner.password)).access;
  const peer = await t.app.inject({
    method: 'POST',
    url: '/api/admin/peers',
    headers: bearer(tok.manager),
    payload: { username: owner.username, plan: plan!.id, name: 'movil', server: server.json().id },
  });
  ids.peer = peer.json().id;
  const second = await t.app.inject({
    method: 'POST',
    url: '/api/admin/peers',
    headers: bearer(tok.manager),
    payload: { username: owner.username, plan: plan!.id, name: 'portatil', server: server.json().id },
  });
  const room = await t.app.inject({
    method: 'POST',
    url: '/api/client/network/partys',
    headers: bearer(tok.owner),
    payload: { name: 'Sala privada', peer: second.json().id },
  });
  expect(room.statusCode, room.body).toBeLessThan(300);
  ids.room = room.json().id;
  await agentHeard(t);
  const invoice = await t.app.inject({
    method: 'PUT',
    url: '/api/client/invoices',
    headers: bearer(tok.owner),
    payload: { operation: 'new_peer', peer: 'tableta', plan: plan!.id },
  });
  expect(invoice.statusCode, invoice.body).toBeLessThan(300);
  ids.invoice = new URL(invoice.json().payment_url, base).pathname.split('/').pop()!;

  const other = await createCustomer(t, 'ajena', 'clave-de-la-ajena');
  tok.other = (await login(t, other.username, other.password)).access;
  const gone = await createCustomer(t, 'dada-de-baja', 'clave-de-baja');
  tok.disabled = (await login(t, gone.username, gone.password)).access;
  await t.ctx.db.update(customers).set({ active: false }).where(eq(customers.id, gone.id));
  // A genuine token of the owner, signed with the server's key, that expired a minute ago.
  const now = Math.floor(Date.now() / 1000);
  tok.expired = await new SignJWT({ realm: 'customer' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(owner.id))
    .setIssuer('vpn-platform')
    .setAudience('customer')
    .setIssuedAt(now - 1000)
    .setExpirationTime(now - 60)
    .sign(t.ctx.keys.jwt);

  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths)
    .filter(([path]) => path === '/api/client' || path.startsWith('/api/client/'))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => ({ method: m.toUpperCase(), path })));
}, 120_000);
afterAll(() => t?.close());

/** The owner's resource for each path parameter; a body that passes validation where one is needed. */
function concrete(path: string): string {
  return path
    .replace('{peerId}', String(ids.peer))
    .replace(/partys\/\{id\}/, `partys/${ids.room}`)
    .replace(/invoices\/\{id\}/, `invoices/${ids.invoice}`)
    .replace(/peers\/\{id\}/, `peers/${ids.peer}`);
}
function bodyFor(method: string, path: string): object | undefined {
  if (method === 'GET' || method === 'DELETE') return undefined;
  if (path.endsWith('/accounts/peers/{id}')) return { operation: 'regenerate_token' };
  if (path.endsWith('/partys/{id}')) return { operation: 'regenerate_password' };
  if (path.endsWith('/network/partys') && method === 'PATCH')
    return { operation: 'join', name: 'Sala privada', password: 'x', peer: ids.peer };
  if (path.endsWith('/network/partys')) return { name: 'Otra', peer: ids.peer };
  if (path.endsWith('/invoices')) return { operation: 'add_plan', peer: ids.peer, plan: 1 };
  if (path.endsWith('/settings')) return { alias: 'Cualquiera' };
  return {};
}

describe('customer routes × callers', () => {
  it('finds the routes in the route table', () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
    for (const key of PUBLIC) expect(routes.map((r) => `${r.method} ${r.path}`)).toContain(key);
  });

  it('refuses every non-public route to no token, a manager, an expired token and a disabled account (401)', async () => {
    const cells: string[] = [];
    for (const { method, path } of routes) {
      if (PUBLIC.has(`${method} ${path}`)) continue;
      for (const who of [null, 'manager', 'expired', 'disabled'] as const) {
        const body = bodyFor(method, path);
        const res = await t.app.inject({
          method: method as 'GET',
          url: concrete(path),
          headers: who ? bearer(tok[who]) : {},
          ...(body ? { payload: body } : {}),
        });
        if (res.statusCode !== 401 || typeof res.json().message !== 'string')
          cells.push(`${method} ${path} × ${who ?? 'sin token'} → ${res.statusCode}`);
      }
    }
    expect(cells).toEqual([]);
  });

  it('never lets another customer reach the owner’s peer, room or invoice (404, nothing changed)', async () => {
    const cells: string[] = [];
    const withIds = routes.filter((r) => r.path.includes('{'));
    expect(withIds.length).toBeGreaterThanOrEqual(4);
    for (const { method, path } of withIds) {
      const body = bodyFor(method, path);
      const res = await t.app.inject({
        method: method as 'GET',
        url: concrete(path),
        headers: bearer(tok.other),
        ...(body ? { payload: body } : {}),
      });
      if (res.statusCode !== 404)
        cells.push(`${method} ${path} × otro cliente → ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(cells).toEqual([]);
    // The owner still reaches them (the ids were right, and nothing was changed by the other).
    const own = await t.app.inject({
      method: 'GET',
      url: `/api/client/invoices/${ids.invoice}`,
      headers: bearer(tok.owner),
    });
    expect(own.statusCode).toBe(200);
    const rooms = await t.app.inject({
      method: 'GET',
      url: '/api/client/network/partys',
      headers: bearer(tok.owner),
    });
    expect(rooms.json().owned_partys.map((p: { id: number }) => p.id)).toContain(ids.room);
  });

  it('opens the websocket only to a valid, live session', async () => {
    const ok = await PushClient.connect(base, tok.owner);
    expect(ok.messages[0]).toMatchObject({ type: 'auth', status: 'ok' });
    ok.close();
    for (const token of ['', 'x.y.z', tok.expired, tok.disabled]) {
      const refused = await PushClient.connect(base, token);
      expect(refused.messages[0]).toMatchObject({ type: 'auth', status: 'error' });
      refused.close();
    }
  });
});
