/**
 * The product's promise, tested for real: WireGuard tunnels through wireguard-go, the real agent and
 * nftables, in network namespaces, driven only through the public HTTP API (manager and customer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { eq } from 'drizzle-orm';
import { peerStats, peers } from '../../src/db/schema.ts';
import { createPlan, type TestApp } from '../helpers.ts';
import { PushClient } from '../protocolAgent.ts';
import { Proxy } from '../tcpProxy.ts';
import { Fleet } from './fleet.ts';
import { INTERNET_HOST, dataplaneSkipReason, eventually, sh, type Lab } from './network.ts';

const skip = dataplaneSkipReason();

describe.skipIf(skip !== null)(`data plane${skip ? ` (omitido: ${skip})` : ''}`, () => {
  const fleet = new Fleet({ prefix: 'dp' });
  const { api, customer, grantPeer, download, servers: srv } = fleet;
  let lab: Lab;
  let t: TestApp;
  let base: string;
  let admin: string;

  const publicKeyOf = async (access: string, id: number) => {
    const conf = await download(access, id);
    return { conf, privateKey: /^PrivateKey = (.+)$/m.exec(conf)![1]! };
  };

  beforeAll(async () => {
    ({ lab, t, base, admin } = await fleet.start());
  });

  afterAll(() => fleet.close());

  it('a client loads its .conf and reaches its server and the internet host (through NAT)', async () => {
    const c = await customer();
    const id = await grantPeer(c.username, srv[0]!.id);
    const client = lab.host('dpc', '198.51.100.11');
    const conf = await download(c.access, id);
    await eventually(() => lab.peersOn(srv[0]!.iface).length > 0, 20_000, 'peer en la interfaz');
    await lab.loadClientConf(client, conf);
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
    // The internet host has no route back to 10.64.0.0/10: a reply proves masquerade on the server.
    expect(await lab.reaches(client.ns, INTERNET_HOST)).toBe(true);
  });

  it('two clients on one server cannot reach each other', async () => {
    const a = await customer();
    const b = await customer();
    const idA = await grantPeer(a.username, srv[0]!.id, 'A');
    const idB = await grantPeer(b.username, srv[0]!.id, 'B');
    const ca = lab.host('dpca', '198.51.100.21');
    const cb = lab.host('dpcb', '198.51.100.22');
    const confA = await download(a.access, idA);
    const confB = await download(b.access, idB);
    await eventually(() => lab.peersOn(srv[0]!.iface).length >= 3, 20_000, 'peers en la interfaz');
    await lab.loadClientConf(ca, confA);
    await lab.loadClientConf(cb, confB);
    const addrA = /^Address = (.+)\/32$/m.exec(confA)![1]!;
    const addrB = /^Address = (.+)\/32$/m.exec(confB)![1]!;
    expect(await lab.reaches(ca.ns, '10.64.0.1')).toBe(true);
    expect(await lab.reaches(cb.ns, '10.64.0.1')).toBe(true);
    expect(await lab.ping(ca.ns, addrB, 2)).toBe(false);
    expect(await lab.ping(cb.ns, addrA, 2)).toBe(false);
  });

  it('regenerate: the old key no longer gets through; the new .conf works', async () => {
    const c = await customer();
    const id = await grantPeer(c.username, srv[0]!.id, 'Regenerar');
    const client = lab.host('dpcr', '198.51.100.31');
    const push = await PushClient.connect(base, c.access);
    const old = await publicKeyOf(c.access, id);
    await eventually(async () => lab.peersOn(srv[0]!.iface).length > 0);
    const iface = await lab.loadClientConf(client, old.conf);
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
    const res = await api('PATCH', `/api/client/accounts/peers/${id}`, c.access, { operation: 'regenerate' });
    expect(res.statusCode).toBe(200);
    await push.waitFor('success', () => true, 20_000);
    // Same client, old keys: the server no longer knows them.
    expect(await lab.ping(client.ns, '10.64.0.1', 2)).toBe(false);
    const fresh = await publicKeyOf(c.access, id);
    expect(fresh.privateKey).not.toBe(old.privateKey);
    await lab.loadClientConf(client, fresh.conf, iface);
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
    // And the internet host, through the server's NAT, with the new key. (Removed once after "2
    // failures in ~8 runs" with no recorded cause. The cause was the lab, not the product: the wan
    // bridge changed its MAC when a new client was plugged in, under the servers' ARP caches; see
    // Lab's constructor. A failure prints both ends' state, routes, neighbours and conntrack.)
    const internet = await lab.reaches(client.ns, INTERNET_HOST);
    expect(internet, internet ? '' : lab.explain(client, iface, srv[0]!.host, srv[0]!.iface)).toBe(true);
    push.close();
  });

  it('regenerate on a 2 MB plan: the bytes the old key carried since the last report still count', async () => {
    const plan2 = await createPlan(t, { name: 'Datos 2 MB', price: '1.00', dataGb: '0.002' });
    const c = await customer();
    const id = await grantPeer(c.username, srv[0]!.id, 'Cola', plan2.id);
    const client = lab.host('dpct', '198.51.100.32');
    const push = await PushClient.connect(base, c.access);
    const iface = await lab.loadClientConf(client, await download(c.access, id));
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
    // The server has heard of this key once (its first report), as for any peer in use.
    await eventually(
      async () => (await t.ctx.db.select().from(peerStats).where(eq(peerStats.peerId, id))).length > 0,
      20_000,
      'primer informe',
    );
    // About 1 MB through the tunnel, then at once a new key: most of it after the last 10 s report.
    await new Promise<void>((resolve) =>
      spawn(
        'ip',
        [
          'netns',
          'exec',
          client.ns,
          'ping',
          '-q',
          '-c',
          '400',
          '-i',
          '0.002',
          '-s',
          '1300',
          '-W',
          '1',
          '10.64.0.1',
        ],
        {
          stdio: 'ignore',
        },
      ).once('exit', () => resolve()),
    );
    // The oracle: what the client's own interface sent and received under the old key.
    const [, rx, tx] = sh('wg', ['show', iface, 'transfer']).trim().split('\t').map(Number);
    const carried = rx! + tx!;
    expect(carried).toBeGreaterThan(900_000);
    const regen = await api('PATCH', `/api/client/accounts/peers/${id}`, c.access, {
      operation: 'regenerate',
    });
    expect(regen.statusCode).toBe(200);
    await push.waitFor('success', () => true, 20_000);
    const used = async () => (await t.ctx.db.select().from(peers).where(eq(peers.id, id)))[0]!.dataUsed;
    // Reported by the old server's next stats pass (≤ 10 s), counted once: what the client saw,
    // plus at most a few handshake attempts of the dead key.
    await eventually(async () => (await used()) >= carried, 25_000, 'bytes de la clave antigua contados');
    expect(await used()).toBeLessThan(carried + 4096);
    push.close();
  });

  it('change_server: the client works through the new server and is gone from the old one', async () => {
    const c = await customer();
    const id = await grantPeer(c.username, srv[0]!.id, 'Mover');
    const client = lab.host('dpcm', '198.51.100.41');
    const push = await PushClient.connect(base, c.access);
    const before = await download(c.access, id);
    const before1 = lab.peersOn(srv[0]!.iface).length;
    const iface = await lab.loadClientConf(client, before);
    await eventually(() => lab.ping(client.ns, '10.64.0.1', 1), 20_000, 'túnel inicial');
    const res = await api('PATCH', `/api/client/accounts/peers/${id}`, c.access, {
      operation: 'change_server',
      server: srv[1]!.id,
    });
    expect(res.statusCode).toBe(200);
    await push.waitFor('success', () => true, 20_000);
    // Off the old server at once: its address no longer leads to the key (issue 24: the key is
    // retired, dead, and deleted once the next stats pass has read its last counters).
    const address = /^Address = ([\d.]+)/m.exec(before)![1]!;
    expect(sh('wg', ['show', srv[0]!.iface, 'allowed-ips'])).not.toContain(`${address}/32`);
    await eventually(() => lab.peersOn(srv[0]!.iface).length === before1 - 1, 20_000, 'clave retirada');
    const after = await download(c.access, id);
    expect(/^Endpoint = (.+)$/m.exec(after)![1]).toBe('198.51.100.2:51820');
    await lab.loadClientConf(client, after, iface);
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
    expect(await lab.reaches(client.ns, INTERNET_HOST)).toBe(true);
    push.close();
  });

  it('a disabled or expired peer disappears from the interface', async () => {
    const c = await customer();
    const disabled = await grantPeer(c.username, srv[1]!.id, 'Apagado');
    const expiring = await grantPeer(c.username, srv[1]!.id, 'Caduca');
    const client = lab.host('dpcd', '198.51.100.51');
    const conf = await download(c.access, disabled);
    await lab.loadClientConf(client, conf);
    await eventually(() => lab.ping(client.ns, '10.64.0.1', 1), 20_000, 'túnel antes de desactivar');
    const count = lab.peersOn(srv[1]!.iface).length;
    await api('PATCH', `/api/admin/peers/${disabled}`, admin, { active: false });
    await eventually(
      () => lab.peersOn(srv[1]!.iface).length === count - 1,
      20_000,
      'peer desactivado retirado',
    );
    expect(await lab.ping(client.ns, '10.64.0.1', 2)).toBe(false);
    await api('PATCH', `/api/admin/peers/${expiring}`, admin, {
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    await t.ctx.peers.disableExpired();
    await eventually(() => lab.peersOn(srv[1]!.iface).length === count - 2, 20_000, 'peer expirado retirado');
  });

  it('traffic past the plan’s data allowance ends the tunnel; adding a plan restores it', async () => {
    // 1 MB (0.001 GB, the smallest step) for 30 days.
    const small = await createPlan(t, { name: 'Datos 1 MB', price: '1.00', dataGb: '0.001' });
    const c = await customer();
    const id = await grantPeer(c.username, srv[1]!.id, 'Datos', small.id);
    const client = lab.host('dpcq', '198.51.100.81');
    await lab.loadClientConf(client, await download(c.access, id));
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
    const count = lab.peersOn(srv[1]!.iface).length;

    // About 2 MB through the tunnel (800 pings of 1.3 KB, both ways), counted by wireguard-go,
    // reported by the agent every 10 s, enforced by the scheduler's pass.
    spawnSync(
      'ip',
      [
        'netns',
        'exec',
        client.ns,
        'ping',
        '-q',
        '-c',
        '800',
        '-i',
        '0.002',
        '-s',
        '1300',
        '-W',
        '1',
        '10.64.0.1',
      ],
      {
        stdio: 'ignore',
      },
    );
    await eventually(
      async () => {
        await t.ctx.allowances.enforce();
        const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, id));
        return row!.dataExhaustedAt !== null;
      },
      40_000,
      'datos agotados',
    );
    await eventually(() => lab.peersOn(srv[1]!.iface).length === count - 1, 20_000, 'peer retirado');
    expect(await lab.ping(client.ns, '10.64.0.1', 2)).toBe(false);

    // A plan starts a new period: the same configuration works again.
    await t.ctx.peers.extendWithPlan(id, small, {});
    expect(await lab.reaches(client.ns, '10.64.0.1', 30_000)).toBe(true);
  });

  it('kill the agent, change peers, restart it: it converges to the desired state', async () => {
    const c = await customer();
    const keep = await grantPeer(c.username, srv[0]!.id, 'Queda');
    const drop = await grantPeer(c.username, srv[0]!.id, 'Se va');
    await eventually(async () => lab.peersOn(srv[0]!.iface).length > 0);
    await lab.stopAgent(srv[0]!.host.ns);
    // While the agent is away: one new peer, one disabled, one re-keyed.
    const added = await grantPeer(c.username, srv[0]!.id, 'Nuevo');
    await api('PATCH', `/api/admin/peers/${drop}`, admin, { active: false });
    const rekey = await api('PATCH', `/api/client/accounts/peers/${keep}`, c.access, {
      operation: 'regenerate',
    });
    expect(rekey.statusCode).toBe(200);
    lab.startAgent(srv[0]!.host, base, srv[0]!.token, srv[0]!.iface);
    const client = lab.host('dpck', '198.51.100.61');
    const conf = await download(c.access, added);
    await lab.loadClientConf(client, conf);
    await eventually(() => lab.ping(client.ns, '10.64.0.1', 1), 60_000, 'el agente convergió');
    const client2 = lab.host('dpck2', '198.51.100.62');
    await lab.loadClientConf(client2, await download(c.access, keep));
    expect(await lab.reaches(client2.ns, '10.64.0.1')).toBe(true);
  });

  it('an agent cut off from the control plane keeps its tunnels, then converges when the link is back', async () => {
    const c = await customer();
    const kept = await grantPeer(c.username, srv[0]!.id, 'Sigue');
    const dropped = await grantPeer(c.username, srv[0]!.id, 'Se apaga');
    // The agent reaches the control plane through a proxy that stands for its network path.
    const proxy = new Proxy({ host: '127.0.0.1', port: Number(new URL(base).port) });
    await proxy.start();
    await lab.stopAgent(srv[0]!.host.ns);
    lab.startAgent(srv[0]!.host, `http://127.0.0.1:${proxy.port}`, srv[0]!.token, srv[0]!.iface);
    const client = lab.host('dpcx', '198.51.100.91');
    const clientIface = await lab.loadClientConf(client, await download(c.access, kept));
    await eventually(() => lab.ping(client.ns, '10.64.0.1', 1), 60_000, 'túnel antes del corte');
    const other = lab.host('dpcy', '198.51.100.92');
    await lab.loadClientConf(other, await download(c.access, dropped));
    await eventually(() => lab.ping(other.ns, '10.64.0.1', 1), 20_000, 'segundo túnel antes del corte');

    const daemon = () =>
      spawnSync('pgrep', ['-f', `wireguard-go -f ${srv[0]!.iface}$`], { encoding: 'utf8' }).stdout.trim();
    const daemonBefore = daemon();
    await proxy.cut();
    const started = Date.now();
    // While cut off: one peer added, one switched off. The agent cannot know yet.
    const added = await grantPeer(c.username, srv[0]!.id, 'Nuevo en el corte');
    await api('PATCH', `/api/admin/peers/${dropped}`, admin, { active: false });
    // The tunnels it had keep working for as long as the link is down (here ~25 s).
    while (Date.now() - started < 25_000) {
      const through = await lab.ping(client.ns, '10.64.0.1', 3);
      // A failure names its cause: whether the server's daemon was replaced, and both ends' state.
      const why = through
        ? ''
        : `${Math.round((Date.now() - started) / 1000)} s tras el corte; wireguard-go del servidor ` +
          `antes ${daemonBefore || '-'}, ahora ${daemon() || '-'}\n` +
          lab.explain(client, clientIface, srv[0]!.host, srv[0]!.iface);
      expect(through, why).toBe(true);
      await new Promise((r) => setTimeout(r, 5000));
    }
    await proxy.restore();
    // Back: the new peer works, the switched-off one is gone, the kept one never stopped.
    const fresh = lab.host('dpcz', '198.51.100.93');
    await lab.loadClientConf(fresh, await download(c.access, added));
    await eventually(() => lab.ping(fresh.ns, '10.64.0.1', 1), 90_000, 'convergencia tras el corte');
    await eventually(
      async () => !(await lab.ping(other.ns, '10.64.0.1', 1)),
      20_000,
      'peer apagado retirado',
    );
    expect(await lab.ping(client.ns, '10.64.0.1', 3)).toBe(true);
    // The agent goes back to its direct link for the rest of the file.
    await lab.stopAgent(srv[0]!.host.ns);
    lab.startAgent(srv[0]!.host, base, srv[0]!.token, srv[0]!.iface);
    await proxy.cut();
  });

  it('rooms: members reach each other across two servers; outsiders and leavers do not', async () => {
    await api('PATCH', '/api/admin/settings', admin, { allow_partys: true });
    const ana = await customer();
    const luis = await customer();
    const otro = await customer();
    for (const [c, alias] of [
      [ana, 'Ana DP'],
      [luis, 'Luis DP'],
      [otro, 'Otro DP'],
    ] as const) {
      expect((await api('PATCH', '/api/client/settings', c.access, { alias })).statusCode).toBe(200);
    }
    const idA = await grantPeer(ana.username, srv[0]!.id, 'PC Ana');
    const idB = await grantPeer(luis.username, srv[1]!.id, 'PC Luis');
    const idC = await grantPeer(otro.username, srv[0]!.id, 'PC Otro');
    const ca = lab.host('dpra', '198.51.100.71');
    const cb = lab.host('dprb', '198.51.100.72');
    const cc = lab.host('dprc', '198.51.100.73');
    const confA = await download(ana.access, idA);
    const confB = await download(luis.access, idB);
    await lab.loadClientConf(ca, confA);
    await lab.loadClientConf(cb, confB);
    await lab.loadClientConf(cc, await download(otro.access, idC));
    const addrA = /^Address = (.+)\/32$/m.exec(confA)![1]!;
    const addrB = /^Address = (.+)\/32$/m.exec(confB)![1]!;
    expect(await lab.reaches(ca.ns, '10.64.0.1')).toBe(true);
    expect(await lab.reaches(cb.ns, '10.64.0.1')).toBe(true);
    expect(await lab.ping(ca.ns, addrB, 2)).toBe(false);

    const room = await api('POST', '/api/client/network/partys', ana.access, { name: 'LAN DP', peer: idA });
    expect(room.statusCode, room.body).toBe(201);
    const join = await api('PATCH', '/api/client/network/partys', luis.access, {
      operation: 'join',
      name: 'LAN DP',
      password: room.json().password,
      peer: idB,
    });
    expect(join.statusCode).toBe(200);
    expect(await lab.reaches(ca.ns, addrB, 30_000)).toBe(true);
    expect(await lab.reaches(cb.ns, addrA)).toBe(true);
    // Not in the room: still isolated, even on Ana's own server.
    expect(await lab.ping(cc.ns, addrA, 2)).toBe(false);

    const leave = await api('PATCH', `/api/client/network/partys/${room.json().id}`, luis.access, {
      operation: 'leave',
      peer: idB,
    });
    expect(leave.statusCode).toBe(200);
    await eventually(async () => !(await lab.ping(ca.ns, addrB, 1)), 30_000, 'aislados otra vez');
  });
});
