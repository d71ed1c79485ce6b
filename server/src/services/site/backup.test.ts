/**
 * Backups round-trip: customers, peers (with their encrypted keys), servers and invoices are the
 * same after a backup and a restore, and a restored peer still downloads the same configuration.
 * Embedded database: backed up while the server runs (asked over HTTP, as `npm run backup` does)
 * and while stopped, restored into a fresh DATA_DIR; a backup is refused under another secret key.
 * PostgreSQL (TEST_DATABASE_URL): pg_dump and pg_restore into another database, as the README says.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { asc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { customers, invoices, peers, plans, servers } from '../../db/schema.ts';
import { newPglite, openDatabase, type Database } from '../../db/client.ts';
import { invalidatePlans } from '../billing/plans.ts';
import { openMirrorToken } from '../peers/mirrorTokens.ts';
import {
  backupFromRunning,
  backupStopped,
  decodeBackup,
  markRunning,
  pgDump,
  pgRestore,
  restoreStopped,
  runningServer,
} from './backup.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  createTestDatabase,
  listen,
  managerToken,
  TEST_SECRET,
  type TestApp,
} from '../../../test/helpers.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'vpn-backup-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Customers with two peers on one server, and invoices: what a restore must give back. */
async function fill(t: TestApp): Promise<void> {
  const owner = await managerToken(t);
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.50', validity: '30 days' })
    .returning();
  invalidatePlans(t.ctx.db);
  await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name: 'Uno', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' },
  });
  for (const name of ['Móvil', 'PC']) {
    const c = await createCustomer(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/peers',
      headers: bearer(owner),
      payload: { username: c.username, plan: plan!.id, name },
    });
    expect(res.statusCode).toBe(201);
    await t.ctx.db.insert(invoices).values({
      customerId: c.id,
      operation: 'new_peer',
      planId: plan!.id,
      planName: 'Mensual',
      amount: '3.50',
      gateway: 'qvapay',
      status: 'paid',
      paidAt: new Date(),
    });
  }
}

/** Everything compared after a round trip, keys included, plus each peer's downloaded configuration. */
async function snapshot(t: TestApp) {
  const db = t.ctx.db;
  const peerRows = await db.select().from(peers).orderBy(asc(peers.id));
  const configs: string[] = [];
  for (const p of peerRows) {
    const res = await t.app.inject({
      url: `/api/mirror/${openMirrorToken(t.ctx.keys.encryption, p.mirrorTokenEnc)}`,
    });
    expect(res.statusCode).toBe(200);
    configs.push(res.body);
  }
  return {
    customers: await db.select().from(customers).orderBy(asc(customers.id)),
    peers: peerRows,
    servers: (await db.select().from(servers).orderBy(asc(servers.id))).map((s) => ({
      ...s,
      lastSeenAt: null,
    })),
    invoices: await db.select().from(invoices).orderBy(asc(invoices.id)),
    configs,
  };
}

describe.skipIf(onPostgres)('embedded database (PGlite)', () => {
  const dataDir = () => join(work, 'data');
  let before: Awaited<ReturnType<typeof snapshot>>;
  let whileRunning: Buffer;
  let whileStopped: Buffer;

  async function appOn(dir: string): Promise<TestApp> {
    const database = await openDatabase({ dataDir: join(dir, 'pglite') });
    const t = await createTestApp({ database, scheduler: false });
    const close = t.close;
    return { ...t, close: async () => (await close(), await database.close()) };
  }

  beforeAll(async () => {
    // The migrated database every test file starts from, on disk this time.
    const migrated = new Blob([readFileSync(inject('pgliteDump'))]);
    mkdirSync(dataDir());
    const seed = newPglite({ dataDir: join(dataDir(), 'pglite'), loadDataDir: migrated });
    await seed.waitReady;
    await seed.close();
    const t = await appOn(dataDir());
    try {
      await fill(t);
      before = await snapshot(t);
      const url = new URL(await listen(t));
      const unmark = markRunning(dataDir(), Number(url.port), '127.0.0.1');
      expect(runningServer(dataDir())).not.toBeNull();
      whileRunning = await backupFromRunning(runningServer(dataDir())!, TEST_SECRET);
      unmark();
    } finally {
      await t.close();
    }
    expect(runningServer(dataDir())).toBeNull();
    whileStopped = await backupStopped(dataDir(), TEST_SECRET);
  });

  it('says what it holds', () => {
    for (const file of [whileRunning, whileStopped])
      expect(decodeBackup(file).header.counts).toEqual({ customers: 2, peers: 2, servers: 1, invoices: 2 });
  });

  for (const which of ['running', 'stopped'] as const) {
    it(`restores a backup taken with the service ${which} into a fresh install, identical`, async () => {
      const target = join(work, `fresh-${which}`);
      await restoreStopped(which === 'running' ? whileRunning : whileStopped, target, TEST_SECRET);
      const t = await appOn(target);
      try {
        expect(await snapshot(t)).toEqual(before);
      } finally {
        await t.close();
      }
    });
  }

  it('restores over an existing database, keeping the old one aside', async () => {
    const { previous } = await restoreStopped(whileStopped, dataDir(), TEST_SECRET);
    expect(previous && existsSync(join(previous, 'PG_VERSION'))).toBe(true);
    const t = await appOn(dataDir());
    try {
      expect(await snapshot(t)).toEqual(before);
    } finally {
      await t.close();
    }
  });

  it('refuses another secret key, no key, a running service or a foreign file, and changes nothing', async () => {
    const target = join(work, 'refused');
    await expect(
      restoreStopped(whileStopped, target, 'another-secret-key-that-is-long-enough-012345'),
    ).rejects.toThrow(
      'La copia se hizo con otra clave secreta: sin ella no se pueden descifrar las claves privadas. Use el secret.key (o SECRET_KEY) de la instalación original.',
    );
    await expect(restoreStopped(whileStopped, target, null)).rejects.toThrow(/Falta la clave secreta/);
    await expect(restoreStopped(Buffer.from('hola\nmundo\n'), target, TEST_SECRET)).rejects.toThrow(
      'El archivo no es una copia de seguridad de este servicio.',
    );
    expect(existsSync(target)).toBe(false);
    const unmark = markRunning(dataDir(), 1, '127.0.0.1');
    try {
      await expect(restoreStopped(whileStopped, dataDir(), TEST_SECRET)).rejects.toThrow(
        'El servicio está en marcha: deténgalo antes de restaurar.',
      );
    } finally {
      unmark();
    }
  });
});

describe.skipIf(!onPostgres)('PostgreSQL (pg_dump / pg_restore)', () => {
  let source: Database & { url?: string };
  let target: Database | undefined;
  const name = `vpn_restore_${randomBytes(4).toString('hex')}`;
  const base = process.env.TEST_DATABASE_URL!;

  afterAll(async () => {
    await target?.close();
    await source?.close();
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  });

  it('restores into an empty database, identical', async () => {
    source = await createTestDatabase();
    const t = await createTestApp({ database: source, scheduler: false });
    let before;
    try {
      await fill(t);
      before = await snapshot(t);
    } finally {
      await t.close();
    }
    const file = join(work, 'pg.dump');
    await pgDump(source.url!, file, TEST_SECRET);
    // The dump holds every encrypted key and hash: readable by its owner only, whatever the umask.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    // As on PGlite: a dump made under another secret key is refused before anything is restored.
    await expect(
      pgRestore(url.toString(), file, 'otra-clave-secreta-que-no-es-la-de-la-copia-0123'),
    ).rejects.toThrow(/otra clave secreta/);
    const empty = new pg.Client({ connectionString: url.toString() });
    await empty.connect();
    const tables = await empty.query(`select count(*)::int as n from pg_tables where schemaname = 'public'`);
    await empty.end();
    expect(tables.rows[0].n).toBe(0);
    await pgRestore(url.toString(), file, TEST_SECRET);
    target = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
    const restored = await createTestApp({ database: target, scheduler: false });
    try {
      expect(await snapshot(restored)).toEqual(before);
    } finally {
      await restored.close();
    }
  });
});
