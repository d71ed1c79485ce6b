import { useQuery } from '@tanstack/react-query';
import { Layers, Plus } from 'lucide-react';
import { Link } from 'react-router';
import { useState } from 'react';
import { PEER_STATES } from '@vpn/contracts';
import { allServersQuery } from '../../../api/adminFleet';
import { adminPeersQuery, type AdminPeer } from '../../../api/adminCatalog';
import { FilterSelect, SearchBox, type Column } from '../../../components/DataTable';
import { ui } from '../../../components/ui';
import { esCatalog } from '../../../i18n/es.manager.catalog';
import { formatDate } from '../../../lib/format';
import { formatKbit, speedLabel } from '../../../lib/speed';
import { es } from '../../../i18n/es';
import { esBulk } from '../../../i18n/es.manager.bulk';
import { useCan } from '../ManagerLayout';
import { ListView, ManagerPageHeader } from '../shared';
import { ManualPeerDialog } from './ManualPeerDialog';
import { PeerDetail, PeerState } from './PeerDetail';
import { PAGE_SIZE, useListParams } from '../listParams';

const t = esCatalog.peers;

/**
 * `/manager/dashboard/peers`: every customer's peers — search (name, owner, public key, IP),
 * server and state filters, pages; a peer's detail holds its actions. 'Peer manual' creates one.
 */
export function ManagerPeers() {
  const canWrite = useCan('peers.write');
  const { q, page, filters, update, onSearch, onPage } = useListParams(['server', 'state'] as const);
  const peers = useQuery(
    adminPeersQuery({ q, page, page_size: PAGE_SIZE, server: filters.server, state: filters.state }),
  );
  const servers = useQuery(allServersQuery());
  const [open, setOpen] = useState<number | null>(null);
  const [creating, setCreating] = useState(false);

  const columns: Column<AdminPeer>[] = [
    {
      key: 'name',
      header: t.columns.name,
      cell: (p) => <span className="font-medium text-white">{p.name}</span>,
    },
    { key: 'owner', header: t.columns.owner, cell: (p) => p.owner.username },
    { key: 'server', header: t.columns.server, cell: (p) => p.server.name },
    {
      key: 'address',
      header: t.columns.address,
      cell: (p) => <span className="font-mono">{p.address}</span>,
    },
    {
      key: 'state',
      header: t.columns.state,
      cell: (p) => (
        <span className="inline-flex flex-wrap items-center gap-2">
          <PeerState peer={p} />
          {p.concurrent_use && (
            <span className="rounded-full bg-amber-400/15 px-2 py-0.5 text-xs font-semibold text-amber-200">
              {t.states.concurrent_use}
            </span>
          )}
          {p.active && p.speed.reduced && (
            <span className="rounded-full bg-amber-400/15 px-2 py-0.5 text-xs font-semibold text-amber-200">
              {es.speed.reduced}
            </span>
          )}
        </span>
      ),
    },
    {
      key: 'speed',
      header: es.speed.label,
      cell: (p) =>
        p.active && p.speed.reduced
          ? formatKbit(p.speed.reduced.kbit)
          : speedLabel(p.speed.down_mbit, p.speed.up_mbit),
    },
    {
      key: 'expires',
      header: t.columns.expires,
      cell: (p) => (p.expires_at ? formatDate(p.expires_at) : esCatalog.never),
    },
  ];

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle}>
        {canWrite && (
          <div className="flex flex-wrap gap-3">
            <Link to="/manager/dashboard/peers/bulk" className={ui.buttonSecondary}>
              <Layers className="size-4" aria-hidden="true" />
              {esBulk.open}
            </Link>
            <button type="button" className={ui.buttonPrimary} onClick={() => setCreating(true)}>
              <Plus className="size-4" aria-hidden="true" />
              {t.create}
            </button>
          </div>
        )}
      </ManagerPageHeader>
      <div className="mb-4 flex flex-col gap-3 lg:flex-row lg:items-center">
        <SearchBox value={q} onSearch={onSearch} placeholder={t.searchPlaceholder} label={esCatalog.search} />
        <FilterSelect
          label={t.serverFilter}
          value={filters.server}
          onChange={(server) => update({ server })}
          options={[
            { value: '', label: esCatalog.all },
            ...(servers.data ?? []).map((s) => ({ value: String(s.id), label: s.name })),
          ]}
        />
        <FilterSelect
          label={t.stateFilter}
          value={filters.state}
          onChange={(state) => update({ state })}
          options={[
            { value: '', label: esCatalog.all },
            ...PEER_STATES.map((s) => ({ value: s, label: t.states[s] })),
          ]}
        />
      </div>
      <ListView
        query={peers}
        page={page}
        onPage={onPage}
        label={t.tableLabel}
        columns={columns}
        rowKey={(p) => p.id}
        empty={q || filters.server || filters.state ? t.emptySearch : t.empty}
        onRowClick={(p) => setOpen(p.id)}
      />
      {open !== null && <PeerDetail id={open} onClose={() => setOpen(null)} />}
      {creating && <ManualPeerDialog onClose={() => setCreating(false)} />}
    </section>
  );
}
