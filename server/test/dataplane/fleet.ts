/**
 * The control plane and two VPN servers the data-plane tests share: the test app listening on a real
 * port, an owner's token, a 30-day plan, two servers created through the admin API (198.51.100.1 and
 * .2, rooms allowed) each with the real agent running in its namespace, and the calls a test makes
 * through the public API (customers, peers, `.conf` downloads). Each test file makes its own:
 *
 *     const fleet = new Fleet({ prefix: 'dp' });
 *     beforeAll(() => fleet.start());
 *     afterAll(() => fleet.close());
 */
import { expect } from 'vitest';
import {
  bearer,
  confirmed,
  createCustomer,
  createPlan,
  createTestApp,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../helpers.ts';
import { Lab, eventually, uniqueName, type Host } from './network.ts';

export interface FleetServer {
  host: Host;
  id: number;
  /** The agent's token (to start it again). */
  token: string;
  /** Its WireGuard interface (unique on the machine: interfaces live in the root namespace's UAPI). */
  iface: string;
}

export interface FleetOptions {
  /** Starts the names of the servers' namespaces (`<prefix>s0`) and interfaces (`<prefix>wg…`). */
  prefix: string;
  /** What the test app is built with besides `scheduler: false`. */
  app?: Omit<NonNullable<Parameters<typeof createTestApp>[0]>, 'scheduler'>;
  /** Site settings (Ajustes) set through the API before the servers are created. */
  settings?: object;
}

type Method = 'GET' | 'POST' | 'PATCH';

export class Fleet {
  lab!: Lab;
  t!: TestApp;
  /** The app's base URL (agents and push sockets connect to it). */
  base!: string;
  /** An owner's access token. */
  admin!: string;
  planId!: number;
  readonly servers: FleetServer[] = [];

  constructor(private readonly options: FleetOptions) {}

  /** Everything up, both agents online (a failure half-way cleans up what was made). */
  async start(): Promise<this> {
    try {
      this.lab = new Lab();
      this.t = await createTestApp({ scheduler: false, ...this.options.app });
      this.base = await listen(this.t);
      this.admin = await managerToken(this.t);
      this.planId = (await createPlan(this.t)).id;
      if (this.options.settings) {
        const res = await this.api('PATCH', '/api/admin/settings', this.admin, this.options.settings);
        expect(res.statusCode, res.body).toBe(200);
      }
      const { prefix } = this.options;
      for (const [i, address] of ['198.51.100.1', '198.51.100.2'].entries()) {
        const host = this.lab.host(`${prefix}s${i}`, address);
        const iface = uniqueName(`${prefix}wg`);
        const res = await this.api(
          'POST',
          '/api/admin/servers',
          this.admin,
          {
            name: `Servidor ${i + 1}`,
            endpoint: `${address}:51820`,
            ubication: 'Lab',
            interface_name: iface,
            allow_partys: true,
          },
          await confirmed(this.t, this.admin),
        );
        expect(res.statusCode, res.body).toBe(201);
        const { server, agent_token } = res.json();
        this.servers.push({ host, id: server.id, token: agent_token, iface });
        this.lab.startAgent(host, this.base, agent_token, iface);
      }
      await eventually(
        async () =>
          (await this.api('GET', '/api/admin/servers', this.admin))
            .json<{ results: { agent_online: boolean }[] }>()
            .results.every((s) => s.agent_online),
        60_000,
        'agentes en línea',
      );
      return this;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.t?.close();
    await this.lab?.cleanup();
  }

  /** A request to the app with a bearer token. */
  api = (method: Method, url: string, token: string, payload?: object, headers = bearer(token)) =>
    this.t.app.inject({ method, url, headers, payload });

  /** A new customer, signed in. */
  customer = async () => {
    const c = await createCustomer(this.t);
    const { access } = await login(this.t, c.username, c.password);
    return { ...c, access };
  };

  /** The owner grants `username` a peer on a server (the fleet's plan unless told); answers its id. */
  grantPeer = async (username: string, serverId: number, name = 'Móvil', plan = this.planId) =>
    (await this.peer(username, serverId, name, plan)).id;

  /**
   * A room member: a new customer with an alias (Ajustes) and one peer on a server, named
   * `PC <alias>` unless told.
   */
  member = async (alias: string, serverId: number, peerName = `PC ${alias}`) => {
    const c = await this.customer();
    expect((await this.api('PATCH', '/api/client/settings', c.access, { alias })).statusCode).toBe(200);
    const peer = await this.peer(c.username, serverId, peerName, this.planId);
    return { access: c.access, id: peer.id, address: peer.address };
  };

  /** The customer downloads a peer's `.conf` (`query`: `?scope=room` for the room-only file). */
  download = async (access: string, id: number, query = '') => {
    const res = await this.api('GET', `/api/client/accounts/peers/${id}${query}`, access);
    expect(res.statusCode, res.body).toBe(200);
    return res.body;
  };

  private async peer(username: string, serverId: number, name: string, plan: number) {
    const res = await this.api('POST', '/api/admin/peers', this.admin, {
      username,
      plan,
      name,
      server: serverId,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number; address: string }>();
  }
}
