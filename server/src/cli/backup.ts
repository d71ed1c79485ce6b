/**
 * `npm run backup [FILE]`: a backup of the embedded database (PGlite), whether the service is
 * running (asked of it) or stopped (read here); on PostgreSQL, pg_dump in its custom format.
 * The secret key is not in the file: keep DATA_DIR/secret.key (or SECRET_KEY) apart from it.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config.ts';
import {
  BackupError,
  backupFromRunning,
  backupStopped,
  pgDump,
  runningServer,
} from '../services/site/backup.ts';

const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
const cwd = process.env.INIT_CWD ?? process.cwd();

try {
  const config = loadConfig();
  if (config.databaseUrl) {
    const file = resolve(cwd, process.argv[2] ?? `backup-${stamp}.dump`);
    await pgDump(config.databaseUrl, file, config.secretKey);
    console.log(`Copia de PostgreSQL escrita en ${file} (restaurar con: npm run restore ${file}).`);
  } else {
    const file = resolve(cwd, process.argv[2] ?? `backup-${stamp}.vpnbak`);
    const server = runningServer(config.dataDir);
    const started = Date.now();
    const data = server
      ? await backupFromRunning(server, config.secretKey)
      : await backupStopped(config.dataDir, config.secretKey);
    writeFileSync(file, data, { mode: 0o600 });
    console.log(
      `Copia escrita en ${file} (${(data.length / 1048576).toFixed(1)} MiB, ${Date.now() - started} ms, ` +
        `servicio ${server ? 'en marcha' : 'detenido'}).\n` +
        `Guarde aparte ${config.dataDir}/secret.key (o SECRET_KEY): sin ella las claves privadas de la copia no se pueden descifrar.`,
    );
  }
} catch (e) {
  console.error(e instanceof BackupError ? e.message : e);
  process.exit(1);
}
