/**
 * `npm run restore FILE`: puts a backup back, with the service stopped. Embedded database: the
 * current DATA_DIR/pglite is kept beside it, and a backup made under another secret key is refused.
 * PostgreSQL: pg_restore of a pg_dump custom-format file into DATABASE_URL (objects replaced), after
 * the same key check (a dump made before the check needs `--sin-comprobar-clave`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseEnv } from '../config.ts';
import { BackupError, pgRestore, restoreStopped } from '../services/site/backup.ts';

const cwd = process.env.INIT_CWD ?? process.cwd();

try {
  const arg = process.argv[2];
  if (!arg) throw new BackupError('Uso: npm run restore ARCHIVO');
  const file = resolve(cwd, arg);
  if (!existsSync(file)) throw new BackupError(`No existe ${file}.`);
  // Not loadConfig: on a fresh install it would generate a new secret key, which cannot read the backup.
  const env = parseEnv(process.env);
  const dataDir = resolve(env.DATA_DIR);
  const keyFile = join(dataDir, 'secret.key');
  const secret = env.SECRET_KEY ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : null);
  if (env.DATABASE_URL) {
    await pgRestore(env.DATABASE_URL, file, secret, {
      skipKeyCheck: process.argv.includes('--sin-comprobar-clave'),
    });
    console.log('Copia restaurada en PostgreSQL.');
  } else {
    const { header, previous } = await restoreStopped(readFileSync(file), dataDir, secret);
    const c = header.counts;
    console.log(
      `Copia del ${header.created_at} restaurada en ${dataDir}/pglite: ${c.customers} clientes, ` +
        `${c.peers} peers, ${c.servers} servidores, ${c.invoices} facturas.` +
        (previous ? `\nLa base anterior queda en ${previous} (bórrela cuando ya no la necesite).` : ''),
    );
  }
} catch (e) {
  console.error(e instanceof BackupError ? e.message : e);
  process.exit(1);
}
