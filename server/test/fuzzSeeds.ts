/**
 * The fuzz test's coverage floor (routes/fuzz.test.ts): every operation must answer at least one
 * success (2xx, or the 303 of a payment page's form) and one 4xx in a run. Generated input mostly stops at validation, so for each operation this
 * file holds one valid request — a seed — built against fresh fixtures (a customer with a peer, an
 * invoice and a room, a manager of each role, a server, a plan, an announcement), used when the
 * generated requests never got a 2xx from it. Seeds of destructive operations make their own
 * target (a throwaway customer, manager, server…). A new route without a seed fails the floor and
 * names itself here. Over 400 lines because it is a table: one seed per operation of the API, kept
 * together so a route's seed is found by its name.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { customers, paymentNotices, plans, servers, telegramLinks } from '../src/db/schema.ts';
import { issueEmailToken } from '../src/services/identity/emailTokens.ts';
import { updateSiteSettings } from '../src/services/site/settings.ts';
import { base32Decode, totp } from '../src/lib/totp.ts';
import { bearer, createCustomer, createManager, solveCaptcha, type TestApp } from './helpers.ts';

export const CALLERS = ['none', 'customer', 'owner', 'operations', 'support', 'finance'] as const;
export type Caller = (typeof CALLERS)[number];

export interface SeedRequest {
  who: Caller;
  method: string;
  url: string;
  payload?: unknown;
  /** A throwaway account's token, sent instead of the caller's (the caller names its realm). */
  token?: string;
  /** Extra headers: a manager's fresh confirmation (X-Reauth) for a sensitive operation. */
  headers?: Record<string, string>;
}

export interface Fixtures {
  t: TestApp;
  tokens: Record<Caller, string | null>;
  customer: { id: number; username: string; password: string; refresh: string };
  owner: { username: string; password: string };
  planId: number;
  serverId: number;
  peerId: number;
  invoiceId: string;
  roomId: number;
  adId: number;
}

/**
 * Operations whose 2xx the floor does not ask of generated or seeded calls, with why; their 4xx is
 * still required. Each is a gateway's callback that only a signed notice from the gateway (or its
 * stand-in) can satisfy: routes/qvapayConfirm.test.ts and routes/remesita.test.ts cover those.
 */
export const NO_2XX: Record<string, string> = {
  'GET /api/payments/qvapay/webhook': 'QvaPay confirms only against its own API (qvapayConfirm.test.ts)',
  'POST /api/payments/qvapay/webhook': 'QvaPay confirms only against its own API (qvapayConfirm.test.ts)',
  'GET /api/payments/remesita/ipn/{id}/{secret}': 'needs a Remesita notice and secret (remesita.test.ts)',
  'POST /api/payments/remesita/ipn/{id}/{secret}': 'needs a Remesita notice and secret (remesita.test.ts)',
  'POST /api/client/telegram/link':
    'needs a bot Telegram accepts (getMe): test/telegram.test.ts, against its stand-in',
  'POST /api/admin/me/telegram/link':
    'needs a bot Telegram accepts (getMe): test/telegram.test.ts, against its stand-in',
};

const n = () => randomBytes(3).toString('hex');
const PASSWORD = 'clave-del-suelo-1';

let address = 0;
/** A fixture's request, from an address of its own (the generated ones spent 127.0.0.1's limits). */
async function inject(
  t: TestApp,
  method: string,
  url: string,
  token: string | null,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  address++;
  const res = await t.app.inject({
    method: method as 'GET',
    url,
    remoteAddress: `198.19.${(address >> 8) & 255}.${address & 255}`,
    headers: { ...headers, ...(token ? bearer(token) : {}) },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (res.statusCode >= 300) throw new Error(`fixture ${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

async function signIn(t: TestApp, realm: 'client' | 'admin', username: string, password: string) {
  const res = await inject(t, 'POST', `/api/${realm}/login`, null, { username, password, remember: true });
  return res.json<{ access: string; refresh: string }>();
}

/** Fresh fixtures: what the generated phase may have deleted, disabled or signed out is made anew. */
export async function makeFixtures(t: TestApp): Promise<Fixtures> {
  await updateSiteSettings(t.ctx.db, {
    maintenance: false,
    allow_registration: true,
    allow_password_recovery: true,
    // Recovery answers only while a channel can carry the link (issue 32): e-mail, which the fuzz
    // app has (a local SMTP stand-in).
    allow_email: true,
    allow_partys: true,
    // Generated requests may have switched a real gateway on: invoices go to the sandbox again.
    allow_payments_qvapay: false,
    allow_payments_remesita: false,
  });
  const tokens = { none: null } as Record<Caller, string | null>;
  const owner = { username: `fzowner${n()}`, password: PASSWORD };
  await createManager(t, owner.username, owner.password, 'owner');
  tokens.owner = (await signIn(t, 'admin', owner.username, owner.password)).access;
  for (const role of ['operations', 'support', 'finance'] as const) {
    const m = await createManager(t, `fz${role}${n()}`, PASSWORD, role);
    tokens[role] = (await signIn(t, 'admin', m.username, m.password)).access;
  }
  const c = await createCustomer(t, `fzcliente${n()}`, PASSWORD);
  // Rooms need an alias.
  await t.ctx.db
    .update(customers)
    .set({ alias: `Alias ${n()}` })
    .where(eq(customers.id, c.id));
  const signed = await signIn(t, 'client', c.username, c.password);
  tokens.customer = signed.access;
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: `Plan ${n()}`, description: 'Uno', price: '3.00', validity: '30 days' })
    .returning();
  const server = await inject(
    t,
    'POST',
    '/api/admin/servers',
    tokens.owner,
    {
      name: `Suelo ${n()}`,
      endpoint: `suelo${n()}.vpn.example:51820`,
      ubication: 'La Habana',
      allow_partys: true,
    },
    await reauth(t, tokens.owner!),
  );
  const serverId = server.json<{ server: { id: number } }>().server.id;
  const [serverRow] = await t.ctx.db.select().from(servers).where(eq(servers.id, serverId));
  const peer = await t.ctx.peers.provision({
    customerId: c.id,
    planId: plan!.id,
    name: `Peer ${n()}`,
    server: serverRow!,
    manualPayment: false,
  });
  const invoice = await inject(t, 'PUT', '/api/client/invoices', tokens.customer, {
    operation: 'add_plan',
    peer: peer.id,
    plan: plan!.id,
  });
  const room = await inject(t, 'POST', '/api/client/network/partys', tokens.customer, {
    name: `Sala ${n()}`,
    peer: peer.id,
  });
  const ad = await inject(t, 'POST', '/api/admin/advertisements', tokens.owner, {
    name: 'Aviso',
    message: 'Mantenimiento el domingo.',
  });
  return {
    t,
    tokens,
    customer: { ...c, refresh: signed.refresh },
    owner,
    planId: plan!.id,
    serverId,
    peerId: peer.id,
    invoiceId: invoice.json<{ id: string }>().id,
    roomId: room.json<{ id: number }>().id,
    adId: ad.json<{ id: number }>().id,
  };
}

/** A throwaway signed-in customer with a peer of its own (for operations that end or change it). */
async function spareCustomer(f: Fixtures) {
  const c = await createCustomer(f.t, `fzotro${n()}`, PASSWORD);
  await f.t.ctx.db
    .update(customers)
    .set({ alias: `Otro ${n()}` })
    .where(eq(customers.id, c.id));
  const signed = await signIn(f.t, 'client', c.username, c.password);
  const [serverRow] = await f.t.ctx.db.select().from(servers).where(eq(servers.id, f.serverId));
  const peer = await f.t.ctx.peers.provision({
    customerId: c.id,
    planId: f.planId,
    name: 'Otro',
    server: serverRow!,
    manualPayment: false,
  });
  return { ...c, ...signed, peerId: peer.id };
}

async function spareServer(f: Fixtures): Promise<number> {
  const res = await inject(
    f.t,
    'POST',
    '/api/admin/servers',
    f.tokens.owner,
    { name: `Repuesto ${n()}`, endpoint: `repuesto${n()}.vpn.example:51820`, ubication: 'Matanzas' },
    await reauth(f.t, f.tokens.owner!),
  );
  return res.json<{ server: { id: number } }>().server.id;
}

async function spareManager(f: Fixtures) {
  const m = await createManager(f.t, `fzgestor${n()}`, PASSWORD, 'support');
  return { ...m, access: (await signIn(f.t, 'admin', m.username, m.password)).access };
}

/** A manager's fresh confirmation for a sensitive operation (POST /api/admin/me/reauth), as a header. */
async function reauth(t: TestApp, access: string, code?: string) {
  const res = await inject(t, 'POST', '/api/admin/me/reauth', access, {
    password: PASSWORD,
    ...(code ? { code } : {}),
  });
  return { 'x-reauth': res.json<{ token: string }>().token };
}

/** A manager (support) with two-factor sign-in enrolled and confirmed, signed in. */
async function enrolledManager(f: Fixtures) {
  const m = await spareManager(f);
  const started = await inject(
    f.t,
    'POST',
    '/api/admin/me/totp',
    m.access,
    undefined,
    await reauth(f.t, m.access),
  );
  const secret = base32Decode(started.json<{ secret: string }>().secret);
  const confirmed = await inject(f.t, 'POST', '/api/admin/me/totp/confirm', m.access, {
    code: totp(secret, Date.now()),
  });
  return { ...m, secret, recovery: confirmed.json<{ recovery_codes: string[] }>().recovery_codes };
}

type Seed = (f: Fixtures) => Promise<SeedRequest>;
const get =
  (who: Caller, url: string | ((f: Fixtures) => string)): Seed =>
  async (f) => ({ who, method: 'GET', url: typeof url === 'string' ? url : url(f) });

/** One valid request per operation (`METHOD /openapi/{path}`). */
export const SEEDS: Record<string, Seed> = {
  // Customer area, public.
  'GET /api/client': get('none', '/api/client'),
  'GET /api/client/status': get('none', '/api/client/status'),
  'GET /api/client/captcha': get('none', '/api/client/captcha'),
  'GET /api/client/plans': get('none', '/api/client/plans'),
  'GET /api/client/advertisements': get('customer', '/api/client/advertisements'),
  'GET /api/client/agent': get('customer', '/api/client/agent'),
  'POST /api/client/login': async (f) => ({
    who: 'none',
    method: 'POST',
    url: '/api/client/login',
    payload: { username: f.customer.username, password: f.customer.password },
  }),
  'PUT /api/client/register': async (f) => ({
    who: 'none',
    method: 'PUT',
    url: '/api/client/register',
    payload: { username: `fznuevo${n()}`, password: PASSWORD, captcha_token: await solveCaptcha(f.t) },
  }),
  'POST /api/client/password-recovery': async (f) => ({
    who: 'none',
    method: 'POST',
    url: '/api/client/password-recovery',
    payload: { username: f.customer.username },
  }),
  'POST /api/client/reset-password': async (f) => {
    const c = await spareCustomer(f);
    const token = await issueEmailToken(f.t.ctx.db, c.id, 'reset_password', null);
    return {
      who: 'none',
      method: 'POST',
      url: '/api/client/reset-password',
      payload: { token, password: 'otra-clave-del-suelo' },
    };
  },
  'POST /api/client/verify-email': async (f) => {
    const c = await spareCustomer(f);
    const email = `fz${n()}@correo.example`;
    await f.t.ctx.db.update(customers).set({ email }).where(eq(customers.id, c.id));
    const token = await issueEmailToken(f.t.ctx.db, c.id, 'verify_email', email);
    return { who: 'none', method: 'POST', url: '/api/client/verify-email', payload: { token } };
  },
  // Customer area, signed in.
  'GET /api/client/verify-token': get('customer', '/api/client/verify-token'),
  'PATCH /api/client/settings': async () => ({
    who: 'customer',
    method: 'PATCH',
    url: '/api/client/settings',
    payload: { alias: `Alias ${n()}` },
  }),
  'DELETE /api/client/settings': async (f) => {
    // Removes the account's e-mail: a customer with one.
    const c = await spareCustomer(f);
    await f.t.ctx.db
      .update(customers)
      .set({ email: `fz${n()}@correo.example`, emailVerified: true })
      .where(eq(customers.id, c.id));
    return { who: 'customer', method: 'DELETE', url: '/api/client/settings', token: c.access };
  },
  'PUT /api/client/invoices': async (f) => {
    // New peers are sold only where an agent answers (issue 32): one seen a moment ago.
    await f.t.ctx.db.update(servers).set({ lastSeenAt: new Date() }).where(eq(servers.id, f.serverId));
    return {
      who: 'customer',
      method: 'PUT',
      url: '/api/client/invoices',
      payload: { operation: 'new_peer', peer: `Nuevo ${n()}`, plan: f.planId },
    };
  },
  'GET /api/client/invoices/{id}': get('customer', (f) => `/api/client/invoices/${f.invoiceId}`),
  'GET /api/client/payments': get('customer', '/api/client/payments'),
  'GET /api/client/network/partys': get('customer', '/api/client/network/partys'),
  'POST /api/client/network/partys': async (f) => {
    const c = await spareCustomer(f);
    return {
      who: 'customer',
      method: 'POST',
      url: '/api/client/network/partys',
      payload: { name: `Sala ${n()}`, peer: c.peerId },
      token: c.access,
    };
  },
  'PATCH /api/client/network/partys': async (f) => {
    const lists = await inject(f.t, 'GET', '/api/client/network/partys', f.tokens.customer);
    const room = lists.json<{ owned_partys: { name: string; password: string }[] }>().owned_partys[0]!;
    const c = await spareCustomer(f);
    return {
      who: 'customer',
      method: 'PATCH',
      url: '/api/client/network/partys',
      payload: { operation: 'join', name: room.name, password: room.password, peer: c.peerId },
      token: c.access,
    };
  },
  'PATCH /api/client/network/partys/{id}': async (f) => ({
    who: 'customer',
    method: 'PATCH',
    url: `/api/client/network/partys/${f.roomId}`,
    payload: { operation: 'regenerate_password' },
  }),
  'DELETE /api/client/network/partys/{id}': async (f) => {
    const c = await spareCustomer(f);
    const room = await inject(f.t, 'POST', '/api/client/network/partys', c.access, {
      name: `Sala ${n()}`,
      peer: c.peerId,
    });
    return {
      who: 'customer',
      method: 'DELETE',
      url: `/api/client/network/partys/${room.json<{ id: number }>().id}`,
      token: c.access,
    };
  },
  'GET /api/client/accounts/peers': get('customer', '/api/client/accounts/peers'),
  'GET /api/client/accounts/peers/{id}': get('customer', (f) => `/api/client/accounts/peers/${f.peerId}`),
  'PATCH /api/client/accounts/peers/{id}': async (f) => {
    const c = await spareCustomer(f);
    return {
      who: 'customer',
      method: 'PATCH',
      url: `/api/client/accounts/peers/${c.peerId}`,
      payload: { operation: 'regenerate' },
      token: c.access,
    };
  },
  'GET /api/client/accounts/peers/{id}/usage': get(
    'customer',
    (f) => `/api/client/accounts/peers/${f.peerId}/usage`,
  ),
  'GET /api/client/network/{peerId}': get('customer', (f) => `/api/client/network/${f.peerId}`),
  // Sessions and mirror links.
  'POST /api/refresh-token': async (f) => {
    const c = await spareCustomer(f);
    return { who: 'none', method: 'POST', url: '/api/refresh-token', payload: { refresh: c.refresh } };
  },
  'POST /api/logout': async (f) => {
    const c = await spareCustomer(f);
    return { who: 'none', method: 'POST', url: '/api/logout', payload: { refresh: c.refresh } };
  },
  'GET /api/mirror/{token}': async (f) => {
    const mine = await inject(f.t, 'GET', '/api/client/accounts/peers', f.tokens.customer);
    const link = mine.json<{ mirror_link: string }[]>()[0]!.mirror_link;
    return { who: 'none', method: 'GET', url: new URL(link, 'http://x').pathname };
  },
  'GET /api/payments/sandbox/{id}': get('none', (f) => `/api/payments/sandbox/${f.invoiceId}`),
  'POST /api/payments/sandbox/{id}/pay': async (f) => {
    const invoice = await inject(f.t, 'PUT', '/api/client/invoices', f.tokens.customer, {
      operation: 'add_plan',
      peer: f.peerId,
      plan: f.planId,
    });
    return {
      who: 'none',
      method: 'POST',
      url: `/api/payments/sandbox/${invoice.json<{ id: string }>().id}/pay`,
    };
  },
  'POST /api/payments/sandbox/{id}/cancel': async (f) => {
    const invoice = await inject(f.t, 'PUT', '/api/client/invoices', f.tokens.customer, {
      operation: 'add_plan',
      peer: f.peerId,
      plan: f.planId,
    });
    return {
      who: 'none',
      method: 'POST',
      url: `/api/payments/sandbox/${invoice.json<{ id: string }>().id}/cancel`,
    };
  },
  // Manager console.
  'POST /api/admin/login': async (f) => ({
    who: 'none',
    method: 'POST',
    url: '/api/admin/login',
    payload: { username: f.owner.username, password: f.owner.password },
  }),
  'GET /api/admin/verify-token': get('support', '/api/admin/verify-token'),
  'GET /api/admin/audit': get('owner', '/api/admin/audit'),
  'POST /api/admin/advertisements': async () => ({
    who: 'operations',
    method: 'POST',
    url: '/api/admin/advertisements',
    payload: { name: 'Aviso', message: 'Nueva versión disponible.' },
  }),
  'DELETE /api/admin/advertisements/{id}': async (f) => {
    const ad = await inject(f.t, 'POST', '/api/admin/advertisements', f.tokens.owner, {
      name: 'Aviso',
      message: 'Se retira.',
    });
    return {
      who: 'operations',
      method: 'DELETE',
      url: `/api/admin/advertisements/${ad.json<{ id: number }>().id}`,
    };
  },
  // What customers download: the password asked again (X-Reauth).
  'POST /api/admin/agent': async (f) => ({
    who: 'operations',
    method: 'POST',
    url: '/api/admin/agent',
    payload: { version: '2.1.0', url: 'https://descargas.example/cliente-2.1.0.apk' },
    headers: await reauth(f.t, f.tokens.operations!),
  }),
  'GET /api/admin/customers': get('support', '/api/admin/customers'),
  'GET /api/admin/customers/{id}': get('support', (f) => `/api/admin/customers/${f.customer.id}`),
  'PATCH /api/admin/customers/{id}': async (f) => {
    const c = await spareCustomer(f);
    return {
      who: 'owner',
      method: 'PATCH',
      url: `/api/admin/customers/${c.id}`,
      payload: { disabled: true, reason: 'prueba del fuzz' },
    };
  },
  'POST /api/admin/customers/{id}/password-reset': async (f) => {
    const c = await spareCustomer(f);
    await f.t.ctx.db
      .update(customers)
      .set({ email: `fz${n()}@correo.example`, emailVerified: true })
      .where(eq(customers.id, c.id));
    return { who: 'support', method: 'POST', url: `/api/admin/customers/${c.id}/password-reset` };
  },
  'GET /api/admin/invoices': get('finance', '/api/admin/invoices'),
  'GET /api/admin/invoices/{id}': get('finance', (f) => `/api/admin/invoices/${f.invoiceId}`),
  'GET /api/admin/invoices/export.csv': get('finance', '/api/admin/invoices/export.csv'),
  'GET /api/admin/invoices/revenue': get('finance', '/api/admin/invoices/revenue'),
  'PATCH /api/admin/invoices/{id}': async (f) => {
    const invoice = await inject(f.t, 'PUT', '/api/client/invoices', f.tokens.customer, {
      operation: 'add_plan',
      peer: f.peerId,
      plan: f.planId,
    });
    return {
      who: 'finance',
      method: 'PATCH',
      url: `/api/admin/invoices/${invoice.json<{ id: string }>().id}`,
      payload: { operation: 'mark_paid', reason: 'pago recibido en efectivo' },
    };
  },
  'POST /api/admin/invoices/{id}/refund': async (f) => {
    const invoice = await inject(f.t, 'PUT', '/api/client/invoices', f.tokens.customer, {
      operation: 'add_plan',
      peer: f.peerId,
      plan: f.planId,
    });
    const id = invoice.json<{ id: string }>().id;
    await inject(f.t, 'PATCH', `/api/admin/invoices/${id}`, f.tokens.finance, {
      operation: 'mark_paid',
      reason: 'pago recibido en efectivo',
    });
    return {
      who: 'finance',
      method: 'POST',
      url: `/api/admin/invoices/${id}/refund`,
      payload: { method: 'manual', reason: 'devuelto en efectivo' },
    };
  },
  'GET /api/admin/payments/unmatched': get('finance', '/api/admin/payments/unmatched'),
  'PATCH /api/admin/payments/unmatched/{id}': async (f) => {
    // A payment that arrived for no open invoice, as a gateway's notice leaves it.
    const [notice] = await f.t.ctx.db
      .insert(paymentNotices)
      .values({
        gateway: 'qvapay',
        reference: `fz-${n()}`,
        amount: '3.00',
        currency: 'USD',
        gatewayStatus: 'paid',
        outcome: 'unmatched',
        reason: 'La factura ya no estaba abierta',
      })
      .returning();
    return {
      who: 'finance',
      method: 'PATCH',
      url: `/api/admin/payments/unmatched/${notice!.id}`,
      payload: { resolved: true, reason: 'acreditado a mano' },
    };
  },
  'GET /api/admin/managers': get('owner', '/api/admin/managers'),
  // Every change of who can sign in needs the owner's fresh confirmation (issue 26).
  'POST /api/admin/managers': async (f) => ({
    who: 'owner',
    method: 'POST',
    url: '/api/admin/managers',
    payload: { username: `fznuevo${n()}`, password: PASSWORD, role: 'support' },
    headers: await reauth(f.t, f.tokens.owner!),
  }),
  'PATCH /api/admin/managers/{id}': async (f) => ({
    who: 'owner',
    method: 'PATCH',
    url: `/api/admin/managers/${(await spareManager(f)).id}`,
    payload: { disabled: true },
    headers: await reauth(f.t, f.tokens.owner!),
  }),
  'DELETE /api/admin/managers/{id}': async (f) => ({
    who: 'owner',
    method: 'DELETE',
    url: `/api/admin/managers/${(await spareManager(f)).id}`,
    headers: await reauth(f.t, f.tokens.owner!),
  }),
  'DELETE /api/admin/managers/{id}/totp': async (f) => ({
    who: 'owner',
    method: 'DELETE',
    url: `/api/admin/managers/${(await enrolledManager(f)).id}/totp`,
    headers: await reauth(f.t, f.tokens.owner!),
  }),
  'GET /api/admin/me/totp': get('support', '/api/admin/me/totp'),
  'POST /api/admin/me/reauth': async (f) => {
    const m = await spareManager(f);
    return {
      who: 'support',
      method: 'POST',
      url: '/api/admin/me/reauth',
      payload: { password: PASSWORD },
      token: m.access,
    };
  },
  'POST /api/admin/me/totp': async (f) => {
    const m = await spareManager(f);
    return {
      who: 'support',
      method: 'POST',
      url: '/api/admin/me/totp',
      token: m.access,
      headers: await reauth(f.t, m.access),
    };
  },
  'POST /api/admin/me/totp/confirm': async (f) => {
    const m = await spareManager(f);
    const started = await inject(
      f.t,
      'POST',
      '/api/admin/me/totp',
      m.access,
      undefined,
      await reauth(f.t, m.access),
    );
    const secret = base32Decode(started.json<{ secret: string }>().secret);
    return {
      who: 'support',
      method: 'POST',
      url: '/api/admin/me/totp/confirm',
      payload: { code: totp(secret, Date.now()) },
      token: m.access,
    };
  },
  'DELETE /api/admin/me/totp': async (f) => {
    const m = await enrolledManager(f);
    return {
      who: 'support',
      method: 'DELETE',
      url: '/api/admin/me/totp',
      payload: { password: m.password },
      token: m.access,
      headers: await reauth(f.t, m.access, m.recovery[0]),
    };
  },
  'GET /api/admin/metrics': get('support', '/api/admin/metrics'),
  'GET /api/admin/metrics/series': get('owner', '/api/admin/metrics/series'),
  'GET /api/admin/partys': get('support', '/api/admin/partys'),
  'GET /api/admin/partys/{id}': get('support', (f) => `/api/admin/partys/${f.roomId}`),
  'DELETE /api/admin/partys/{id}': async (f) => {
    const c = await spareCustomer(f);
    const room = await inject(f.t, 'POST', '/api/client/network/partys', c.access, {
      name: `Sala ${n()}`,
      peer: c.peerId,
    });
    return {
      who: 'operations',
      method: 'DELETE',
      url: `/api/admin/partys/${room.json<{ id: number }>().id}`,
      payload: { reason: 'sala de prueba' },
    };
  },
  'GET /api/admin/peers': get('support', '/api/admin/peers'),
  'GET /api/admin/peers/{id}': get('support', (f) => `/api/admin/peers/${f.peerId}`),
  'POST /api/admin/peers': async (f) => ({
    who: 'operations',
    method: 'POST',
    url: '/api/admin/peers',
    payload: { username: f.customer.username, plan: f.planId, name: `Manual ${n()}`, server: f.serverId },
  }),
  'PATCH /api/admin/peers/{id}': async (f) => {
    const c = await spareCustomer(f);
    return {
      who: 'operations',
      method: 'PATCH',
      url: `/api/admin/peers/${c.peerId}`,
      payload: { active: false, reason: 'prueba del fuzz' },
    };
  },
  'GET /api/admin/plans': get('finance', '/api/admin/plans'),
  'GET /api/admin/plans/{id}': get('finance', (f) => `/api/admin/plans/${f.planId}`),
  'POST /api/admin/plans': async () => ({
    who: 'finance',
    method: 'POST',
    url: '/api/admin/plans',
    payload: { name: `Plan ${n()}`, price: '2.50', validity_days: 7 },
  }),
  'PATCH /api/admin/plans/{id}': async (f) => ({
    who: 'finance',
    method: 'PATCH',
    url: `/api/admin/plans/${f.planId}`,
    payload: { description: 'Uno. Dos' },
  }),
  'DELETE /api/admin/plans/{id}': async (f) => {
    const [plan] = await f.t.ctx.db
      .insert(plans)
      .values({ name: `Plan ${n()}`, description: 'Se borra', price: '1.00', validity: '1 day' })
      .returning();
    return { who: 'finance', method: 'DELETE', url: `/api/admin/plans/${plan!.id}` };
  },
  'GET /api/admin/servers': get('support', '/api/admin/servers'),
  'GET /api/admin/servers/{id}': get('support', (f) => `/api/admin/servers/${f.serverId}`),
  'GET /api/admin/servers/{id}/peers': get('support', (f) => `/api/admin/servers/${f.serverId}/peers`),
  // What decides where customers' tunnels end needs a fresh confirmation (issue 31).
  'POST /api/admin/servers': async (f) => ({
    who: 'operations',
    method: 'POST',
    url: '/api/admin/servers',
    payload: { name: `Nuevo ${n()}`, endpoint: `nuevo${n()}.vpn.example:51820`, ubication: 'Holguín' },
    headers: await reauth(f.t, f.tokens.operations!),
  }),
  'PATCH /api/admin/servers/{id}': async (f) => ({
    who: 'operations',
    method: 'PATCH',
    url: `/api/admin/servers/${await spareServer(f)}`,
    payload: { ubication: 'Camagüey' },
  }),
  'DELETE /api/admin/servers/{id}': async (f) => ({
    who: 'operations',
    method: 'DELETE',
    url: `/api/admin/servers/${await spareServer(f)}`,
    headers: await reauth(f.t, f.tokens.operations!),
  }),
  'POST /api/admin/servers/{id}/token': async (f) => ({
    who: 'operations',
    method: 'POST',
    url: `/api/admin/servers/${await spareServer(f)}/token`,
    headers: await reauth(f.t, f.tokens.operations!),
  }),
  'POST /api/admin/servers/{id}/drain': async (f) => ({
    who: 'operations',
    method: 'POST',
    url: `/api/admin/servers/${await spareServer(f)}/drain`,
    payload: { reason: 'prueba del fuzz' },
  }),
  'POST /api/admin/servers/{id}/agent-upgrade': async (f) => {
    // An agent seen a moment ago: the server counts as connected (agentOnline).
    const id = await spareServer(f);
    await f.t.ctx.db.update(servers).set({ lastSeenAt: new Date() }).where(eq(servers.id, id));
    return { who: 'operations', method: 'POST', url: `/api/admin/servers/${id}/agent-upgrade` };
  },
  'GET /api/admin/settings': get('operations', '/api/admin/settings'),
  'PATCH /api/admin/settings': async () => ({
    who: 'operations',
    method: 'PATCH',
    url: '/api/admin/settings',
    payload: { show_landing: true },
  }),
  'PATCH /api/admin/settings/links': async () => ({
    who: 'operations',
    method: 'PATCH',
    url: '/api/admin/settings/links',
    payload: { support_url: 'https://t.me/soporte_vpn' },
  }),
  'GET /api/admin/settings/concurrent-use': get('operations', '/api/admin/settings/concurrent-use'),
  'PATCH /api/admin/settings/concurrent-use': async () => ({
    who: 'operations',
    method: 'PATCH',
    url: '/api/admin/settings/concurrent-use',
    payload: { action: 'notify' },
  }),
  'GET /api/admin/settings/gateways': get('owner', '/api/admin/settings/gateways'),
  'PATCH /api/admin/settings/gateways': async () => ({
    who: 'owner',
    method: 'PATCH',
    url: '/api/admin/settings/gateways',
    payload: { allow_payments_qvapay: false },
  }),
  'GET /api/client/telegram': get('customer', '/api/client/telegram'),
  'GET /api/admin/settings/telegram': get('owner', '/api/admin/settings/telegram'),
  'DELETE /api/admin/me/telegram': async () => ({
    who: 'support',
    method: 'DELETE',
    url: '/api/admin/me/telegram',
  }),
  // The switches need a linked chat: linked here as /start <code> would leave it.
  'PATCH /api/client/telegram': async (f) => {
    await f.t.ctx.db
      .insert(telegramLinks)
      .values({
        realm: 'customer',
        subjectId: f.customer.id,
        chatId: 7_000_000 + f.customer.id,
        linkedAt: new Date(),
      })
      .onConflictDoNothing();
    return { who: 'customer', method: 'PATCH', url: '/api/client/telegram', payload: { reminders: false } };
  },
  // Forgetting a saved token needs no Bot API; like any change of it, a fresh confirmation.
  'PUT /api/admin/settings/telegram': async (f) => {
    const res = await inject(f.t, 'POST', '/api/admin/me/reauth', f.tokens.owner, {
      password: f.owner.password,
    });
    return {
      who: 'owner',
      method: 'PUT',
      url: '/api/admin/settings/telegram',
      payload: { token: null },
      headers: { 'x-reauth': res.json<{ token: string }>().token },
    };
  },
};

/** The token a seed's request is sent with. */
export const tokenOf = (req: SeedRequest, f: Fixtures): string | null => req.token ?? f.tokens[req.who];
