/**
 * Notices owed to customers after a bulk action (issue 34): one per customer and action however
 * many of their peers it changed, in Spanish "tú", by e-mail (verified address) and by Telegram
 * (linked chat), beside the dashboard's push. Written in the action's transaction (one INSERT for
 * 10,000 customers), sent later: the scheduler mails them in claimed batches (SKIP LOCKED, so two
 * instances never mail one twice), the Telegram lease holder sends them under a telegram_sent
 * claim (telegram/notifier.ts). A send that failed is tried again on the next pass, for a day.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { customerNotices } from '../../db/schema.ts';
import { composeMail, type Mailer } from '../site/mailer.ts';

/** Notices mailed per pass; the rest wait for the next (15 s). */
const MAIL_BATCH = 200;
/** After this long a notice that could not go is given up (the Telegram side uses the same). */
export const NOTICE_GIVE_UP_MS = 86_400_000;

export interface Notice {
  customerId: number;
  subject: string;
  message: string;
}

/**
 * Records one notice per customer (call it inside the action's transaction): one INSERT per
 * distinct text (customers with as many changed peers read the same), the ids as one array.
 */
export async function recordNotices(tx: Db, notices: Notice[]): Promise<void> {
  const byText = new Map<string, { subject: string; message: string; ids: number[] }>();
  for (const n of notices) {
    const key = `${n.subject}\n${n.message}`;
    const group = byText.get(key) ?? { subject: n.subject, message: n.message, ids: [] };
    group.ids.push(n.customerId);
    byText.set(key, group);
  }
  for (const g of byText.values())
    await tx.execute(sql`
      insert into customer_notices (customer_id, subject, message)
      select id, ${g.subject}, ${g.message} from unnest(${`{${g.ids.join(',')}}`}::int[]) as id`);
}

/** Mails the pending notices to customers with a verified address; answers how many went. */
export async function mailNotices(deps: { db: Db; mailer: Mailer; companyName: string }): Promise<number> {
  const page = deps.mailer.enabled ? deps.mailer.link('/dashboard/home') : null;
  if (!page) return 0;
  const claimed = (
    await deps.db.execute<{
      id: number;
      subject: string;
      message: string;
      email: string | null;
      created_at: string;
    }>(sql`
      update customer_notices n set mailed_at = now()
      from customers c
      where n.id in (
        select id from customer_notices where mailed_at is null order by id
        limit ${MAIL_BATCH} for update skip locked)
        and c.id = n.customer_id
      returning n.id, n.subject, n.message, n.created_at,
        case when c.active and c.email_verified then c.email end as email`)
  ).rows;
  let sent = 0;
  for (const n of claimed) {
    if (!n.email) continue;
    const ok = await deps.mailer.send(
      composeMail(deps.companyName, n.email, n.subject, ['Hola:', n.message], {
        label: 'Ir a mi panel',
        url: page,
      }),
    );
    if (ok) sent++;
    else if (Date.now() - Date.parse(n.created_at) < NOTICE_GIVE_UP_MS)
      await deps.db.update(customerNotices).set({ mailedAt: null }).where(eq(customerNotices.id, n.id));
  }
  return sent;
}
