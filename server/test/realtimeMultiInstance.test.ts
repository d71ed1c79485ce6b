/**
 * Revocations across two control-plane instances on one PostgreSQL: the socket sits on instance A,
 * the change is made through instance B, and A must act on it (LISTEN/NOTIFY). PGlite is one
 * process, so this runs only with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  createTestDatabase,
  listen,
  login,
  managerToken,
  type TestApp,
} from './helpers.ts';
import { ProtocolAgent, PushClient } from './protocolAgent.ts';
import { LISTEN_APPLICATION_NAME } from '../src/realtime/bus.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const METRICS = 'metrics-token-for-the-bus-0123';

/** How many bus notifications A has heard, by its /metrics (vpn_bus_notify_lag_seconds). */
async function notificationsHeard(app: TestApp): Promise<number> {
  const res = await app.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS) });
  return Number(/^vpn_bus_notify_lag_seconds_count (\d+)$/m.exec(res.body)?.[1] ?? NaN);
}

describe.skipIf(!onPostgres)('revocations on two instances', () => {
  let a: TestApp;
  let b: TestApp;
  let baseA: string;
  let closeDb: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    closeDb = database.close;
    a = await createTestApp({ database, scheduler: false, env: { METRICS_TOKEN: METRICS } });
    b = await createTestApp({ database, scheduler: false });
    baseA = await listen(a);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await closeDb();
  });

  it('closes a socket on A when the customer changes the password through B', async () => {
    const heardBefore = await notificationsHeard(a);
    const c = await createCustomer(b);
    const phone = await login(b, c.username, c.password);
    const laptop = await login(b, c.username, c.password);
    const push = await PushClient.connect(baseA, phone.access);
    const res = await b.app.inject({
      method: 'PATCH',
      url: '/api/client/settings',
      headers: bearer(laptop.access),
      payload: { old_password: c.password, new_password: 'otra-contraseña-segura' },
    });
    expect(res.statusCode).toBe(200);
    expect(await push.waitClosed()).toBe(4401);
    // The revocation came over the bus: A's /metrics counts its notification's lag.
    expect(await notificationsHeard(a)).toBeGreaterThan(heardBefore);
  });

  it("closes a socket on A whose revocation came while A's LISTEN connection was down", async () => {
    const c = await createCustomer(b);
    const phone = await login(b, c.username, c.password);
    const push = await PushClient.connect(baseA, phone.access);
    // A's LISTEN connection drops (B's stays): the revoked notice is sent while A is not listening.
    // A was built first, so its bus's connection is the older of the two.
    const listening = await a.database.pool!.query<{ pid: number }>(
      `select pid from pg_stat_activity where application_name = $1 and datname = current_database()
       order by backend_start`,
      [LISTEN_APPLICATION_NAME],
    );
    expect(listening.rows).toHaveLength(2);
    await a.database.pool!.query('select pg_terminate_backend($1)', [listening.rows[0]!.pid]);
    // A logout (quick: no password hashing) lands before A listens again (200 ms later at least).
    await b.app.inject({ method: 'POST', url: '/api/logout', payload: { refresh: phone.refresh } });
    expect(await push.waitClosed(10_000)).toBe(4401);
  });

  it('closes a socket on A when its session logs out through B', async () => {
    const c = await createCustomer(b);
    const tokens = await login(b, c.username, c.password);
    const push = await PushClient.connect(baseA, tokens.access);
    await b.app.inject({ method: 'POST', url: '/api/logout', payload: { refresh: tokens.refresh } });
    expect(await push.waitClosed()).toBe(4401);
  });

  it("drops the agent's socket on A when its token is rotated through B", async () => {
    const admin = await managerToken(b);
    const created = await b.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: await confirmed(b, admin),
      payload: { name: 'Rotado', endpoint: 'rotado.example:51820', ubication: 'X' },
    });
    const { server, agent_token } = created.json<{ server: { id: number }; agent_token: string }>();
    const agent = await ProtocolAgent.connect(baseA, agent_token);
    const rotated = await b.app.inject({
      method: 'POST',
      url: `/api/admin/servers/${server.id}/token`,
      headers: await confirmed(b, admin),
    });
    expect(rotated.statusCode).toBe(200);
    const timeout = new Promise<string>((r) => setTimeout(() => r('still connected'), 10_000));
    expect(await Promise.race([agent.closedWith, timeout])).toBe(4401);
    // With the new token it is back.
    const again = await ProtocolAgent.connect(baseA, rotated.json<{ agent_token: string }>().agent_token);
    await again.close();
  });

  it('delivers a push bigger than a notification can carry (a big room) to a socket on A', async () => {
    const c = await createCustomer(b);
    const tokens = await login(b, c.username, c.password);
    const push = await PushClient.connect(baseA, tokens.access);
    // A room of 150 peers as its owner sees it: about 14 kB, over pg_notify's 8000 bytes.
    const room = {
      id: 1,
      name: 'Sala grande',
      created: new Date().toISOString(),
      peers: Array.from({ length: 150 }, (_, i) => ({
        id: i + 1,
        name: `Dispositivo número ${i + 1}`,
        user: `jugador${i + 1}`,
        private_ip: `10.7.${Math.floor(i / 250)}.${(i % 250) + 2}`,
      })),
      user: 'anfitrion',
      password: 'clave-de-la-sala',
      processing: false,
    };
    expect(JSON.stringify(room).length).toBeGreaterThan(8000);
    await b.ctx.peers.push(c.id, { type: 'updated_owner_party', party: room });
    const got = await push.waitFor('updated_owner_party');
    expect(got.party).toEqual(room);
    // Small pushes after it still arrive, in order.
    await b.ctx.peers.push(c.id, { type: 'info', message: 'después' });
    await push.waitFor('info');
    expect(push.messages.map((m) => m.type).slice(-2)).toEqual(['updated_owner_party', 'info']);
    push.close();
  });
});
