import { ConfigError, loadConfig } from './config.ts';
import { migrateDatabase, openDatabase } from './db/client.ts';
import { buildApp } from './app.ts';
import { deriveKeys } from './lib/crypto.ts';
import { bootstrapManager } from './services/identity/managers.ts';
import { sealClearMirrorTokens } from './services/peers/mirrorTokens.ts';
import { seedDemoContent } from './services/site/seed.ts';
import { startLocalAgent } from './services/fleet/localAgent.ts';
import { markRunning } from './services/site/backup.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    poolSize: config.databasePoolSize,
    dataDir: `${config.dataDir}/pglite`,
  });
  await migrateDatabase(database);
  const { app, ctx } = await buildApp({ config, database });
  const sealed = await sealClearMirrorTokens(ctx.db, ctx.keys.encryption);
  if (sealed > 0) app.log.info({ sealed }, 'enlaces espejo: tokens cifrados (migración 0018)');

  const admin = await bootstrapManager(ctx.db, config.adminUsername, config.adminPassword);
  if (admin.generatedPassword) {
    // Printed once, on the console only (not through the structured log).
    console.log(
      `\n  Gestor inicial creado: usuario "${config.adminUsername}", contraseña "${admin.generatedPassword}"\n` +
        '  Guárdela ahora: no se volverá a mostrar. Entre en /manager/login.\n',
    );
  }
  if (config.seedDemo && (await seedDemoContent(ctx.db, deriveKeys(config.secretKey).encryption))) {
    app.log.info('contenido de demostración creado (planes, anuncio, servidores)');
  }

  let stopLocalAgent = async () => {};
  let unmarkRunning = () => {};
  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'cerrando');
    await stopLocalAgent();
    unmarkRunning();
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void close('SIGINT'));
  process.on('SIGTERM', () => void close('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  // `npm run backup` asks this process for the dump while it holds the embedded database open.
  if (database.kind === 'pglite') unmarkRunning = markRunning(config.dataDir, config.port, config.host);
  app.log.info(`${config.companyName} escuchando en http://localhost:${config.port} (${database.kind})`);
  if (config.localAgent.enabled) {
    stopLocalAgent = await startLocalAgent({
      db: ctx.db,
      config,
      encryptionKey: ctx.keys.encryption,
      log: app.log,
    });
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
