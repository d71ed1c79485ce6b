/**
 * A tunnel reaches the internet and nothing of the VPN server's surroundings: its private (RFC 1918)
 * and link-local networks — cloud metadata at 169.254.169.254 included — stay out of reach, and so
 * does the host itself beyond pings to its tunnel address. The hosts live in the test's own
 * namespaces, on the wan bridge next to the VPN server, which has an address on each of their
 * networks (like a cloud VM) so that without the firewall the tunnel would reach them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ECHO_ADDRESS_SERVER, tcpGet, tcpGetRetry } from '../../../agent/src/testing/tcp.ts';
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
import { INTERNET_HOST, Lab, dataplaneSkipReason, eventually, sh, uniqueName, type Host } from './network.ts';

const skip = dataplaneSkipReason();
const METADATA = '169.254.169.254';
const PRIVATE_HOST = '192.168.77.10';
/** The VPN server's own addresses on those networks. */
const SERVER_LINK_LOCAL = '169.254.0.2';
const SERVER_PRIVATE = '192.168.77.2';
const HOST_PORT = 2222;

describe.skipIf(skip !== null)(`data plane: private networks${skip ? ` (omitido: ${skip})` : ''}`, () => {
  let lab: Lab;
  let t: TestApp;
  let server: Host;
  let client: Host;

  beforeAll(async () => {
    lab = new Lab();
    t = await createTestApp({ scheduler: false });
    const base = await listen(t);
    const admin = await managerToken(t);
    const api = (method: 'GET' | 'POST', url: string, payload?: object, headers = bearer(admin)) =>
      t.app.inject({ method, url, headers, payload });
    const [plan] = await t.ctx.db
      .insert(plans)
      .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days' })
      .returning();

    server = lab.host('dpps', '198.51.100.1');
    const metadata = lab.host('dppm', '198.51.100.201');
    const lan = lab.host('dppl', '198.51.100.202');
    sh('ip', ['-n', metadata.ns, 'address', 'add', `${METADATA}/16`, 'dev', metadata.iface]);
    sh('ip', ['-n', lan.ns, 'address', 'add', `${PRIVATE_HOST}/24`, 'dev', lan.iface]);
    sh('ip', ['-n', server.ns, 'address', 'add', `${SERVER_LINK_LOCAL}/16`, 'dev', server.iface]);
    sh('ip', ['-n', server.ns, 'address', 'add', `${SERVER_PRIVATE}/24`, 'dev', server.iface]);
    // Something listening on every address of the VPN server (an SSH or an agent port).
    await lab.net.startProcess(server.ns, process.execPath, ['-e', ECHO_ADDRESS_SERVER, String(HOST_PORT)]);

    const iface = uniqueName('dppw');
    const created = await api(
      'POST',
      '/api/admin/servers',
      { name: 'Privado', endpoint: `${server.address}:51820`, ubication: 'Lab', interface_name: iface },
      await confirmed(t, admin),
    );
    expect(created.statusCode).toBe(201);
    lab.startAgent(server, base, created.json().agent_token, iface);
    await eventually(
      async () =>
        (await api('GET', '/api/admin/servers')).json<{ results: { agent_online: boolean }[] }>().results[0]!
          .agent_online,
      60_000,
      'agente en línea',
    );

    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    const peer = await api('POST', '/api/admin/peers', {
      username: c.username,
      plan: plan!.id,
      name: 'Móvil',
      server: created.json().server.id,
    });
    expect(peer.statusCode).toBe(201);
    await eventually(() => lab.peersOn(iface).length > 0, 20_000, 'peer en la interfaz');
    const conf = await t.app.inject({
      method: 'GET',
      url: `/api/client/accounts/peers/${peer.json().id}`,
      headers: bearer(access),
    });
    client = lab.host('dppc', '198.51.100.11');
    const wg = await lab.loadClientConf(client, conf.body);
    // The client sends these through its tunnel, as a full-tunnel client (AllowedIPs 0.0.0.0/0) does.
    for (const target of [METADATA, PRIVATE_HOST, SERVER_LINK_LOCAL, SERVER_PRIVATE])
      sh('ip', ['-n', client.ns, 'route', 'replace', `${target}/32`, 'dev', wg]);
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
  });

  afterAll(async () => {
    await t?.close();
    await lab?.cleanup();
  });

  it('the hosts answer the VPN server itself (so only the firewall keeps the tunnel out)', async () => {
    expect(await lab.ping(server.ns, METADATA)).toBe(true);
    expect(await lab.ping(server.ns, PRIVATE_HOST)).toBe(true);
  });

  it('a tunnel client reaches the internet host but not the metadata address nor the private host', async () => {
    expect(await lab.reaches(client.ns, INTERNET_HOST)).toBe(true);
    expect(await lab.ping(client.ns, METADATA, 2)).toBe(false);
    expect(await lab.ping(client.ns, PRIVATE_HOST, 2)).toBe(false);
  });

  it('the host answers pings on its tunnel address, and nothing else of it is reachable', async () => {
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
    // The listener answers locally, and from the internet side through the uplink…
    expect(await tcpGet(server.ns, '127.0.0.1', HOST_PORT)).toBe('127.0.0.1');
    expect(await tcpGetRetry(lab.wan, server.address, HOST_PORT, 2)).toBe(INTERNET_HOST);
    // …but not from the tunnel, on the tunnel address or the host's other addresses.
    for (const target of ['10.64.0.1', SERVER_PRIVATE, SERVER_LINK_LOCAL])
      expect(await tcpGet(client.ns, target, HOST_PORT, 1500), target).toBeNull();
    expect(await lab.ping(client.ns, SERVER_PRIVATE, 2)).toBe(false);
    expect(await lab.ping(client.ns, SERVER_LINK_LOCAL, 2)).toBe(false);
  });
});
