import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { Peer } from '../../../api/peers';
import { peerUsageQuery } from '../../../api/queries';
import { DataTable, type Column } from '../../../components/DataTable';
import { Modal } from '../../../components/Modal';
import { OnlineDot } from '../../../components/OnlineDot';
import { DataAllowanceBar } from '../../../components/DataAllowanceBar';
import { UsageChart } from '../../../components/UsageChart';
import { es } from '../../../i18n/es';
import { absoluteUrl, formatBytes, formatDate, formatPrice } from '../../../lib/format';
import { formatKbit, reducedText, speedLabel } from '../../../lib/speed';
import { PeerStateBadge } from './PeerStatus';

const t = es.dashboard.peers.details;

/** The peer's plan history, newest first as the API sends it. */
const historyColumns: Column<Peer['plans_history'][number]>[] = [
  {
    key: 'plan',
    header: t.plan,
    cell: (entry) =>
      entry.refunded ? (
        <>
          {entry.plan_name}{' '}
          <span
            className="ml-1 inline-flex rounded-full bg-sky-500/15 px-2 py-0.5 text-xs font-semibold text-sky-300"
            title={t.refundedOn(formatDate(entry.refunded))}
          >
            {t.refunded}
          </span>
        </>
      ) : (
        entry.plan_name
      ),
  },
  {
    key: 'price',
    header: t.price,
    className: 'whitespace-nowrap',
    cell: (entry) => formatPrice(entry.plan_price),
  },
  { key: 'date', header: t.date, cell: (entry) => formatDate(entry.created) },
];

/** Creation date, expiry (or 'Indeterminado'), private IP, server, room, usage, and the plan history. */
export function PeerDetailsDialog({ peer, onClose }: { peer: Peer | null; onClose: () => void }) {
  return (
    <Modal
      open={peer !== null}
      onOpenChange={(open) => !open && onClose()}
      title={peer ? t.title(peer.name) : ''}
      description={t.description}
    >
      {peer && (
        <div className="space-y-6">
          {peer.active && peer.speed.reduced && (
            <p role="note" className="rounded-lg bg-amber-500/10 px-3 py-2 text-sm text-amber-100">
              <strong>{es.speed.reduced}.</strong> {reducedText(peer.speed)}
            </p>
          )}
          {peer.manager_disabled && (
            <p role="note" className="rounded-lg bg-amber-500/10 px-3 py-2 text-sm text-amber-100">
              {es.dashboard.peers.managerDisabledHelp}
            </p>
          )}
          <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
            <Item label={es.dashboard.peers.columns.state}>
              <PeerStateBadge peer={peer} />
            </Item>
            <Item label={t.created}>{formatDate(peer.created)}</Item>
            <Item label={t.expires}>
              {peer.expiration_date ? formatDate(peer.expiration_date) : t.undetermined}
            </Item>
            <Item label={t.address}>
              <span className="font-mono">{peer.address}</span>
            </Item>
            <Item label={t.server}>
              {peer.server.name}{' '}
              <span className="font-mono text-xs text-slate-400">({peer.server.address})</span>
            </Item>
            <Item label={t.room}>{peer.party?.name ?? t.noRoom}</Item>
            <Item label={es.speed.label}>
              {peer.active && peer.speed.reduced
                ? `${es.speed.reduced}: ${formatKbit(peer.speed.reduced.kbit)}`
                : speedLabel(peer.speed.down_mbit, peer.speed.up_mbit)}
            </Item>
            <Item label={t.mirror} wide>
              <span className="font-mono text-xs break-all">{absoluteUrl(peer.mirror_link)}</span>
            </Item>
          </dl>
          <PeerUsageSection peerId={peer.id} />
          <section aria-labelledby="plan-history-title">
            <h3 id="plan-history-title" className="mb-2 font-semibold text-white">
              {t.history}
            </h3>
            {peer.plans_history.length === 0 ? (
              <p className="text-sm text-slate-400">{t.noHistory}</p>
            ) : (
              <DataTable
                label={t.history}
                columns={historyColumns}
                rows={peer.plans_history}
                rowKey={(entry) => `${entry.created}-${entry.plan_name}-${entry.plan_price}`}
                empty={t.noHistory}
              />
            )}
          </section>
        </div>
      )}
    </Modal>
  );
}

/** Online, last handshake, the current period's traffic and the last 30 days as a chart. */
function PeerUsageSection({ peerId }: { peerId: number }) {
  const usage = useQuery(peerUsageQuery(peerId));
  return (
    <section aria-labelledby="peer-usage-title">
      <h3 id="peer-usage-title" className="mb-2 font-semibold text-white">
        {t.usage}
      </h3>
      {usage.isPending ? (
        <p className="text-sm text-slate-400">{t.usageLoading}</p>
      ) : usage.isError ? (
        <p role="alert" className="text-sm text-red-300">
          {t.usageError}
        </p>
      ) : (
        <div className="space-y-3">
          <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
            <Item label={t.connection}>
              <OnlineDot online={usage.data.online} /> {usage.data.online ? t.online : t.offline}
            </Item>
            <Item label={t.lastHandshake}>
              {usage.data.last_handshake ? formatDate(usage.data.last_handshake) : t.never}
            </Item>
            <Item label={t.period(formatDate(usage.data.period.since))} wide>
              {t.download} {formatBytes(usage.data.period.download)} · {t.upload}{' '}
              {formatBytes(usage.data.period.upload)}
            </Item>
          </dl>
          {usage.data.period.allowance !== null && (
            <DataAllowanceBar used={usage.data.period.used} allowance={usage.data.period.allowance} />
          )}
          <figure>
            <figcaption className="mb-1 text-sm text-slate-400">{t.chartTitle}</figcaption>
            <UsageChart
              from={usage.data.days_from}
              upload={usage.data.upload}
              download={usage.data.download}
              label={t.chartLabel}
              dayLabel={t.dayLabel}
            />
          </figure>
        </div>
      )}
    </section>
  );
}

/**
 * One term and its value: a `<div>` straight under the `<dl>` (the one wrapper a definition list
 * admits), across both columns when `wide`.
 */
function Item({ label, wide = false, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? 'sm:col-span-2' : undefined}>
      <dt className="text-slate-400">{label}</dt>
      <dd className="mt-0.5 text-slate-100">{children}</dd>
    </div>
  );
}
