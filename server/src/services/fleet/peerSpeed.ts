/**
 * Plans sold by speed, and "reduce" instead of "cut" (issue 35): a peer carries the speed terms of
 * the last plan applied (peers/planTerms.ts speedTerms). Its agent shapes it to the plan's speeds
 * each way, or to the plan's reduced speed while it is held there: out of data on a plan that
 * reduces instead of cutting (until a plan starts a new period), or within the plan's grace days
 * after expiry (then it is cut as before). Pure helpers with no service imports: the desired state,
 * the presentation and the scheduler's transitions (peers/expiry.ts, peers/allowance.ts) all read
 * the same rules from here. In fleet, the lowest domain that needs them (the desired state).
 */
import { sql } from 'drizzle-orm';
import type { AgentPeer, PeerSpeed } from '@vpn/contracts';
import { peers } from '../../db/schema.ts';

type SpeedRow = Pick<
  typeof peers.$inferSelect,
  | 'speedDownKbit'
  | 'speedUpKbit'
  | 'reducedKbit'
  | 'graceDays'
  | 'speedReducedAt'
  | 'speedReducedReason'
  | 'expiresAt'
  | 'reduceOnExhausted'
>;

const DAY_MS = 86_400_000;

/** Mbit/s (the console's and the cards' unit) to the kbit/s kept in rows; null stays unlimited. */
export const kbitOfMbit = (mbit: number | null): number | null =>
  mbit === null ? null : Math.round(mbit * 1000);
export const mbitOfKbit = (kbit: number | null): number | null => (kbit === null ? null : kbit / 1000);

/** When a peer's grace ends (its expiry plus its plan's grace days), or null when it never expires. */
export function graceEnd(row: Pick<SpeedRow, 'expiresAt' | 'graceDays'>): Date | null {
  return row.expiresAt === null ? null : new Date(row.expiresAt.getTime() + row.graceDays * DAY_MS);
}

/** SQL: the peer is still within its expiry or its grace (the same rule as graceEnd). */
export const withinGrace = () =>
  sql`(${peers.expiresAt} is null or ${peers.expiresAt} + ${peers.graceDays} * interval '1 day' > now())`;

/** SQL: the peer is within its data allowance, or out of it on a plan that reduces instead of cutting. */
export const withinData = () =>
  sql`(${peers.dataAllowance} is null or ${peers.dataUsed} < ${peers.dataAllowance} or ${peers.reduceOnExhausted})`;

/** The speed fields of a peer's desired state for its agent: absent each way when unlimited. */
export function agentSpeed(
  row: Pick<SpeedRow, 'speedDownKbit' | 'speedUpKbit' | 'reducedKbit' | 'speedReducedAt'>,
): Pick<AgentPeer, 'down_kbit' | 'up_kbit'> {
  if (row.speedReducedAt !== null) return { down_kbit: row.reducedKbit, up_kbit: row.reducedKbit };
  return {
    ...(row.speedDownKbit !== null ? { down_kbit: row.speedDownKbit } : {}),
    ...(row.speedUpKbit !== null ? { up_kbit: row.speedUpKbit } : {}),
  };
}

/** The peer's speed as its owner and the console see it. */
export function presentSpeed(row: SpeedRow): PeerSpeed {
  const reason = row.speedReducedReason;
  return {
    down_mbit: mbitOfKbit(row.speedDownKbit),
    up_mbit: mbitOfKbit(row.speedUpKbit),
    reduced:
      row.speedReducedAt !== null && reason !== null
        ? {
            reason,
            kbit: row.reducedKbit,
            since: row.speedReducedAt.toISOString(),
            // Out of data: until the period ends (a plan restores it sooner); expired: until the grace ends.
            until: (reason === 'data' ? row.expiresAt : graceEnd(row))?.toISOString() ?? null,
          }
        : null,
  };
}

/** 256 → '256 kbit/s', 2000 → '2 Mbit/s' (mails, pushes and Telegram). */
export function formatKbit(kbit: number): string {
  const fmt = (v: number) => new Intl.NumberFormat('es-ES', { maximumFractionDigits: 3 }).format(v);
  return kbit >= 1000 ? `${fmt(kbit / 1000)} Mbit/s` : `${fmt(kbit)} kbit/s`;
}

/** '5 de marzo de 2025' (UTC): the day a grace ends, in a push or a mail. */
export function formatDay(at: Date): string {
  return new Intl.DateTimeFormat('es-ES', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(at);
}
