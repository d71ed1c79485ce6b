import { and, eq, gt, isNotNull, lte, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { customers, peers } from '../../db/schema.ts';
import { composeMail, type Mailer } from '../site/mailer.ts';

/** The reminders, latest first: a peer already inside 24 h gets only that one (see sendDue). */
const STAGES = [
  { hours: 24, column: peers.reminded24hAt, key: 'reminded24hAt' },
  { hours: 72, column: peers.reminded72hAt, key: 'reminded72hAt' },
] as const;

/** Dates in mails: the customers' time (Cuba), said so, since a mail has no browser to localize it. */
const dateFormat = new Intl.DateTimeFormat('es-ES', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'America/Havana',
});

export function reminderMail(
  company: string,
  to: string,
  peer: { name: string; expiresAt: Date },
  hours: number,
  url: string,
) {
  const when = hours === 24 ? 'en menos de 24 horas' : 'en menos de 3 días';
  return composeMail(
    company,
    to,
    `Tu peer ${peer.name} vence ${when}`,
    [
      'Hola:',
      `Tu peer «${peer.name}» de ${company} vence ${when}: el ${dateFormat.format(peer.expiresAt)} (hora de Cuba).`,
      'Renuévalo desde tu panel antes de esa fecha para no quedarte sin conexión. Al renovarlo no tienes que importar nada de nuevo: su configuración y su enlace espejo siguen siendo los mismos.',
    ],
    { label: 'Renovar', url },
  );
}

/**
 * Renewal reminders (issue 9): a mail 72 h and another 24 h before a peer expires, to the owner's
 * verified e-mail. Every instance's scheduler runs this; each reminder is claimed by one
 * conditional UPDATE … RETURNING, which only one instance wins (on PostgreSQL the loser waits on
 * the row and re-checks the condition), so each mail goes out once. A reminder counts for the
 * expiry it was sent for: renewing moves the expiry past `reminded_at + window` and arms it again,
 * whatever path changed the date. A failed send gives the claim back for the next run.
 */
export class ReminderService {
  constructor(
    private readonly deps: { db: Db; mailer: Mailer; companyName: string; log: FastifyBaseLogger },
  ) {}

  /** Sends the reminders due at `now`; answers how many mails went out. */
  async sendDue(now = new Date()): Promise<number> {
    const page = this.deps.mailer.enabled ? this.deps.mailer.link('/dashboard/home') : null;
    if (!page) return 0;
    const at = sql`${now.toISOString()}::timestamptz`;
    let sent = 0;
    for (const stage of STAGES) {
      const window = sql`${at} + ${`${stage.hours} hours`}::interval`;
      const notYet = (column: AnyColumn, hours: number): SQL =>
        or(sql`${column} is null`, sql`${column} < ${peers.expiresAt} - ${`${hours} hours`}::interval`)!;
      const set: Record<string, SQL> = { [stage.key]: at };
      // Inside 24 h the 72 h reminder is pointless: marked done with this one.
      if (stage.hours === 24)
        set.reminded72hAt = sql`case when ${notYet(peers.reminded72hAt, 72)} then ${at} else ${peers.reminded72hAt} end`;
      const claimed = await this.deps.db
        .update(peers)
        .set(set)
        .from(customers)
        .where(
          and(
            eq(customers.id, peers.customerId),
            eq(customers.active, true),
            eq(customers.emailVerified, true),
            isNotNull(customers.email),
            eq(peers.active, true),
            gt(peers.expiresAt, at),
            lte(peers.expiresAt, window),
            notYet(stage.column, stage.hours),
          ),
        )
        .returning({
          id: peers.id,
          name: peers.name,
          expiresAt: peers.expiresAt,
          email: customers.email,
        });
      for (const row of claimed) {
        const ok = await this.deps.mailer.send(
          reminderMail(
            this.deps.companyName,
            row.email!,
            { name: row.name, expiresAt: row.expiresAt! },
            stage.hours,
            page,
          ),
        );
        if (ok) {
          sent++;
          continue;
        }
        // Given back (only if still ours) so the next run tries again.
        await this.deps.db
          .update(peers)
          .set({ [stage.key]: null })
          .where(and(eq(peers.id, row.id), sql`${stage.column} = ${at}`));
      }
    }
    return sent;
  }
}
