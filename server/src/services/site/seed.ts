import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { announcements, plans, servers, settings } from '../../db/schema.ts';
import { encrypt, generateWireguardKeyPair } from '../../lib/crypto.ts';
import { updateSiteSettings } from './settings.ts';

const SEEDED_KEY = 'demo_seeded_at';

/**
 * Demo content for a first look: three plans, one announcement, two VPN servers (one allowing
 * rooms) and the public switches on. Runs once: a settings row remembers it did, and it never
 * touches a database that already has plans or servers.
 */
export async function seedDemoContent(db: Db, encryptionKey: Buffer): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({
        seeded: sql<number>`(select count(*)::int from ${settings} where ${settings.key} = ${SEEDED_KEY})`,
        plans: sql<number>`(select count(*)::int from ${plans})`,
        servers: sql<number>`(select count(*)::int from ${servers})`,
      })
      .from(sql`(select 1) as one`);
    if (!existing || existing.seeded > 0 || existing.plans > 0 || existing.servers > 0) return false;

    await tx.insert(plans).values([
      {
        name: 'Básico',
        description:
          'Un dispositivo conectado a la vez. Tráfico cifrado con WireGuard. Cambia de servidor cuando quieras. Soporte por chat',
        price: '3.00',
        validity: '30 days',
        sortOrder: 1,
      },
      {
        name: 'Estándar',
        description:
          'Tres meses de conexión segura. Acceso a las Salas para jugar en LAN con tus amigos. Enlace espejo para la app oficial. Soporte prioritario',
        price: '8.00',
        validity: '90 days',
        sortOrder: 2,
      },
      {
        name: 'Anual',
        description:
          'Un año completo al mejor precio. Compatible con routers MikroTik desde RouterOS 7.1. Acceso a las Salas y a todos los servidores. Soporte prioritario',
        price: '28.00',
        validity: '365 days',
        sortOrder: 3,
      },
    ]);
    await tx.insert(announcements).values({
      name: 'Bienvenido al nuevo panel',
      message:
        'Ya puedes descargar la configuración de tus peers, cambiar de servidor y crear Salas para jugar en red con tus amigos.',
    });
    const seedServer = (name: string, host: string, ubication: string, allowRooms: boolean) => {
      const keys = generateWireguardKeyPair();
      return {
        name,
        host,
        port: 51820,
        ubication,
        allowRooms,
        publicKey: keys.publicKey,
        privateKeyEnc: encrypt(encryptionKey, keys.privateKey),
      };
    };
    await tx
      .insert(servers)
      .values([
        seedServer('Miami 1', 'mia1.vpn.example.com', 'Miami, EE. UU.', true),
        seedServer('Madrid 1', 'mad1.vpn.example.com', 'Madrid, España', false),
      ]);
    await updateSiteSettings(tx, {
      show_landing: true,
      allow_registration: true,
      allow_partys: true,
    });
    await tx.insert(settings).values({ key: SEEDED_KEY, value: new Date().toISOString() });
    return true;
  });
}
