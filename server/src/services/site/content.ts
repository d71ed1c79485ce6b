import { desc, eq } from 'drizzle-orm';
import type { Advertisement, ClientVersion } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { announcements, clientVersions } from '../../db/schema.ts';
import { notFound } from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import { auditedTransaction, diffFields, type Actor } from './audit.ts';

export interface ContentDeps {
  db: Db;
  bus: Bus;
}

/**
 * Queues a message for every linked Telegram chat, in the caller's transaction (services/telegram's
 * queueBroadcast): handed in by the route, because site is a lower domain than telegram.
 */
export type QueueBroadcast = (tx: Db, name: string, message: string) => Promise<void>;

type AnnouncementRow = typeof announcements.$inferSelect;

const presentAnnouncement = (row: AnnouncementRow): Advertisement => ({
  id: row.id,
  name: row.name,
  message: row.message,
  created: row.createdAt.toISOString(),
});

/** The dashboard home's announcements (active ones, newest first), as the spec's Advertisement. */
export async function listAnnouncements(db: Db): Promise<Advertisement[]> {
  const rows = await db
    .select()
    .from(announcements)
    .where(eq(announcements.active, true))
    .orderBy(desc(announcements.createdAt), desc(announcements.id));
  return rows.map(presentAnnouncement);
}

/** The newest client-app release announced on the dashboard home (nulls when none was published). */
export async function latestClientVersion(db: Db): Promise<ClientVersion> {
  const [row] = await db
    .select()
    .from(clientVersions)
    .orderBy(desc(clientVersions.createdAt), desc(clientVersions.id))
    .limit(1);
  return { version: row?.version ?? null, url: row?.url ?? null };
}

/** What managers publish to customers (announcements, client-app releases), each change audited with it. */
export async function publishAnnouncement(
  deps: ContentDeps & { queueBroadcast: QueueBroadcast },
  actor: Actor,
  body: { name: string; message: string; telegram?: boolean },
): Promise<Advertisement> {
  return auditedTransaction(deps.db, actor, async (tx, audit) => {
    const [row] = await tx
      .insert(announcements)
      .values({ name: body.name, message: body.message })
      .returning();
    // "Enviar por Telegram": queued with the announcement, sent by the bot to every linked chat.
    if (body.telegram) await deps.queueBroadcast(tx, row!.name, row!.message);
    await audit({
      action: 'announcement.create',
      targetType: 'announcement',
      targetId: row!.id,
      changes: diffFields(null, { name: row!.name, message: row!.message }),
      ...(body.telegram ? { extra: { telegram: true } } : {}),
    });
    return presentAnnouncement(row!);
  });
}

/** Withdraws an announcement from the dashboards (kept, inactive, for the record). */
export async function withdrawAnnouncement(deps: ContentDeps, actor: Actor, id: number): Promise<void> {
  await auditedTransaction(deps.db, actor, async (tx, audit) => {
    const [row] = await tx.select().from(announcements).where(eq(announcements.id, id)).for('update');
    if (!row) throw notFound();
    if (!row.active) return; // Already withdrawn: nothing changes, nothing to record.
    await tx.update(announcements).set({ active: false }).where(eq(announcements.id, id));
    await audit({
      action: 'announcement.withdraw',
      targetType: 'announcement',
      targetId: id,
      changes: { active: { before: true, after: false } },
      extra: { name: row.name },
    });
  });
}

export async function publishClientVersion(
  deps: ContentDeps,
  actor: Actor,
  body: { version: string; url: string },
): Promise<ClientVersion> {
  return auditedTransaction(deps.db, actor, async (tx, audit) => {
    const [row] = await tx.insert(clientVersions).values(body).returning();
    await audit({
      action: 'client_version.create',
      targetType: 'client_version',
      targetId: row!.id,
      changes: diffFields(null, { version: row!.version, url: row!.url }),
    });
    return { version: row!.version, url: row!.url };
  });
}
