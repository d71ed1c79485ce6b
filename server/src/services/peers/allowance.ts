import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { fill, msg } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, peers } from '../../db/schema.ts';
import { composeMail, type Mailer } from '../site/mailer.ts';
import type { PeerService } from './peers.ts';
import type { ReducedPeer } from './expiry.ts';
import { GB } from './planTerms.ts';
import { formatKbit } from '../fleet/peerSpeed.ts';

/**
 * Data allowance per plan (issue 9). A plan may carry GB for its validity; applying it (purchase,
 * renewal, top-up, a manager's grant) starts a new period on the peer: the allowance in bytes, zero
 * used (PeerService.insertPeer / extendIn). Agents' reports add each peer's traffic, both ways, to
 * `data_used` (usage.ts recordStats). This service, run by every instance's scheduler, tells the
 * owner once at 80 % (mail to a verified address and a push) and switches the peer off at 100 %,
 * exactly like an expiry (PeerService.disableExhausted), until a plan is applied again. The byte
 * arithmetic of a period lives in planTerms.ts, which peers.ts imports without importing this file.
 */

/**
 * The share of the allowance, in percent, at which the owner is told (also in the generated column
 * peers.data_due, migration 0029: change both together).
 */
export const NOTICE_PERCENT = 80;

/** "1,5 GB", "750 MB": a byte count as a Spanish reader expects it in a mail. */
export function formatBytes(bytes: number): string {
  const fmt = (v: number) => new Intl.NumberFormat('es-ES', { maximumFractionDigits: 1 }).format(v);
  if (bytes >= GB) return `${fmt(bytes / GB)} GB`;
  return `${fmt(bytes / 1_000_000)} MB`;
}

export function allowanceMail(
  company: string,
  to: string,
  peer: { name: string; used: number; allowance: number; reduce?: boolean; speed?: string },
  url: string,
) {
  return composeMail(
    company,
    to,
    `Tu peer ${peer.name} ha usado el 80 % de sus datos`,
    [
      'Hola:',
      `Tu peer «${peer.name}» de ${company} ha usado ${formatBytes(peer.used)} de los ${formatBytes(peer.allowance)} de datos de su plan.`,
      peer.reduce
        ? `Cuando se agoten, seguirá conectado a velocidad reducida (${peer.speed}) hasta que añadas un plan. Puedes hacerlo desde tu panel: no tendrás que importar nada de nuevo.`
        : 'Cuando se agoten, el peer se deshabilitará hasta que añadas un plan. Puedes hacerlo desde tu panel: no tendrás que importar nada de nuevo.',
    ],
    { label: 'Añadir plan', url },
  );
}

/** Issue 35: the peer is online at its plan's reduced speed instead of cut. */
export function reducedMail(company: string, to: string, peer: ReducedPeer, url: string) {
  return composeMail(
    company,
    to,
    `Tu peer ${peer.name} sigue conectado a velocidad reducida`,
    peer.reason === 'data'
      ? [
          'Hola:',
          `Tu peer «${peer.name}» de ${company} agotó los datos de su plan. No lo hemos cortado: sigue conectado a velocidad reducida (${peer.speed}), suficiente para mensajería y para renovar.`,
          'Cuando añadas un plan recuperará su velocidad al instante, sin importar nada de nuevo.',
        ]
      : [
          'Hola:',
          `El plan de tu peer «${peer.name}» de ${company} venció. Sigue conectado a velocidad reducida (${peer.speed}) hasta el ${peer.until}; después se deshabilitará.`,
          'Renuévalo desde tu panel y recuperará su velocidad al instante, sin importar nada de nuevo.',
        ],
    { label: 'Añadir plan', url },
  );
}

export class AllowanceService {
  constructor(
    private readonly deps: {
      db: Db;
      mailer: Mailer;
      companyName: string;
      log: FastifyBaseLogger;
      peers: PeerService;
    },
  ) {}

  /**
   * One scheduler pass: peers past their allowance go off (or, on a plan that reduces instead, to
   * its reduced speed; expired peers within their plan's grace too: issue 35), peers past 80 % are told.
   */
  async enforce(): Promise<{ exhausted: number; notified: number; reduced: number }> {
    const exhausted = await this.deps.peers.disableExhausted();
    const reduced = [
      ...(await this.deps.peers.reduceExhausted()),
      ...(await this.deps.peers.reduceExpired()),
    ];
    await this.mailReduced(reduced);
    const notified = await this.notify();
    return { exhausted, notified, reduced: reduced.length };
  }

  /** Mails each owner (verified address, active account) that a peer is now at its reduced speed. */
  private async mailReduced(reduced: ReducedPeer[]): Promise<void> {
    const page = this.deps.mailer.enabled ? this.deps.mailer.link('/dashboard/home') : null;
    if (reduced.length === 0 || !page) return;
    const owners = await this.deps.db
      .select({ id: customers.id, email: customers.email })
      .from(customers)
      .where(
        and(
          inArray(customers.id, [...new Set(reduced.map((r) => r.customerId))]),
          eq(customers.emailVerified, true),
          eq(customers.active, true),
        ),
      );
    const emailOf = new Map(owners.map((o) => [o.id, o.email]));
    for (const peer of reduced) {
      const email = emailOf.get(peer.customerId);
      if (!email) continue;
      const ok = await this.deps.mailer.send(reducedMail(this.deps.companyName, email, peer, page));
      if (!ok) this.deps.log.warn({ peer: peer.id }, 'no se pudo enviar el aviso de velocidad reducida');
    }
  }

  /**
   * Claims each peer past 80 % once (a conditional UPDATE … RETURNING only one instance wins),
   * pushes the notice to its owner and mails a verified address. A failed mail is not retried: the
   * dashboard shows the notice from the peer's figures anyway.
   */
  private async notify(): Promise<number> {
    const claimed = await this.deps.db
      .update(peers)
      .set({ dataNoticeAt: sql`now()` })
      .from(customers)
      .where(
        and(
          eq(customers.id, peers.customerId),
          // Only peers past 80 % (data_due, index peers_data_due), not every limited one.
          eq(peers.dataDue, true),
          isNotNull(peers.dataAllowance),
          isNull(peers.dataNoticeAt),
          isNull(peers.dataExhaustedAt),
          sql`${peers.dataUsed} * 100 >= ${peers.dataAllowance} * ${NOTICE_PERCENT}::int`,
        ),
      )
      .returning({
        id: peers.id,
        customerId: peers.customerId,
        name: peers.name,
        used: peers.dataUsed,
        allowance: peers.dataAllowance,
        reduce: peers.reduceOnExhausted,
        reducedKbit: peers.reducedKbit,
        // Mailed only to a verified address of an active account.
        email: sql<
          string | null
        >`case when ${customers.emailVerified} and ${customers.active} then ${customers.email} end`,
      });
    if (!claimed.length) return 0;
    const page = this.deps.mailer.enabled ? this.deps.mailer.link('/dashboard/home') : null;
    for (const row of claimed) {
      // Past 100 % already: the switch-off's own push says it; no 80 % notice as well.
      if (row.used >= row.allowance!) continue;
      await this.deps.peers.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: fill(msg.peerDataNotice, { name: row.name }),
      });
      if (!page || !row.email) continue;
      const ok = await this.deps.mailer.send(
        allowanceMail(
          this.deps.companyName,
          row.email,
          {
            name: row.name,
            used: row.used,
            allowance: row.allowance!,
            reduce: row.reduce,
            speed: formatKbit(row.reducedKbit),
          },
          page,
        ),
      );
      if (!ok) this.deps.log.warn({ peer: row.id }, 'no se pudo enviar el aviso de datos');
    }
    return claimed.length;
  }
}
