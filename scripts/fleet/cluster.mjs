/**
 * bench:fleet's own PostgreSQL: a cluster made for the run (initdb in a temporary folder, its own
 * port and socket), set up as docs/scale.md tells an operator to set up the database of a big fleet,
 * and removed at the end. The machine's shared PostgreSQL keeps its defaults (128 MB of
 * shared_buffers, checkpoints every 5 min or 1 GB), which are a small installation's, not a
 * business's, and serves other sessions' tests meanwhile; measuring a million peers against it
 * measured its page cache (docs/performance.md, "where PostgreSQL's time per reading goes").
 *
 * Durability is as in production: fsync, full-page writes and synchronous commit stay on.
 */
import { spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { totalmem, userInfo } from 'node:os';
import { join } from 'node:path';

/** The newest installed server's binaries (Debian: /usr/lib/postgresql/<major>/bin). */
function binDir() {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin/initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors.length)
    throw new Error(`no PostgreSQL server under ${root}: apt-get install postgresql, or set BENCH_FLEET_URL`);
  return join(root, majors[0], 'bin');
}

/**
 * The settings docs/scale.md advises for a dedicated database server, from this machine's RAM:
 * shared_buffers a quarter of it (PostgreSQL's own advice), spaced checkpoints, compressed
 * full-page images. `maintenance_work_mem` is for the seed's index builds.
 */
function fleetSettings(ramBytes = totalmem()) {
  const gb = (bytes) => `${Math.max(1, Math.floor(bytes / 2 ** 30))}GB`;
  return {
    shared_buffers: gb(ramBytes / 4),
    effective_cache_size: gb(ramBytes / 2),
    maintenance_work_mem: '1GB',
    max_wal_size: '4GB',
    checkpoint_timeout: '15min',
    wal_compression: 'lz4',
    max_connections: '200',
    fsync: 'on',
    synchronous_commit: 'on',
    full_page_writes: 'on',
    // Per-statement costs (calls, time, buffers, JIT) for the bench's report, as an operator would
    // read them (docs/scale.md).
    shared_preload_libraries: "'pg_stat_statements'",
    'pg_stat_statements.track': 'top',
  };
}

const PARENT = '/var/tmp';
const PREFIX = 'bench-fleet-pg-';

/**
 * A run killed outright (kill -9, a closed terminal) leaves its cluster running on the port: stopped
 * and removed here when the run that made it is gone. One whose run is alive means another
 * bench:fleet is running: two at once would share the machine's 2 cores and measure each other.
 */
function removeLeftovers(run) {
  for (const name of readdirSync(PARENT).filter((n) => n.startsWith(PREFIX))) {
    const dir = join(PARENT, name);
    let owner = 0;
    try {
      owner = Number(readFileSync(join(dir, 'bench.pid'), 'utf8'));
      process.kill(owner, 0);
    } catch {
      owner = 0;
    }
    if (owner && owner !== process.pid) {
      console.error(`another bench:fleet is running (pid ${owner}, ${dir}): wait for it to end`);
      process.exit(2);
    }
    try {
      run('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Not running: only its files are left.
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Creates and starts the cluster; answers its connection URL (database `postgres`), its settings
 * and `stop()`, which stops it at once and removes its files. As root the server runs as the
 * `postgres` user (PostgreSQL refuses root).
 */
export function startCluster({ port, log = console.log }) {
  const bin = binDir();
  const root = userInfo().uid === 0;
  const run = (cmd, args) => {
    const full = root
      ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]]
      : [join(bin, cmd), args];
    const r = spawnSync(full[0], full[1], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  removeLeftovers(run);
  const dir = mkdtempSync(join(PARENT, PREFIX));
  writeFileSync(join(dir, 'bench.pid'), String(process.pid));
  const data = join(dir, 'data');
  if (root) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (ids.status !== 0)
      throw new Error('running as root needs the postgres user (Debian package postgresql)');
    chownSync(dir, Number(ids.stdout), Number(gid.stdout));
  }
  run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  const settings = fleetSettings();
  const conf = {
    ...settings,
    port: String(port),
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${dir}'`,
  };
  writeFileSync(
    join(data, 'postgresql.auto.conf'),
    Object.entries(conf)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n') + '\n',
  );
  if (root) spawnSync('chown', ['postgres:postgres', join(data, 'postgresql.auto.conf')]);
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  log(
    `PostgreSQL: a cluster of the run's own (${bin}, port ${port}): ${Object.entries(settings)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    settings,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone: its files are removed all the same.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
