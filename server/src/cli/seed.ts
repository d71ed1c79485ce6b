/** `npm run seed`: demo content on the configured database (PostgreSQL is never seeded implicitly). */
import { loadConfig } from '../config.ts';
import { migrateDatabase, openDatabase } from '../db/client.ts';
import { deriveKeys } from '../lib/crypto.ts';
import { seedDemoContent } from '../services/site/seed.ts';

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: `${config.dataDir}/pglite` });
await migrateDatabase(database);
const seeded = await seedDemoContent(database.db, deriveKeys(config.secretKey).encryption);
console.log(
  seeded
    ? 'Contenido de demostración creado.'
    : 'La base de datos ya tiene contenido: no se ha sembrado nada.',
);
await database.close();
