import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type AppOptions } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { newPglite, openDatabase, type Database } from '../src/db/client.ts';
import { eq } from 'drizzle-orm';
import { customers, managers, peers, plans } from '../src/db/schema.ts';
import { hashPassword } from '../src/lib/crypto.ts';
import { updateSiteSettings } from '../src/services/site/settings.ts';
import type { Role, SiteSettings } from '@vpn/contracts';

export const TEST_SECRET = 'test-secret-key-that-is-long-enough-0123456789';

/** A fresh, migrated database for one test file (a PGlite copy, or a PostgreSQL database from the template). */
export async function createTestDatabase(): Promise<Database & { url?: string }> {
  const template = inject('pgTemplate');
  const base = process.env.TEST_DATABASE_URL;
  if (template && base) {
    const name = `vpn_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name} template ${template}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
    return {
      ...database,
      url: url.toString(),
      close: async () => {
        await database.close();
        const cleanup = new pg.Client({ connectionString: base });
        await cleanup.connect();
        await cleanup.query(`drop database if exists ${name} with (force)`).catch(() => {});
        await cleanup.end();
      },
    };
  }
  const dump = readFileSync(inject('pgliteDump'));
  const client = newPglite({ loadDataDir: new Blob([dump]) });
  return openDatabase({ pglite: client });
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    SECRET_KEY: TEST_SECRET,
    DATA_DIR: join(tmpdir(), 'vpn-test-data'),
    LOG_LEVEL: 'silent',
    WEB_DIST: join(tmpdir(), 'vpn-no-web'),
    ...env,
  });
}

export type TestApp = Awaited<ReturnType<typeof buildApp>> & { database: Database; close(): Promise<void> };

export async function createTestApp(
  opts: Partial<Omit<AppOptions, 'config'>> & { env?: Record<string, string>; database?: Database } = {},
): Promise<TestApp> {
  const database = opts.database ?? (await createTestDatabase());
  const built = await buildApp({
    ...opts,
    config: testConfig(opts.env),
    database,
    logger: opts.logStream ? { level: 'trace' } : false,
  });
  await built.app.ready();
  return {
    ...built,
    database,
    close: async () => {
      await built.app.close();
      if (!opts.database) await database.close();
    },
  };
}

export async function setSettings(t: TestApp, patch: Partial<SiteSettings>): Promise<void> {
  await updateSiteSettings(t.ctx.db, patch);
}

/** One scrypt hash per distinct password for a whole test file (cheap at the tests' cost, test/setup.ts). */
const hashes = new Map<string, Promise<string>>();
export const testHash = (password: string): Promise<string> => {
  let hash = hashes.get(password);
  if (!hash) hashes.set(password, (hash = hashPassword(password)));
  return hash;
};

export async function createCustomer(
  t: TestApp,
  username = `user${randomBytes(3).toString('hex')}`,
  password = 'contraseña-segura',
): Promise<{ id: number; username: string; password: string }> {
  const [row] = await t.ctx.db
    .insert(customers)
    .values({ username, passwordHash: await testHash(password) })
    .returning({ id: customers.id });
  return { id: row!.id, username, password };
}

export async function createManager(
  t: TestApp,
  username = 'gestor',
  password = 'clave-de-gestor',
  role: Role = 'owner',
): Promise<{ id: number; username: string; password: string }> {
  const [row] = await t.ctx.db
    .insert(managers)
    .values({ username, passwordHash: await testHash(password), role })
    .returning({ id: managers.id });
  return { id: row!.id, username, password };
}

/**
 * The number whose hash with `salt` is `challenge` (ALTCHA's proof of work, searched from 0 as the
 * widget does). Node's synchronous hash, not altcha-lib's `solveChallenge`: that one awaits a Web
 * Crypto digest per number, a thread-pool round trip each, ten times slower on an idle machine and
 * far worse on a loaded one (its thread pool shared with the scrypt of the logins), which made the
 * captcha tests the slowest of the suite. The server checks the answer exactly as before. Yields to
 * the event loop every 20,000 numbers so a 16× challenge does not starve the app's timers.
 */
async function solveAltcha(challenge: string, salt: string, algorithm: string, max: number) {
  const base = createHash(algorithm.replace('-', '').toLowerCase()).update(salt);
  for (let n = 0; n <= max; n++) {
    if (base.copy().update(String(n)).digest('hex') === challenge) return n;
    if (n % 20_000 === 19_999) await new Promise((r) => setImmediate(r));
  }
  return null;
}

/**
 * Solves the server's ALTCHA challenge the way the browser widget does, and returns its payload.
 * `query` is what a login form adds (`username=…&realm=manager`): the challenge's work then follows
 * that account's failures. `remoteAddress` is the address fetching it.
 */
export async function solveCaptcha(t: TestApp, query = '', remoteAddress?: string): Promise<string> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/client/captcha${query ? `?${query}` : ''}`,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  const challenge = res.json<{
    algorithm: string;
    challenge: string;
    salt: string;
    signature: string;
    maxnumber: number;
  }>();
  const number = await solveAltcha(
    challenge.challenge,
    challenge.salt,
    challenge.algorithm,
    challenge.maxnumber,
  );
  if (number === null) throw new Error('captcha not solved');
  return Buffer.from(
    JSON.stringify({
      algorithm: challenge.algorithm,
      challenge: challenge.challenge,
      number,
      salt: challenge.salt,
      signature: challenge.signature,
    }),
  ).toString('base64');
}

export async function login(t: TestApp, username: string, password: string, remember = false) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/client/login',
    payload: { username, password, remember },
  });
  return res.json<{ access: string; refresh: string }>();
}

export const bearer = (access: string) => ({ authorization: `Bearer ${access}` });

/** Listens on a free loopback port (websockets need a real socket) and returns the base URL. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

/** The password of the managers managerToken makes. */
export const MANAGER_PASSWORD = 'clave-de-gestor';

export async function managerToken(t: TestApp, role: Role = 'owner'): Promise<string> {
  const username = `m${randomBytes(3).toString('hex')}`;
  const m = await createManager(t, username, MANAGER_PASSWORD, role);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/login',
    payload: { username: m.username, password: m.password },
  });
  return res.json<{ access: string }>().access;
}

/**
 * A VPN server created through the admin API (so it has its keys and agent token); `extra` adds to
 * or replaces fields of the request.
 */
export async function createServer(
  t: TestApp,
  owner: string,
  name = 'Uno',
  extra: Record<string, unknown> = {},
): Promise<{ id: number; token: string; publicKey: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name, endpoint: `${name.toLowerCase()}.vpn.example:51820`, ubication: 'La Habana', ...extra },
  });
  if (res.statusCode !== 201) throw new Error(`servidor no creado: ${res.body}`);
  const { server, agent_token } = res.json<{
    server: { id: number; public_key: string };
    agent_token: string;
  }>();
  return { id: server.id, token: agent_token, publicKey: server.public_key };
}

/** A server as the room tests make it: `<name>.example:51820`, rooms allowed unless told. */
export const createRoomServer = (t: TestApp, owner: string, name: string, allowRooms = true) =>
  createServer(t, owner, name, {
    endpoint: `${name.toLowerCase()}.example:51820`,
    ubication: 'X',
    allow_partys: allowRooms,
  });

/** A 30-day plan ('Mensual', 3.00 USD unless told), written directly. */
export async function createPlan(
  t: TestApp,
  values: Partial<typeof plans.$inferInsert> = {},
): Promise<typeof plans.$inferSelect> {
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days', ...values })
    .returning();
  return plan!;
}

type PeerGrant = { username: string; plan: number; server: number; name?: string };

/** `POST /api/admin/peers` (201 expected); answers the peer as the API gave it. */
async function postPeer(t: TestApp, owner: string, body: PeerGrant & { name: string }) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/peers',
    headers: bearer(owner),
    payload: body,
  });
  if (res.statusCode !== 201) throw new Error(`peer no concedido: ${res.body}`);
  return res.json<{ id: number; address: string }>();
}

/** A manager grants `username` a peer (201 expected); answers its row. */
export async function grantPeer(
  t: TestApp,
  owner: string,
  body: PeerGrant,
): Promise<typeof peers.$inferSelect> {
  const { id } = await postPeer(t, owner, { name: 'Móvil', ...body });
  const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, id));
  return row!;
}

/**
 * A room member: a new customer (`username` unless random) with `alias` (none when null), signed
 * in, holding one peer (`name`, 'PC' unless told) on `server`, as the API gave it.
 */
export async function createMember(
  t: TestApp,
  owner: string,
  opts: { alias: string | null; plan: number; server: number; name?: string; username?: string | undefined },
) {
  const c = await createCustomer(t, opts.username);
  if (opts.alias) await t.ctx.db.update(customers).set({ alias: opts.alias }).where(eq(customers.id, c.id));
  const { access } = await login(t, c.username, c.password);
  const peer = await postPeer(t, owner, {
    username: c.username,
    plan: opts.plan,
    server: opts.server,
    name: opts.name ?? 'PC',
  });
  return { ...c, access, peer };
}

/**
 * A fresh confirmation of a manager's password (and two-factor code) for a sensitive operation
 * (`POST /api/admin/me/reauth`), as the X-Reauth header to send with it.
 */
export async function reauthHeader(
  t: TestApp,
  access: string,
  password: string,
  code?: string,
): Promise<{ 'x-reauth': string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/me/reauth',
    headers: bearer(access),
    payload: { password, ...(code ? { code } : {}) },
  });
  if (res.statusCode !== 200) throw new Error(`reauth refused: ${res.body}`);
  return { 'x-reauth': res.json<{ token: string }>().token };
}

/**
 * The bearer and a fresh confirmation (X-Reauth) of the manager signed in with `access`, for the
 * calls that need one: adding a server, rotating its agent token, changing its host or port,
 * deleting it, moving a customer's peer (issue 31), and those of reauthHeader. `password` is the
 * manager's (managerToken's unless told).
 */
export async function confirmed(
  t: TestApp,
  access: string,
  password = MANAGER_PASSWORD,
): Promise<{ authorization: string; 'x-reauth': string }> {
  return { ...bearer(access), ...(await reauthHeader(t, access, password)) };
}
