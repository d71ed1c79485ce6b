/**
 * Issue 19, "How it will be checked", on real wireguard-go in network namespaces: two client hosts
 * bring up the same downloaded `.conf` from different underlay addresses and both keep traffic
 * flowing; within 2 minutes the peer shows `concurrent_use` with endpoints ≥ 2 for the customer and
 * the operator, and the customer's socket gets the push. A client that moves once to a new underlay
 * address and stays there is never flagged. After a regenerate the flag is gone and the old `.conf`
 * no longer connects.
 *
 * The agents report stats every 5 s here (10 s in production): docs/decisions.md (issue 19) gives
 * the odds for 10 s and why the test samples faster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminPeerDetail, Peer } from '@vpn/contracts';
import { plans } from '../../src/db/schema.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../helpers.ts';
import { PushClient } from '../protocolAgent.ts';
import { Lab, dataplaneSkipReason, eventually, sh, uniqueName, type Host } from './network.ts';

const skip = dataplaneSkipReason();
const TUNNEL_HOST = '10.64.0.1';

/** A ping that keeps going in a namespace, counting the replies it gets. */
class Pinger {
  replies = 0;
  private readonly child: ChildProcess;
  /**
   * `interval` in seconds. Two devices on one key must not ping at the same period: the agent reads
   * the endpoint every stats interval (a whole multiple of 0.2 s), so with equal periods the device
   * that sent last at each read can stay the same for minutes and no alternation is seen (aliasing).
   */
  constructor(ns: string, target: string, interval = '0.2') {
    this.child = spawn('ip', ['netns', 'exec', ns, 'ping', '-n', '-i', interval, '-W', '1', target], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    this.child.stdout!.on('data', (d: Buffer) => {
      this.replies += d.toString().split('bytes from').length - 1;
    });
  }
  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe.skipIf(skip !== null)(`data plane: one device per peer${skip ? ` (omitido: ${skip})` : ''}`, () => {
  let lab: Lab;
  let t: TestApp;
  let base: string;
  let admin: string;
  let planId: number;
  let serverId: number;
  const pingers: Pinger[] = [];

  const api = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    token: string,
    payload?: object,
    headers = bearer(token),
  ) => t.app.inject({ method, url, headers, payload });

  async function customerPeer(name: string) {
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    const res = await api('POST', '/api/admin/peers', admin, {
      username: c.username,
      plan: planId,
      name,
      server: serverId,
    });
    expect(res.statusCode).toBe(201);
    const id = res.json<{ id: number }>().id;
    const conf = await api('GET', `/api/client/accounts/peers/${id}`, access);
    expect(conf.statusCode).toBe(200);
    return { access, id, conf: conf.body };
  }

  const customerView = async (access: string, id: number) =>
    (await api('GET', '/api/client/accounts/peers', access)).json<Peer[]>().find((p) => p.id === id)!;
  const operatorView = async (id: number) =>
    (await api('GET', `/api/admin/peers/${id}`, admin)).json<AdminPeerDetail>();

  /** Moves a client host to another underlay address (a phone leaving Wi-Fi for mobile data). */
  function moveHost(host: Host, address: string): void {
    sh('ip', ['-n', host.ns, 'address', 'del', `${host.address}/24`, 'dev', host.iface]);
    sh('ip', ['-n', host.ns, 'address', 'add', `${address}/24`, 'dev', host.iface]);
    sh('ip', ['-n', host.ns, 'route', 'replace', 'default', 'via', '198.51.100.254']);
    host.address = address;
  }

  let iface: string;
  let shared: Awaited<ReturnType<typeof customerPeer>>;
  let roaming: Awaited<ReturnType<typeof customerPeer>>;
  let push: PushClient;
  let first: Host;
  let firstIface: string;

  beforeAll(async () => {
    lab = new Lab();
    // DP_CONCURRENT_STATS_MS=10000 runs it at production's pace (docs/decisions.md gives the odds).
    t = await createTestApp({
      scheduler: false,
      statsIntervalMs: Number(process.env.DP_CONCURRENT_STATS_MS ?? 5000),
    });
    base = await listen(t);
    admin = await managerToken(t);
    const [plan] = await t.ctx.db
      .insert(plans)
      .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days' })
      .returning();
    planId = plan!.id;
    const server = lab.host('dpus', '198.51.100.1');
    iface = uniqueName('dpuw');
    const created = await api(
      'POST',
      '/api/admin/servers',
      admin,
      { name: 'Simultáneo', endpoint: `${server.address}:51820`, ubication: 'Lab', interface_name: iface },
      await confirmed(t, admin),
    );
    expect(created.statusCode).toBe(201);
    serverId = created.json<{ server: { id: number } }>().server.id;
    lab.startAgent(server, base, created.json<{ agent_token: string }>().agent_token, iface);
    shared = await customerPeer('Móvil');
    roaming = await customerPeer('Teléfono');
    await eventually(() => lab.peersOn(iface).length === 2, 60_000, 'peers en la interfaz');
    push = await PushClient.connect(base, shared.access);
  });

  afterAll(async () => {
    for (const p of pingers) p.stop();
    push?.close();
    await t?.close();
    await lab?.cleanup();
  });

  it('flags the same .conf on two hosts within 2 minutes, for the customer and the operator, with a push; a client that moves once is not', async () => {
    // The roaming phone: up on Wi-Fi, then mobile data, and it stays there.
    const phone = lab.host('dpur', '198.51.100.31');
    await lab.loadClientConf(phone, roaming.conf);
    expect(await lab.reaches(phone.ns, TUNNEL_HOST)).toBe(true);
    const phonePing = new Pinger(phone.ns, TUNNEL_HOST);
    pingers.push(phonePing);

    // The same file on two devices, both in use.
    first = lab.host('dpua', '198.51.100.21');
    const second = lab.host('dpub', '198.51.100.22');
    firstIface = await lab.loadClientConf(first, shared.conf);
    expect(await lab.reaches(first.ns, TUNNEL_HOST)).toBe(true);
    await lab.loadClientConf(second, shared.conf);
    const start = Date.now();
    const a = new Pinger(first.ns, TUNNEL_HOST);
    const b = new Pinger(second.ns, TUNNEL_HOST, '0.27');
    pingers.push(a, b);

    // Let the phone be seen at its first address, then move it once.
    await new Promise((r) => setTimeout(r, 12_000));
    moveHost(phone, '198.51.100.32');

    // Waited a little past the 2 minutes, so that the deadline is judged on when the product says it
    // saw it (detected_at, what the customer is shown), not on when this loop last looked.
    await eventually(
      async () => (await customerView(shared.access, shared.id)).concurrent_use !== null,
      130_000 - (Date.now() - start),
      'uso simultáneo detectado',
    );
    const repliesAtDetection = [a.replies, b.replies];
    const seen = await customerView(shared.access, shared.id);
    const detectedAfterMs = Date.parse(seen.concurrent_use!.detected_at) - start;
    expect(detectedAfterMs).toBeGreaterThan(0);
    expect(detectedAfterMs).toBeLessThanOrEqual(120_000);
    expect(seen.concurrent_use!.endpoints).toBeGreaterThanOrEqual(2);
    const operator = await operatorView(shared.id);
    expect(operator.concurrent_use!.endpoints).toBeGreaterThanOrEqual(2);
    // Only networks leave the agent, never a full address.
    expect(operator.concurrent_use!.recent).toEqual(['198.51.100.0/24', '198.51.100.0/24']);
    const list = await api('GET', '/api/admin/peers?state=concurrent_use', admin);
    expect(list.json<{ results: { id: number }[] }>().results.map((p) => p.id)).toEqual([shared.id]);
    const info = await push.waitFor('info', (m) => m.peer_id === shared.id, 10_000);
    expect(info.message).toContain('más de un dispositivo');

    // Both devices keep getting through after the detection: a detection that cut one of them off
    // would show here. Not every second: replies go to the endpoint and session of whichever device
    // made the server's current handshake, so the other one waits until its own next handshake
    // (WireGuard starts one after 15 s without an answer: keepalive 10 s + rekey timeout 5 s).
    await eventually(
      () => a.replies > repliesAtDetection[0]! && b.replies > repliesAtDetection[1]!,
      40_000,
      'los dos dispositivos siguen recibiendo respuestas después de la detección',
    );
    a.stop();
    b.stop();

    // The phone, at its new address for a good while now, still works and was never flagged.
    await new Promise((r) => setTimeout(r, 30_000));
    const before = phonePing.replies;
    await eventually(() => phonePing.replies > before, 10_000, 'el teléfono sigue con tráfico');
    expect((await customerView(roaming.access, roaming.id)).concurrent_use).toBeNull();
    expect((await operatorView(roaming.id)).concurrent_use).toBeNull();
    if (process.env.DP_CONCURRENT_STATS_MS)
      console.log(`uso simultáneo detectado a los ${detectedAfterMs} ms`);
  }, 300_000);

  it('after a regenerate the flag is gone and the old .conf no longer connects', async () => {
    const res = await api('PATCH', `/api/client/accounts/peers/${shared.id}`, shared.access, {
      operation: 'regenerate',
    });
    expect(res.statusCode).toBe(200);
    await push.waitFor('success', () => true, 30_000);
    expect((await customerView(shared.access, shared.id)).concurrent_use).toBeNull();
    expect((await operatorView(shared.id)).concurrent_use).toBeNull();
    // The old file, brought up again on a fresh host: no handshake, no traffic.
    const late = lab.host('dpuc', '198.51.100.23');
    await lab.loadClientConf(late, shared.conf);
    expect(await lab.ping(late.ns, TUNNEL_HOST, 5)).toBe(false);
    expect(await lab.ping(first.ns, TUNNEL_HOST, 3)).toBe(false);
    // The new one works.
    const fresh = await api('GET', `/api/client/accounts/peers/${shared.id}`, shared.access);
    await lab.loadClientConf(first, fresh.body, firstIface);
    expect(await lab.reaches(first.ns, TUNNEL_HOST)).toBe(true);
  }, 120_000);
});
