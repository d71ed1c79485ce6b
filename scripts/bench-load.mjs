#!/usr/bin/env node
/**
 * `npm run bench:load` — issue 11's load benchmark, on PostgreSQL with two compiled control-plane
 * instances sharing it (clients alternate between them, as behind a round-robin proxy). Small by
 * default so it runs on a development machine; the issue's scale is
 * `BENCH_CUSTOMERS=1000 BENCH_SECONDS=60 BENCH_BULK_CUSTOMERS=50000 BENCH_BULK_PEERS=100000
 * BENCH_SOCKETS=10000`:
 *  - the data set: BENCH_BULK_CUSTOMERS customers and BENCH_BULK_PEERS peers written with SQL
 *    (their keys copied from a real peer's encrypted ones) next to the simulated customers;
 *  - the baseline: `GET /healthz` timed the same way in the same run;
 *  - the fan-out: BENCH_SOCKETS push websockets of one customer, spread over both instances, and
 *    one event (a manager switches the customer's peer off → `updated_peer`): time until the last
 *    socket has it. (The product has no broadcast to every customer; one user's sockets take the
 *    same path: bus → every instance → its sockets.)
 *  - each instance's RSS (/proc) at the end, with the whole data set loaded.
 *
 * BENCH_DATABASE_URL: an empty database it may fill (required; never a production one).
 * Each simulated customer logs in once (scrypt by design: logins are not what is measured), then
 * until the time is up: lists its peers, downloads its configuration through its mirror link,
 * opens the push websocket and waits for its `auth ok`. Prints p50/p99 per step and the errors.
 *
 * Rate limits are lifted for the run (RATE_LIMITS_LIFTED below: every simulated customer comes from
 * 127.0.0.1, so the per-address limits would refuse almost everything): the figures are of the
 * product's work with those limits off, and the output says so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import WebSocket from 'ws';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const url = process.env.BENCH_DATABASE_URL;
if (!url) {
  console.error('BENCH_DATABASE_URL=postgres://…/empty_db is required (the benchmark fills it).');
  process.exit(2);
}
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 20);
const BULK_CUSTOMERS = Number(process.env.BENCH_BULK_CUSTOMERS ?? 0);
const BULK_PEERS = Number(process.env.BENCH_BULK_PEERS ?? 0);
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const PASSWORD = 'contraseña-de-carga';
const SECRET = 'bench-load-secret-key-0123456789-abcdefghij';
const ADMIN = 'clave-de-gestor-carga';

spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale', 'server'], { stdio: 'inherit' });

/** Per-address limits that one loopback client would hit at once; lifted, and printed as such. */
const RATE_LIMITS_LIFTED = {
  RATE_LIMIT_MIRROR_PER_IP: '9999999/1',
  RATE_LIMIT_LOGIN_FAILURES_PER_IP: '9999999/1',
};

const dataDir = mkdtempSync(join(tmpdir(), 'vpn-load-'));
const children = [];
async function instance(port) {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: join(ROOT, 'server'),
    env: {
      ...process.env,
      DATABASE_URL: url,
      SECRET_KEY: SECRET,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'false',
      ADMIN_PASSWORD: ADMIN,
      ...RATE_LIMITS_LIFTED,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`instance on ${port} exited`);
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const stop = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('exit', () => {
  stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const bases = ['http://127.0.0.1:18411', 'http://127.0.0.1:18412'];
await instance(18411); // migrates first
await instance(18412);

const json = async (res) => {
  if (!res.ok) throw new Error(`HTTP ${res.status} ${await res.text()}`);
  return res.json();
};
const post = (base, path, body, token, extra = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...extra,
    },
    body: JSON.stringify(body),
  });

// Data: one plan, one server, CUSTOMERS customers with one peer each (one password hash for all).
const { access: admin } = await json(
  await post(bases[0], '/api/admin/login', { username: 'admin', password: ADMIN }),
);
const db = new pg.Client({ connectionString: url });
await db.connect();
const t0 = performance.now();
const { rows: plan } = await db.query(
  `insert into plans (name, description, price, validity) values ('Carga', 'x', 1, '30 days') returning id`,
);
// Adding a server needs the password given again (X-Reauth, issue 31).
const { token: proof } = await json(await post(bases[0], '/api/admin/me/reauth', { password: ADMIN }, admin));
await json(
  await post(
    bases[0],
    '/api/admin/servers',
    { name: 'Carga', endpoint: 'carga.example:51820', ubication: 'Aquí' },
    admin,
    { 'x-reauth': proof },
  ),
);
const { hashPassword } = await import(join(ROOT, 'server/dist/lib/crypto.js'));
const hash = await hashPassword(PASSWORD);
const run = Date.now().toString(36);
const usernames = Array.from({ length: CUSTOMERS }, (_, i) => `carga${run}${i}`);
await db.query(`insert into customers (username, password_hash) select u, $2 from unnest($1::text[]) u`, [
  usernames,
  hash,
]);
for (const username of usernames)
  await json(await post(bases[0], '/api/admin/peers', { username, plan: plan[0].id, name: 'Móvil' }, admin));

// The bulk data set, in batches of 10,000 rows: customers, then peers spread over them.
if (BULK_CUSTOMERS > 0) {
  const { ipv4FromIndex } = await import(join(ROOT, 'server/dist/services/fleet/addresses.js'));
  const { rows: model } = await db.query(
    `select server_id, private_key_enc, preshared_key_enc from peers order by id limit 1`,
  );
  for (let i = 0; i < BULK_CUSTOMERS; i += 10_000) {
    const names = Array.from(
      { length: Math.min(10_000, BULK_CUSTOMERS - i) },
      (_, k) => `masa${run}${i + k}`,
    );
    await db.query(
      `insert into customers (username, password_hash, email) select u, $2, u || '@example.com' from unnest($1::text[]) u`,
      [names, hash],
    );
  }
  const { rows: ids } = await db.query(`select id from customers where username like $1 order by id`, [
    `masa${run}%`,
  ]);
  const { rows: top } = await db.query(`select coalesce(max(address_index), 1) as max from peers`);
  let index = Number(top[0].max);
  const random = (n) => crypto.getRandomValues(new Uint8Array(n));
  const b64 = (bytes) => Buffer.from(bytes).toString('base64');
  const token = () => Buffer.from(random(32)).toString('base64url');
  for (let i = 0; i < BULK_PEERS; i += 10_000) {
    const n = Math.min(10_000, BULK_PEERS - i);
    const owners = [];
    const indexes = [];
    const addresses = [];
    const keys = [];
    const mirrors = [];
    for (let k = 0; k < n; k++) {
      owners.push(ids[(i + k) % ids.length].id);
      indexes.push(++index);
      addresses.push(ipv4FromIndex(index));
      keys.push(b64(random(32)));
      mirrors.push(token());
    }
    await db.query(
      `insert into peers (customer_id, server_id, name, address_index, address, public_key, private_key_enc,
         preshared_key_enc, mirror_token, expires_at)
       select o, $6, 'Peer ' || x, x, a::inet, k, $7, $8, m, now() + interval '30 days'
         from unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[]) as t(o, x, a, k, m)`,
      [
        owners,
        indexes,
        addresses,
        keys,
        mirrors,
        model[0].server_id,
        model[0].private_key_enc,
        model[0].preshared_key_enc,
      ],
    );
  }
  console.log(
    `data set: ${BULK_CUSTOMERS} customers and ${BULK_PEERS} peers written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}
await db.end();

// Load.
const samples = { healthz: [], login: [], peers: [], config: [], websocket: [] };
let errors = 0;
const timed = async (step, fn) => {
  const t0 = performance.now();
  try {
    const out = await fn();
    samples[step].push(performance.now() - t0);
    return out;
  } catch (e) {
    if (errors++ < 5) console.error(`${step}: ${e.message}`);
    return null;
  }
};
// Logins first (scrypt, by design slow): the clock starts once everyone is in.
const sessions = await Promise.all(
  usernames.map((username, i) =>
    timed('login', async () =>
      json(await post(bases[i % 2], '/api/client/login', { username, password: PASSWORD, remember: false })),
    ),
  ),
);
const deadline = Date.now() + SECONDS * 1000;
await Promise.all(
  sessions.map(async (session, i) => {
    if (!session) return;
    const auth = { authorization: `Bearer ${session.access}` };
    let k = 0;
    while (Date.now() < deadline) {
      const b = bases[(i + k++) % 2];
      const peers = await timed('peers', async () =>
        json(await fetch(`${b}/api/client/accounts/peers`, { headers: auth })),
      );
      const link = peers?.[0]?.mirror_link;
      if (link)
        await timed('config', async () => {
          const res = await fetch(new URL(link, b));
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          return res.text();
        });
      await timed('healthz', async () => {
        const res = await fetch(`${b}/healthz`);
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return res.text();
      });
      await timed(
        'websocket',
        () =>
          new Promise((resolve, reject) => {
            const ws = new WebSocket(
              `${b.replace('http', 'ws')}/ws?token=${encodeURIComponent(session.access)}`,
            );
            ws.on('message', (m) => {
              const msg = JSON.parse(m.toString());
              ws.close();
              if (msg.type === 'auth' && msg.status === 'ok') resolve();
              else reject(new Error(`push ${m}`));
            });
            ws.on('error', reject);
          }),
      );
    }
  }),
);

const pct = (xs, p) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] : NaN;
const base50 = pct(samples.healthz, 0.5);
console.log(`${CUSTOMERS} customers, ${SECONDS} s, 2 instances on PostgreSQL, errors: ${errors}`);
console.log(
  `rate limits lifted for this benchmark (not the product's defaults): ${Object.keys(RATE_LIMITS_LIFTED).join(', ')}`,
);
console.table(
  Object.entries(samples).map(([step, xs]) => ({
    step,
    requests: xs.length,
    'p50 (ms)': pct(xs, 0.5).toFixed(1),
    'p99 (ms)': pct(xs, 0.99).toFixed(1),
    'p50 / healthz p50': (pct(xs, 0.5) / base50).toFixed(1),
  })),
);

// Fan-out: SOCKETS sockets of the first customer, one event, time to the last one.
const first = sessions.find(Boolean);
if (first && SOCKETS > 0) {
  const sockets = [];
  const opened = performance.now();
  for (let i = 0; i < SOCKETS; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, SOCKETS - i) }, (_, k) => {
        const b = bases[(i + k) % 2];
        return new Promise((resolve, reject) => {
          const ws = new WebSocket(`${b.replace('http', 'ws')}/ws?token=${encodeURIComponent(first.access)}`);
          ws.once('message', () => resolve());
          ws.on('error', reject);
          sockets.push(ws);
        });
      }),
    );
  }
  const openSeconds = (performance.now() - opened) / 1000;
  let received = 0;
  let last = 0;
  const all = new Promise((resolve) => {
    for (const ws of sockets)
      ws.on('message', (m) => {
        if (JSON.parse(m.toString()).type !== 'updated_peer') return;
        last = performance.now();
        if (++received === sockets.length) resolve();
      });
  });
  const peers = await json(
    await fetch(`${bases[0]}/api/client/accounts/peers`, {
      headers: { authorization: `Bearer ${first.access}` },
    }),
  );
  const sent = performance.now();
  await json(
    await fetch(`${bases[1]}/api/admin/peers/${peers[0].id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ active: false }),
    }),
  );
  await Promise.race([all, new Promise((r) => setTimeout(r, 120_000))]);
  console.log(
    `fan-out: ${sockets.length} sockets opened in ${openSeconds.toFixed(1)} s; one event reached ${received} of them, the last ${(last - sent).toFixed(0)} ms after the change was sent`,
  );
  if (received !== sockets.length) errors++;
  for (const ws of sockets) ws.terminate();
}

const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? (Number(m[1]) / 1024).toFixed(0) : '?';
};
console.log(`RSS of the instances at the end: ${children.map((c) => `${rssMb(c.pid)} MiB`).join(', ')}`);
console.log(`load average: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
process.exit(errors ? 1 : 0);
