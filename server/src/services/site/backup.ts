import { spawnSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import pg from 'pg';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { PGlite } from '@electric-sql/pglite';
import { newPglite, openDatabase, type Db } from '../../db/client.ts';

/**
 * Backups of the embedded database (PGlite). A backup file is one header line naming the format,
 * one JSON line (when, what, and a fingerprint of the secret key) and PGlite's data-directory
 * tarball (gzip). The tarball is taken after a CHECKPOINT, in one synchronous read of the data
 * directory between two queries, so it is consistent whether the service is running (the dump is
 * asked of the running server, `POST /internal/backup`) or stopped (the CLI opens the directory).
 *
 * The secret key is never in the file: it encrypts every private key in the database, so a copy
 * of both would be a copy of every customer's tunnel. The fingerprint lets a restore refuse to
 * start with another key (the private keys would be unreadable). PostgreSQL uses pg_dump (README).
 */
export const BACKUP_MAGIC = 'VPN-BACKUP 1';

export interface BackupHeader {
  created_at: string;
  database: 'pglite';
  /** HMAC of a fixed label under the secret key: identifies the key, reveals nothing of it. */
  key_fingerprint: string;
  counts: { customers: number; peers: number; servers: number; invoices: number };
}

export class BackupError extends Error {}

/** The running server's state file in DATA_DIR: lets the CLI ask it for the dump instead of opening the files. */
export const RUNNING_FILE = 'server.json';

export const keyFingerprint = (secret: string) =>
  createHmac('sha256', secret).update('vpn backup key fingerprint').digest('hex').slice(0, 32);

/** The bearer token of `POST /internal/backup`: derived from the secret key, which the CLI can read too. */
export const backupToken = (secret: string) =>
  createHmac('sha256', secret).update('vpn backup token').digest('base64url');

export function checkBackupToken(secret: string, given: string | null): boolean {
  const expected = Buffer.from(backupToken(secret));
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

async function counts(db: Db): Promise<BackupHeader['counts']> {
  const result = await db.execute<Record<string, string | number>>(sql`
    select (select count(*) from customers) as customers, (select count(*) from peers) as peers,
           (select count(*) from servers) as servers, (select count(*) from invoices) as invoices`);
  const row = result.rows[0]!;
  return {
    customers: Number(row.customers),
    peers: Number(row.peers),
    servers: Number(row.servers),
    invoices: Number(row.invoices),
  };
}

/** A consistent backup of an open PGlite database (the running server's, or one the CLI opened). */
export async function dumpPglite(pglite: PGlite, db: Db, secret: string): Promise<Buffer> {
  await pglite.exec('checkpoint');
  const header: BackupHeader = {
    created_at: new Date().toISOString(),
    database: 'pglite',
    key_fingerprint: keyFingerprint(secret),
    counts: await counts(db),
  };
  const tar = Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer());
  return Buffer.concat([Buffer.from(`${BACKUP_MAGIC}\n${JSON.stringify(header)}\n`), tar]);
}

export function decodeBackup(file: Buffer): { header: BackupHeader; tar: Buffer } {
  const first = file.indexOf(0x0a);
  const second = first < 0 ? -1 : file.indexOf(0x0a, first + 1);
  if (second < 0 || file.subarray(0, first).toString() !== BACKUP_MAGIC)
    throw new BackupError('El archivo no es una copia de seguridad de este servicio.');
  let header: BackupHeader;
  try {
    header = JSON.parse(file.subarray(first + 1, second).toString()) as BackupHeader;
  } catch {
    throw new BackupError('La cabecera de la copia de seguridad está dañada.');
  }
  return { header, tar: file.subarray(second + 1) };
}

/** The server that holds DATA_DIR open, if one is running (its state file names a live process). */
export function runningServer(dataDir: string): { pid: number; port: number; host: string } | null {
  const file = join(dataDir, RUNNING_FILE);
  if (!existsSync(file)) return null;
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; port: number; host: string };
    process.kill(state.pid, 0);
    return state;
  } catch {
    return null;
  }
}

export function markRunning(dataDir: string, port: number, host: string): () => void {
  const file = join(dataDir, RUNNING_FILE);
  writeFileSync(file, JSON.stringify({ pid: process.pid, port, host }) + '\n', { mode: 0o600 });
  return () => {
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
}

/** Asks the running server for a backup (its own connection: PGlite has no second one). */
export async function backupFromRunning(
  server: { port: number; host: string },
  secret: string,
): Promise<Buffer> {
  const host = ['0.0.0.0', '::', ''].includes(server.host) ? '127.0.0.1' : server.host;
  const res = await fetch(
    `http://${host.includes(':') ? `[${host}]` : host}:${server.port}/internal/backup`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${backupToken(secret)}` },
    },
  );
  if (!res.ok) throw new BackupError(`El servidor en marcha no entregó la copia (HTTP ${res.status}).`);
  return Buffer.from(await res.arrayBuffer());
}

/** A backup of DATA_DIR/pglite with the service stopped. */
export async function backupStopped(dataDir: string, secret: string): Promise<Buffer> {
  const dir = join(dataDir, 'pglite');
  if (!existsSync(join(dir, 'PG_VERSION'))) throw new BackupError(`No hay base de datos en ${dir}.`);
  const database = await openDatabase({ dataDir: dir });
  try {
    return await dumpPglite(database.pglite!, database.db, secret);
  } finally {
    await database.close();
  }
}

/**
 * Restores a backup into DATA_DIR/pglite with the service stopped. The current directory, if any,
 * is kept beside it (`pglite.before-restore-…`) until the operator deletes it. Refuses a backup made
 * under another secret key: its private keys could not be decrypted.
 */
export async function restoreStopped(
  file: Buffer,
  dataDir: string,
  secret: string | null,
): Promise<{ header: BackupHeader; previous: string | null }> {
  const { header, tar } = decodeBackup(file);
  if (runningServer(dataDir))
    throw new BackupError('El servicio está en marcha: deténgalo antes de restaurar.');
  if (!secret)
    throw new BackupError(
      'Falta la clave secreta: copie el secret.key de la instalación original en DATA_DIR o defina SECRET_KEY antes de restaurar.',
    );
  if (keyFingerprint(secret) !== header.key_fingerprint)
    throw new BackupError(
      'La copia se hizo con otra clave secreta: sin ella no se pueden descifrar las claves privadas. Use el secret.key (o SECRET_KEY) de la instalación original.',
    );
  const dir = join(dataDir, 'pglite');
  let previous: string | null = null;
  if (existsSync(dir)) {
    previous = `${dir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(dir, previous);
  }
  try {
    mkdirSync(dataDir, { recursive: true });
    const restored = await openDatabase({
      pglite: newPglite({ dataDir: dir, loadDataDir: new Blob([new Uint8Array(tar)]) }),
    });
    try {
      const found = await counts(restored.db);
      if (JSON.stringify(found) !== JSON.stringify(header.counts))
        throw new Error(`se esperaban ${JSON.stringify(header.counts)}, hay ${JSON.stringify(found)}`);
    } finally {
      await restored.close();
    }
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    if (previous) renameSync(previous, dir);
    throw new BackupError(`La copia no se pudo cargar: ${(e as Error).message}`);
  }
  return { header, previous };
}

/** The settings row a PostgreSQL dump carries its key fingerprint in (as a PGlite backup's header does). */
export const FINGERPRINT_SETTING = 'backup_key_fingerprint';

/**
 * PostgreSQL: pg_dump in its custom format (compressed, restorable table by table). The key's
 * fingerprint is written into the database first, so the dump carries it; the file is created
 * mode 0600 before pg_dump writes into it (it holds every encrypted key and password hash).
 */
export async function pgDump(databaseUrl: string, file: string, secret: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into settings (key, value) values ($1, $2)
       on conflict (key) do update set value = excluded.value, updated_at = now()`,
      [FINGERPRINT_SETTING, JSON.stringify({ fingerprint: keyFingerprint(secret) })],
    );
  } finally {
    await client.end();
  }
  closeSync(openSync(file, 'w', 0o600));
  chmodSync(file, 0o600);
  const run = spawnSync('pg_dump', ['--format=custom', '--no-owner', `--file=${file}`, databaseUrl], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (run.error || run.status !== 0)
    throw new BackupError(
      'pg_dump falló (¿está instalado el cliente de PostgreSQL, de la versión del servidor o posterior?).',
    );
}

/** The key fingerprint a pg_dump file carries (null for a dump made before it did). */
export function dumpFingerprint(file: string): string | null {
  const run = spawnSync('pg_restore', ['--data-only', '--table=settings', '--file=-', file], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error || run.status !== 0) throw new BackupError('pg_restore no pudo leer la copia.');
  for (const line of run.stdout.split('\n')) {
    const [key, value] = line.split('\t');
    if (key !== FINGERPRINT_SETTING || !value) continue;
    try {
      const parsed = JSON.parse(value) as { fingerprint?: unknown };
      return typeof parsed.fingerprint === 'string' ? parsed.fingerprint : null;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * PostgreSQL: pg_restore of a pg_dump file, replacing what the database holds, in one transaction.
 * As for PGlite, a dump made under another secret key is refused before anything changes (its
 * private keys could not be decrypted); a dump without a fingerprint (made before this check) only
 * with `skipKeyCheck`.
 */
export async function pgRestore(
  databaseUrl: string,
  file: string,
  secret: string | null,
  { skipKeyCheck = false }: { skipKeyCheck?: boolean } = {},
): Promise<void> {
  if (!skipKeyCheck) {
    if (!secret)
      throw new BackupError(
        'Falta la clave secreta: defina SECRET_KEY (o copie el secret.key de la instalación original en DATA_DIR) antes de restaurar.',
      );
    const fingerprint = dumpFingerprint(file);
    if (fingerprint === null)
      throw new BackupError(
        'La copia no dice con qué clave secreta se hizo (copia anterior a esta comprobación). Si está seguro de que la clave es la misma, repita con --sin-comprobar-clave.',
      );
    if (fingerprint !== keyFingerprint(secret))
      throw new BackupError(
        'La copia se hizo con otra clave secreta: sin ella no se pueden descifrar las claves privadas. Use la SECRET_KEY (o el secret.key) de la instalación original.',
      );
  }
  const run = spawnSync(
    'pg_restore',
    ['--clean', '--if-exists', '--no-owner', '--single-transaction', `--dbname=${databaseUrl}`, file],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (run.error || run.status !== 0) throw new BackupError('pg_restore falló.');
}
