/**
 * The production topology of docs/deploy.md, on this machine: the repository's deploy/ files
 * installed with the guide's own commands (paths moved into a temporary root), Caddy with a local
 * CA (`tls internal`, the only change besides names and ports) in front of two compiled panel
 * instances started as their systemd unit says, on PostgreSQL; a VPN server's agent running inside
 * its network namespace and dialing the panel over wss:// through Caddy, trusting the CA through
 * NODE_EXTRA_CA_CERTS; a customer buying through https in the sandbox and bringing the tunnel up.
 *
 * PostgreSQL comes from DATAPLANE_DATABASE_URL (the data-plane suite blanks TEST_DATABASE_URL;
 * scripts/test-all.mjs passes it under this name).
 *
 * Over 400 lines on purpose: one topology (PostgreSQL, two instances, Caddy, the namespaces), built
 * once by following docs/deploy.md step by step in beforeAll, serves every case; split into files,
 * each would build it again (about 20 s of a shared CI machine each). Helpers live in deploy.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { msg } from '@vpn/contracts';
import { customers } from '../../src/db/schema.ts';
import { openDatabase } from '../../src/db/client.ts';
import { testHash } from '../helpers.ts';
import { freePort } from '../serverProcess.ts';
import {
  HttpsClient,
  ROOT,
  accepts,
  Service,
  caddyRoot,
  curl,
  deploySkipReason,
  inSystemTrust,
  localPostgresAdmin,
  unprivilegedUser,
  readEnvFile,
  readUnit,
  runDocCommand,
} from './deploy.ts';
import { Lab, dataplaneSkipReason, eventually, sh, uniqueName, type Host } from './network.ts';

const DATABASE_URL = process.env.DATAPLANE_DATABASE_URL;
const skip = dataplaneSkipReason() ?? deploySkipReason(DATABASE_URL);
// On CI (root, PostgreSQL, caddy and curl installed by .ci/run) the deployment must be tried:
// omitting it would pass CI without a word.
if (process.env.CI && skip) throw new Error(`CI: la prueba del despliegue no puede omitirse: ${skip}`);
const NAME = 'panel.vpn.test';
/** The panel's address on the test's wan, as VPN servers reach it (the VPS's public address). */
const EDGE = '198.51.100.200';

describe.skipIf(skip !== null)(`deployment behind Caddy${skip ? ` (omitido: ${skip})` : ''}`, () => {
  let tmp = '';
  const database = `vpn_deploy_${process.pid}_${Date.now().toString(36)}`;
  const instances: Service[] = [];
  let caddy: Service | undefined;
  let lab: Lab | undefined;
  let agent: ChildProcess | undefined;
  let agentLines: string[] = [];
  let serverHost: Host;
  let edgeLink = '';
  const serverIface = uniqueName('dpdw');
  let ports: { panel: number[]; https: number; http: number };
  let site: string;
  let base: string;
  let ca: string;
  let moves: [string, string][];
  let envFile: string;
  let databaseUrl: string;
  let createdRole = false;
  let curlEnv: NodeJS.ProcessEnv;
  let admin: string;
  let planId: number;
  let serverId: number;

  // The guide's database and configuration, in one shell session as the guide has them typed (its
  // role and database `vpn` become the test's own). Without a local cluster to administer as the
  // postgres user, the test creates the database through its URL and writes that URL instead.
  const config = [
    'cd /opt/vpn-panel',
    'install -d -m 700 /etc/vpn-panel',
    'install -m 600 deploy/panel.env.example /etc/vpn-panel/panel.env',
    "sed -i 's|^PUBLIC_URL=.*|PUBLIC_URL=https://panel.midominio.com|' /etc/vpn-panel/panel.env",
    "sed -i '/^SECRET_KEY=/d; /^DATABASE_URL=/d' /etc/vpn-panel/panel.env",
    `printf 'SECRET_KEY=%s\\n' "$(openssl rand -base64 48)" >> /etc/vpn-panel/panel.env`,
    `printf 'DATABASE_URL=postgres://vpn:%s@127.0.0.1:5432/vpn\\n' "$CLAVE_PG" >> /etc/vpn-panel/panel.env`,
    `printf 'METRICS_TOKEN=%s\\n' "$(openssl rand -hex 24)" >> /etc/vpn-panel/panel.env`,
  ];
  /**
   * The panel as its unit starts it (WorkingDirectory, ExecStart, EnvironmentFile, systemd's clean
   * environment) and as an unprivileged user that cannot write the repository (User=vpn-panel,
   * ProtectSystem=strict): it must write nowhere but its DATA_DIR (0700, its own).
   */
  let user: { uid: number; gid: number };
  async function startPanel(env: Record<string, string>, dataDir: string): Promise<Service> {
    const unit = readUnit(join(ROOT, 'deploy/vpn-panel.service'));
    expect(unit.EnvironmentFile).toBe('/etc/vpn-panel/panel.env');
    const [exe, ...args] = unit.ExecStart!.split(/\s+/);
    mkdirSync(dataDir, { mode: 0o700 });
    chownSync(dataDir, user.uid, user.gid);
    const service = new Service(existsSync(exe!) ? exe! : process.execPath, args, {
      cwd: unit.WorkingDirectory!.replace('/opt/vpn-panel', ROOT),
      env: { PATH: process.env.PATH, ...env, DATA_DIR: dataDir },
      ...user,
    });
    await service.waitForLine(/escuchando en/, 120_000);
    expect(readFileSync(`/proc/${service.child.pid}/status`, 'utf8')).toMatch(
      new RegExp(`^Uid:\\s+${user.uid}\\s`, 'm'),
    );
    return service;
  }

  const panelRequests = () =>
    instances.flatMap((s, i) => s.records().flatMap((r) => (r.req ? [{ i, ...r.req }] : [])));

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'vpn-deploy-'));
    const built = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/build.mjs'), '--if-stale', 'server', 'web', 'agent'],
      {
        stdio: 'inherit',
      },
    );
    expect(built.status).toBe(0);
    user = unprivilegedUser();
    ports = { panel: [await freePort(), await freePort()], https: await freePort(), http: await freePort() };
    site = `${NAME}:${ports.https}`;
    base = `https://${site}`;
    moves = [
      ['/etc/vpn-panel', join(tmp, 'conf-panel')],
      ['/etc/caddy', join(tmp, 'conf-caddy')],
      ['/var/backups/vpn-panel', join(tmp, 'backups')],
      ['/opt/vpn-panel', ROOT],
      ['panel.midominio.com', site],
      ['127.0.0.1:8080', `127.0.0.1:${ports.panel[0]}`],
    ];
    const admin0 = new URL(DATABASE_URL!);
    if (localPostgresAdmin(DATABASE_URL!)) {
      runDocCommand(
        [
          'CLAVE_PG=$(openssl rand -hex 24)',
          `printf "CREATE ROLE vpn LOGIN PASSWORD '%s';\\n" "$CLAVE_PG" | runuser -u postgres -- psql -q`,
          'runuser -u postgres -- createdb --owner=vpn vpn',
          ...config,
        ],
        [
          ...moves,
          ['ROLE vpn LOGIN', `ROLE ${database} LOGIN`],
          ['--owner=vpn vpn', `--owner=${database} ${database}`],
          ['postgres://vpn:%s@127.0.0.1:5432/vpn', `postgres://${database}:%s@127.0.0.1:5432/${database}`],
        ],
      );
      createdRole = true;
    } else {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      await c.query(`create database ${database}`);
      await c.end();
      runDocCommand(
        config,
        [
          ...moves,
          [
            'postgres://vpn:%s@127.0.0.1:5432/vpn',
            `${admin0.protocol}//${admin0.username}:%s@${admin0.host}/${database}`,
          ],
        ],
        { CLAVE_PG: admin0.password },
      );
    }
    envFile = join(tmp, 'conf-panel/panel.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    // The test's only addition: the sandbox gateway, to buy without a real one.
    appendFileSync(envFile, 'PAYMENTS_SANDBOX=true\n');

    // Two instances, each started as the unit says (working directory, ExecStart, EnvironmentFile),
    // with systemd's clean environment; the second one on its own port and data directory.
    const fileEnv = readEnvFile(envFile);
    databaseUrl = fileEnv.DATABASE_URL!;
    chmodSync(tmp, 0o711);
    for (const [i, port] of ports.panel.entries())
      instances.push(await startPanel({ ...fileEnv, PORT: String(port) }, join(tmp, `data-${i}`)));

    // Caddy, installed as the guide says; then the test's own changes: its local CA (never put in the
    // system's trust store), unique ports, no admin endpoint, and the second instance upstream.
    mkdirSync(join(tmp, 'conf-caddy'));
    runDocCommand('install -m 644 deploy/Caddyfile /etc/caddy/Caddyfile', moves);
    runDocCommand(
      "sed -i 's/panel.example.com/panel.midominio.com/; s/admin@example.com/yo@midominio.com/' /etc/caddy/Caddyfile",
      moves,
    );
    const caddyEnv = {
      PATH: process.env.PATH,
      HOME: join(tmp, 'caddy-home'),
      XDG_DATA_HOME: join(tmp, 'caddy-data'),
      XDG_CONFIG_HOME: join(tmp, 'caddy-config'),
    };
    runDocCommand('caddy validate --config /etc/caddy/Caddyfile', moves, caddyEnv);
    const caddyfile = join(tmp, 'conf-caddy/Caddyfile');
    const production = readFileSync(caddyfile, 'utf8');
    const edits: [string, string][] = [
      [
        '\n{\n',
        `\n{\n\tadmin off\n\tskip_install_trust\n\thttp_port ${ports.http}\n\thttps_port ${ports.https}\n`,
      ],
      [`\n${site} {\n`, `\n${site} {\n\ttls internal\n`],
      [
        'reverse_proxy 127.0.0.1:8080 {',
        `reverse_proxy ${ports.panel.map((p) => `127.0.0.1:${p}`).join(' ')} {`,
      ],
    ];
    let local = production;
    for (const [from, to] of edits) {
      expect(local, `el Caddyfile ya no tiene «${from.trim()}»`).toContain(from);
      local = local.replace(from, to);
    }
    writeFileSync(caddyfile, local);
    caddy = new Service('caddy', ['run', '--environ', '--config', caddyfile], { cwd: tmp, env: caddyEnv });
    ca = caddyRoot(caddyEnv.XDG_DATA_HOME);
    await eventually(() => existsSync(ca), 30_000, 'CA local de Caddy');
    // curl as the guide writes it: the CA and the name's address come from a .curlrc.
    writeFileSync(join(tmp, '.curlrc'), `cacert = "${ca}"\nresolve = "${site}:127.0.0.1"\n`);
    curlEnv = { CURL_HOME: tmp };
    await eventually(
      () => curl(['-f', '-o', '/dev/null', `${base}/healthz`], ca, `${site}:127.0.0.1`).status === 0,
      30_000,
      'HTTPS a través de Caddy',
    );

    // The VPN server's network: its namespace on the test's wan, and this machine (the panel's VPS)
    // reachable from it at EDGE; the panel's name resolves there through /etc/netns/NS/hosts.
    lab = new Lab();
    serverHost = lab.host('dpds', '198.51.100.1');
    edgeLink = uniqueName('dpe');
    const edgePeer = uniqueName('dpf');
    sh('ip', ['link', 'add', edgeLink, 'type', 'veth', 'peer', 'name', edgePeer, 'netns', lab.wan]);
    sh('ip', ['-n', lab.wan, 'link', 'set', edgePeer, 'master', lab.bridge]);
    sh('ip', ['-n', lab.wan, 'link', 'set', edgePeer, 'up']);
    sh('ip', ['address', 'add', `${EDGE}/32`, 'dev', edgeLink]);
    sh('ip', ['link', 'set', edgeLink, 'up']);
    sh('ip', ['route', 'add', `${serverHost.address}/32`, 'dev', edgeLink, 'src', EDGE]);
    mkdirSync(`/etc/netns/${serverHost.ns}`, { recursive: true });
    writeFileSync(`/etc/netns/${serverHost.ns}/hosts`, `127.0.0.1 localhost\n${EDGE} ${NAME}\n`);
  });

  afterAll(async () => {
    if (agent && agent.exitCode === null) {
      const a = agent;
      await new Promise<void>((r) => {
        a.once('exit', () => r());
        a.kill('SIGTERM');
      });
    }
    const pids = spawnSync('pgrep', ['-f', `wireguard-go -f ${serverIface}$`], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number);
    lab?.net.track(serverIface);
    await lab?.net.cleanup(pids);
    await lab?.cleanup();
    if (edgeLink) spawnSync('ip', ['link', 'del', edgeLink], { stdio: 'ignore' });
    if (serverHost) rmSync(`/etc/netns/${serverHost.ns}`, { recursive: true, force: true });
    await caddy?.stop();
    for (const s of instances) await s.stop();
    if (DATABASE_URL) {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${database} with (force)`).catch(() => {});
      if (createdRole) await c.query(`drop role if exists ${database}`).catch(() => {});
      await c.end();
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  // On a failure, what the operator would read in the journals: the agent's and each unit's last lines.
  afterEach(({ task }) => {
    if (task.result?.state !== 'fail') return;
    const tail = (lines: string[]) => lines.slice(-25).join('\n');
    console.error(
      `agente:\n${tail(agentLines)}\n` +
        instances.map((s, i) => `instancia ${i}:\n${tail(s.lines)}`).join('\n') +
        `\ncaddy:\n${tail(caddy?.lines ?? [])}`,
    );
  });

  const manager = () => new HttpsClient(base, readFileSync(ca, 'utf8'), '127.0.0.31');

  function startAgent(token: string, trustCa: boolean): ChildProcess {
    agentLines = [];
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        serverHost.ns,
        process.execPath,
        join(ROOT, 'agent/dist/main.js'),
        '--state-dir',
        join(tmp, 'agent-state'),
        '--repair-interval',
        '10',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH,
          AGENT_URL: base,
          AGENT_TOKEN: token,
          AGENT_LOG_LEVEL: 'info',
          ...(trustCa ? { NODE_EXTRA_CA_CERTS: ca } : {}),
        },
      },
    );
    const take = (d: Buffer) => agentLines.push(...d.toString().split('\n').filter(Boolean));
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    return child;
  }

  it('the first manager, printed once, signs in over https and adds a server whose agent connects over wss', async () => {
    const line = await instances[0]!.waitForLine(/Gestor inicial creado/);
    const password = /contraseña "([^"]+)"/.exec(line)![1]!;
    // Printed by the first instance only: the second found the manager in the shared database.
    expect(instances[1]!.lines.some((l) => l.includes('Gestor inicial'))).toBe(false);
    const m = manager();
    ({ access: admin } = await m.json<{ access: string }>('POST', '/api/admin/login', {
      json: { username: 'admin', password },
    }));
    ({ id: planId } = await m.json<{ id: number }>('POST', '/api/admin/plans', {
      token: admin,
      json: { name: 'Mensual', price: '3.00', validity_days: 30 },
    }));
    // Adding a server needs the password given again (X-Reauth, issue 31).
    const { token: proof } = await m.json<{ token: string }>('POST', '/api/admin/me/reauth', {
      token: admin,
      json: { password },
    });
    const created = await m.json<{ server: { id: number }; agent_token: string }>(
      'POST',
      '/api/admin/servers',
      {
        token: admin,
        headers: { 'x-reauth': proof },
        json: {
          name: 'Nodo 1',
          endpoint: `${serverHost.address}:51820`,
          ubication: 'Lab',
          interface_name: serverIface,
        },
      },
    );
    serverId = created.server.id;

    // Without the CA the agent refuses Caddy's certificate and keeps retrying.
    agent = startAgent(created.agent_token, false);
    await eventually(
      () => agentLines.some((l) => /certificate|certificado/i.test(l)),
      30_000,
      'el agente rechaza el certificado',
    );
    const refused = agent;
    await new Promise<void>((r) => {
      refused.once('exit', () => r());
      refused.kill('SIGTERM');
    });
    const online = async () =>
      (
        await m.json<{ results: { id: number; agent_online: boolean }[] }>('GET', '/api/admin/servers', {
          token: admin,
        })
      ).results.find((s) => s.id === serverId)?.agent_online === true;
    expect(await online()).toBe(false);

    // With NODE_EXTRA_CA_CERTS it connects, through Caddy, and brings the interface up.
    agent = startAgent(created.agent_token, true);
    await eventually(online, 60_000, 'agente en línea');
    await eventually(
      () =>
        spawnSync('wg', ['show', serverIface, 'listen-port'], { encoding: 'utf8' }).stdout.trim() === '51820',
      30_000,
      'interfaz del servidor en 51820',
    );
    // The panel saw the agent's own address (Caddy's X-Forwarded-For), not Caddy's.
    const dials = panelRequests().filter((r) => r.url === '/api/agent/ws');
    expect(dials.length).toBeGreaterThan(0);
    expect(new Set(dials.map((d) => d.ip))).toEqual(new Set([serverHost.address]));
  });

  it('a customer signs in, buys in the sandbox, gets the push over wss and a .conf that works', async () => {
    const pool = await openDatabase({ databaseUrl, poolSize: 1 });
    await pool.db
      .insert(customers)
      .values({ username: 'cliente1', passwordHash: await testHash('clave-del-cliente') });
    await pool.close();
    const c = new HttpsClient(base, readFileSync(ca, 'utf8'), '127.0.0.23');
    // A forged X-Forwarded-For: Caddy replaces it with the real address.
    const { access } = await c.json<{ access: string }>('POST', '/api/client/login', {
      json: { username: 'cliente1', password: 'clave-del-cliente' },
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    const push = await c.push(access);
    try {
      const invoice = await c.json<{ id: string; payment_url: string }>('PUT', '/api/client/invoices', {
        token: access,
        json: { operation: 'new_peer', peer: 'Móvil', plan: planId },
      });
      expect(invoice.payment_url).toBe(`${base}/api/payments/sandbox/${invoice.id}`);
      const page = await c.request('GET', new URL(invoice.payment_url).pathname);
      expect(page.status).toBe(200);
      const paid = await c.request('POST', `/api/payments/sandbox/${invoice.id}/pay`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      expect(paid.status).toBe(303);
      expect(paid.headers.location).toContain('status=success');

      const created = (await push.waitFor('created_peer')) as unknown as { peer: { id: number } };
      const conf = await c.request('GET', `/api/client/accounts/peers/${created.peer.id}`, { token: access });
      expect(conf.status).toBe(200);
      expect(conf.body).toMatch(
        new RegExp(`^Endpoint = ${serverHost.address.replace(/\./g, '\\.')}:51820$`, 'm'),
      );

      // The .conf brings a tunnel up through the server the agent configured over wss.
      await eventually(() => lab!.peersOn(serverIface).length === 1, 60_000, 'peer en la interfaz');
      const client = lab!.host('dpdc', '198.51.100.11');
      await lab!.loadClientConf(client, conf.body);
      expect(await lab!.reaches(client.ns, '10.64.0.1')).toBe(true);
    } finally {
      push.close();
    }

    // Every request of this customer was logged with its own address.
    const mine = panelRequests().filter(
      (r) => r.url === '/api/client/login' || r.url.startsWith('/api/client/invoices'),
    );
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(new Set(mine.map((r) => r.ip))).toEqual(new Set(['127.0.0.23']));
    // Both instances served behind Caddy (least_conn: the agent's socket held one, the push the other).
    expect(
      new Set(
        panelRequests()
          .filter((r) => r.ip !== '127.0.0.1')
          .map((r) => r.i),
      ),
    ).toEqual(new Set([0, 1]));
  });

  it('TRUST_PROXY trusts the proxy only: a client talking to the panel directly cannot pick its address', async () => {
    const direct = spawnSync(
      'curl',
      [
        '-sS',
        '-o',
        '/dev/null',
        '--interface',
        '127.0.0.41',
        '-H',
        'x-forwarded-for: 203.0.113.77',
        `http://127.0.0.1:${ports.panel[1]}/api/client/plans`,
      ],
      { encoding: 'utf8' },
    );
    expect(direct.status).toBe(0);
    await eventually(
      () => panelRequests().some((r) => r.i === 1 && r.ip === '127.0.0.41'),
      10_000,
      'registro',
    );
    expect(panelRequests().some((r) => r.ip === '203.0.113.77')).toBe(false);
  });

  it("a 2 MB body gets the panel's 413 JSON through Caddy, every time, in HTTP/1.1 and HTTP/2", async () => {
    // Before the panel kept the connection open on 413, about 1 in 15 of these was Caddy's 502.
    const c = new HttpsClient(base, readFileSync(ca, 'utf8'), '127.0.0.24');
    const big = Buffer.alloc(2 * 1024 * 1024, 'a');
    for (let i = 0; i < 20; i++) {
      const res = await c.request('POST', '/api/client/login', {
        headers: { 'content-type': 'application/json' },
        body: big,
      });
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toMatchObject({ message: 'La solicitud es demasiado grande' });
    }
    const file = join(tmp, 'big.json');
    writeFileSync(file, big);
    for (let i = 0; i < 20; i++) {
      const h2 = curl(
        [
          '--http2',
          '-o',
          '/dev/null',
          '-w',
          '%{http_version} %{http_code}',
          '-H',
          'content-type: application/json',
          '--data-binary',
          `@${file}`,
          `${base}/api/client/login`,
        ],
        ca,
        `${site}:127.0.0.1`,
      );
      expect(h2.out).toBe('2 413');
    }
  });

  it("serves HTTP/2, announces HTTP/3, redirects http:// and keeps the hashed assets' headers", () => {
    const resolve = `${site}:127.0.0.1`;
    const version = curl(
      ['--http2', '-o', '/dev/null', '-w', '%{http_version}', `${base}/healthz`],
      ca,
      resolve,
    );
    expect(version.out).toBe('2');
    const head = curl(['--http2', '-D', '-', '-o', '/dev/null', `${base}/healthz`], ca, resolve).out;
    expect(head).toMatch(new RegExp(`^alt-svc: .*h3=":${ports.https}"`, 'mi'));
    expect(head).toMatch(/^strict-transport-security: max-age=\d+/im);
    // HTTP/3 is QUIC: Caddy listens on the same port in UDP.
    expect(spawnSync('ss', ['-Hulnp', `sport = :${ports.https}`], { encoding: 'utf8' }).stdout).toContain(
      'caddy',
    );
    const redirect = spawnSync(
      'curl',
      [
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code} %{redirect_url}',
        '-H',
        `host: ${NAME}`,
        `http://127.0.0.1:${ports.http}/x`,
      ],
      {
        encoding: 'utf8',
      },
    ).stdout;
    expect(redirect).toMatch(new RegExp(`^308 https://${NAME.replace(/\./g, '\\.')}`));

    const asset = readdirSync(join(ROOT, 'web/dist/assets')).find((f) => f.endsWith('.js'))!;
    const headers = (out: string) =>
      Object.fromEntries(
        out
          .split(/\r?\n/)
          .map((l) => /^([a-z-]+): (.*)$/i.exec(l))
          .filter((m) => m !== null)
          .map((m) => [m[1]!.toLowerCase(), m[2]!.trim()]),
      );
    const direct = headers(
      spawnSync(
        'curl',
        [
          '-sS',
          '-D',
          '-',
          '-o',
          '/dev/null',
          '-H',
          'accept-encoding: br',
          `http://127.0.0.1:${ports.panel[0]}/assets/${asset}`,
        ],
        {
          encoding: 'utf8',
        },
      ).stdout,
    );
    const proxied = headers(
      curl(
        ['--http2', '-D', '-', '-o', '/dev/null', '-H', 'accept-encoding: br', `${base}/assets/${asset}`],
        ca,
        resolve,
      ).out,
    );
    expect(direct['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const h of ['cache-control', 'content-encoding', 'etag', 'content-type', 'vary'])
      expect(proxied[h], h).toBe(direct[h]);
  });

  it("with no instance answering, Caddy serves the build's maintenance page: 503, Retry-After, no cache", async () => {
    // With the panels up, / through Caddy is the panel's own page.
    const resolve = `${site}:127.0.0.1`;
    const up = curl(['-D', '-', `${base}/`], ca, resolve).out;
    expect(up).toMatch(/^HTTP\/\S+ 200/);
    expect(up).not.toContain('Servicio en Mantenimiento');

    // Every instance down: a second Caddy from the same installed Caddyfile (the test's edits, the
    // install path moved to this checkout), whose only upstream has nothing listening.
    const p = { http: await freePort(), https: await freePort(), dead: await freePort() };
    const downSite = `${NAME}:${p.https}`;
    let text = readFileSync(join(tmp, 'conf-caddy/Caddyfile'), 'utf8');
    const edits: [string, string][] = [
      [`http_port ${ports.http}\n`, `http_port ${p.http}\n`],
      [`https_port ${ports.https}\n`, `https_port ${p.https}\n`],
      [`\n${site} {\n`, `\n${downSite} {\n`],
      [ports.panel.map((port) => `127.0.0.1:${port}`).join(' '), `127.0.0.1:${p.dead}`],
      ['root * /opt/vpn-panel/web/dist', `root * ${ROOT}/web/dist`],
    ];
    for (const [from, to] of edits) {
      expect(text, `el Caddyfile ya no tiene «${from.trim()}»`).toContain(from);
      text = text.replace(from, to);
    }
    const dir = join(tmp, 'caddy-down');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Caddyfile'), text);
    const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: dir };
    const down = new Service('caddy', ['run', '--config', join(dir, 'Caddyfile')], { cwd: dir, env });
    try {
      const downCa = caddyRoot(env.XDG_DATA_HOME);
      await eventually(() => existsSync(downCa), 30_000, 'CA local del segundo Caddy');
      let answer = { status: -1, out: '' };
      const started = Date.now();
      await eventually(
        () =>
          (answer = curl(['-D', '-', `https://${downSite}/`], downCa, `${downSite}:127.0.0.1`)).status === 0,
        40_000,
        'respuesta del segundo Caddy',
      );
      const waited = Date.now() - started;
      const blank = /\r?\n\r?\n/.exec(answer.out);
      const head = answer.out.slice(0, blank?.index);
      const body = blank ? answer.out.slice(blank.index + blank[0].length) : '';
      expect(head).toMatch(/^HTTP\/\S+ 503/);
      expect(head).toMatch(/^retry-after: \d+\r?$/im);
      expect(head).toMatch(/^cache-control: no-store\r?$/im);
      expect(head).toMatch(/^content-type: text\/html/im);
      expect(body).toBe(readFileSync(join(ROOT, 'web/dist/maintenance.html'), 'utf8'));
      expect(body).toContain('<title>Servicio en Mantenimiento</title>');
      expect(body).toContain('<a href="/">Volver al inicio</a>');
      expect(body).not.toMatch(/<script|<link|src=/i);
      // Caddy first waits for an instance to come back (lb_try_duration 10s), then gives up.
      expect(waited).toBeGreaterThanOrEqual(9_000);
    } finally {
      await down.stop();
    }
  });

  it("the guide's monitoring and backup commands work as written", () => {
    expect(runDocCommand('curl -fsS https://panel.midominio.com/healthz', moves, curlEnv)).toBe(
      '{"ok":true}',
    );
    // Asked of each instance: the agent's socket is on one of them, which alone reports it.
    const connected = ports.panel.map((port) =>
      new RegExp(`^vpn_server_agent_connected\\{server_id="${serverId}",server="Nodo 1"\\} 1$`, 'm').test(
        runDocCommand(
          '(set -a; . /etc/vpn-panel/panel.env; curl -fsS -H "Authorization: Bearer $METRICS_TOKEN" http://127.0.0.1:8080/metrics) | grep vpn_server_agent_connected',
          [...moves.filter(([from]) => from !== '127.0.0.1:8080'), ['127.0.0.1:8080', `127.0.0.1:${port}`]],
        ),
      ),
    );
    const holder = panelRequests()
      .filter((r) => r.url === '/api/agent/ws')
      .at(-1)!.i;
    expect(connected).toEqual([holder === 0, holder === 1]);
    runDocCommand('install -d -m 700 /var/backups/vpn-panel', moves);
    runDocCommand(
      '(set -a; . /etc/vpn-panel/panel.env; cd /opt/vpn-panel && npm run backup /var/backups/vpn-panel/panel-$(date +%F).vpnbak)',
      moves,
    );
    const [backup] = readdirSync(join(tmp, 'backups'));
    expect(backup).toMatch(/^panel-\d{4}-\d{2}-\d{2}\.vpnbak$/);
    expect(statSync(join(tmp, 'backups', backup!)).size).toBeGreaterThan(1000);
  });

  it('an instance stopped as systemctl stops it loses no request: Caddy sends them, and the agent, to the other', async () => {
    const m = manager();
    const dials = () => panelRequests().filter((r) => r.url === '/api/agent/ws');
    const holder = dials().at(-1)!.i;
    const other = 1 - holder;
    const before = dials().filter((d) => d.i === other).length;
    // Requests keep coming, four at a time, from before the stop until after it: some are in flight
    // when SIGTERM arrives, others arrive while the instance closes and after it is gone.
    const c = new HttpsClient(base, readFileSync(ca, 'utf8'), '127.0.0.25');
    const answered: { start: number; end: number; status: number | string }[] = [];
    let more = true;
    const client = async () => {
      while (more) {
        const start = Date.now();
        const status = await c.request('GET', '/api/client/plans').then(
          (r) => r.status,
          (e: Error) => e.message,
        );
        answered.push({ start, end: Date.now(), status });
      }
    };
    const clients = [client(), client(), client(), client()];
    await eventually(() => answered.length >= 8, 10_000, 'peticiones antes de la parada');
    // And requests that are still arriving when SIGTERM comes (a POST, which Caddy does not send
    // again once the panel has it): four, so that Caddy (fewest connections first) gives the
    // stopping instance at least one. Each must get the route's own answer, not a 502.
    const refreshes = () => panelRequests().filter((r) => r.url === '/api/refresh-token');
    const refreshesBefore = refreshes().length;
    const slow = [0, 1, 2, 3].map(() =>
      c.slowRequest('POST', '/api/refresh-token', { refresh: 'x'.repeat(64) }),
    );
    await eventually(
      () => refreshes().length === refreshesBefore + 4,
      10_000,
      'las peticiones lentas llegaron',
    );
    expect(
      refreshes()
        .slice(refreshesBefore)
        .some((r) => r.i === holder),
    ).toBe(true);
    const stopAt = Date.now();
    const closing = instances[holder]!;
    const stopping = closing.stop();
    // The slow requests are held open (half their body sent) until the instance has begun closing:
    // it logged «cerrando» (main.ts, on SIGTERM) and its port refuses new connections (Fastify's
    // close() shuts the listener first, then waits for the requests under way). Those it holds are
    // in flight while it closes, however slowly this machine delivers the signal.
    await closing.waitForLine(/"msg":"cerrando"/, 15_000);
    await eventually(
      async () => !(await accepts(ports.panel[holder]!)),
      15_000,
      'la instancia deja de aceptar conexiones',
    );
    const closingAt = closing.lines.findIndex((l) => l.includes('"msg":"cerrando"'));
    for (const s of slow) s.finish();
    await stopping;
    const stoppedAt = Date.now();
    for (const s of slow) {
      const answer = await s.answer;
      expect(answer.status, answer.body).toBe(401);
      expect(JSON.parse(answer.body).message).toBe(msg.invalidRefresh);
    }
    // The closing instance itself answered at least one of them, after it began closing: the
    // request was in flight there, not sent elsewhere.
    const held = new Set(
      closing
        .records()
        .filter((r) => r.req?.url === '/api/refresh-token')
        .map((r) => r.reqId),
    );
    expect(held.size).toBeGreaterThan(0);
    expect(
      closing.records(closingAt + 1).some((r) => r.msg === 'request completed' && held.has(r.reqId)),
      'una petición lenta en curso respondida por la instancia que cierra',
    ).toBe(true);
    await eventually(
      () => answered.filter((a) => a.start >= stoppedAt).length >= 4,
      10_000,
      'peticiones tras la parada',
    );
    more = false;
    await Promise.all(clients);
    expect(answered.filter((a) => a.status !== 200)).toEqual([]);
    // The stop really had requests in flight (sent before SIGTERM, answered after), and more came
    // once the instance was gone: not only before it or only after.
    expect(answered.filter((a) => a.start < stopAt && a.end > stopAt).length).toBeGreaterThan(0);
    expect(answered.filter((a) => a.start >= stoppedAt).length).toBeGreaterThan(0);
    await eventually(
      () => dials().filter((d) => d.i === other).length > before,
      60_000,
      'el agente se reconecta',
    );
    await eventually(
      async () =>
        (
          await m.json<{ results: { id: number; agent_online: boolean }[] }>('GET', '/api/admin/servers', {
            token: admin,
          })
        ).results.find((s) => s.id === serverId)?.agent_online === true,
      60_000,
      'agente en línea tras la parada',
    );
  });

  // `systemd-analyze verify` reads the unit without a running systemd (Debian's `systemd` package,
  // installed by .ci/run). Not skipped when it is missing: it fails, naming what to install.
  it('systemd accepts the unit as written', () => {
    expect(existsSync('/usr/bin/systemd-analyze'), 'falta systemd-analyze (apt-get install systemd)').toBe(
      true,
    );
    // verify checks that ExecStart's program exists: the unit names /usr/bin/node (Debian's and
    // NodeSource's node); a machine whose node is elsewhere verifies a copy naming that one.
    let unit = join(ROOT, 'deploy/vpn-panel.service');
    if (!existsSync('/usr/bin/node')) {
      const copy = join(tmp, 'vpn-panel.service');
      writeFileSync(copy, readFileSync(unit, 'utf8').replace('/usr/bin/node', process.execPath));
      unit = copy;
    }
    const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('refuses to run the panel as root when its unprivileged user cannot read the build', () => {
    const hidden = join(tmp, 'privado');
    mkdirSync(hidden, { mode: 0o700 });
    writeFileSync(join(hidden, 'main.js'), '');
    expect(() => unprivilegedUser(join(hidden, 'main.js'))).toThrow(/nobody no puede leer .*privado/);
    // The build the instances run from is readable, and they run as that user (startPanel checks).
    expect(unprivilegedUser().uid).not.toBe(0);
  });

  it('the embedded database instead (no DATABASE_URL): one instance starts from the unit, and the backup command works while it runs', async () => {
    const dir = join(tmp, 'embedded');
    mkdirSync(dir, { mode: 0o711 });
    const embedded: [string, string][] = [
      ['/etc/vpn-panel', join(dir, 'conf')],
      ['/var/backups/vpn-panel', join(dir, 'backups')],
      ['/opt/vpn-panel', ROOT],
      ['panel.midominio.com', site],
    ];
    // The guide's configuration with its DATABASE_URL printf left out, as it says for this case.
    runDocCommand(
      config.filter((line) => !line.startsWith("printf 'DATABASE_URL=")),
      embedded,
    );
    const file = join(dir, 'conf/panel.env');
    expect(readFileSync(file, 'utf8')).not.toMatch(/^DATABASE_URL=/m);
    // This machine's values for the two that are fixed on a real VPS (a later line wins, as in systemd).
    const port = await freePort();
    const dataDir = join(dir, 'data');
    appendFileSync(file, `PORT=${port}\nDATA_DIR=${dataDir}\n`);
    const panel = await startPanel(readEnvFile(file), dataDir);
    try {
      await panel.waitForLine(/escuchando en .*\(pglite\)/);
      await panel.waitForLine(/Gestor inicial creado/);
      runDocCommand(
        [
          'install -d -m 700 /var/backups/vpn-panel',
          '(set -a; . /etc/vpn-panel/panel.env; cd /opt/vpn-panel && npm run backup /var/backups/vpn-panel/panel-$(date +%F).vpnbak)',
        ],
        embedded,
      );
      const [backup] = readdirSync(join(dir, 'backups'));
      expect(backup).toMatch(/^panel-\d{4}-\d{2}-\d{2}\.vpnbak$/);
      expect(statSync(join(dir, 'backups', backup!)).size).toBeGreaterThan(1000);
      // The running panel handed the copy over and goes on serving.
      expect((await fetch(`http://127.0.0.1:${port}/api/client/plans`)).status).toBe(200);
    } finally {
      await panel.stop();
    }
  });

  it("never puts Caddy's local CA in the system's trust store", () => {
    expect(inSystemTrust(readFileSync(ca, 'utf8'))).toBe(false);
  });
});
