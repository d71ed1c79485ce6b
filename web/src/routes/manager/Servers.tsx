import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Plus } from 'lucide-react';
import { useCallback, useState } from 'react';
import toast from 'react-hot-toast';
import { useSearchParams } from 'react-router';
import type { DrainProgress } from '@vpn/contracts';
import {
  deleteServer,
  drainServer,
  fleetKeys,
  rotateServerToken,
  serverListQuery,
  upgradeServerAgent,
} from '../../api/adminFleet';
import type { AdminServer, AdminServerDetail } from '../../api/adminFleet';
import { adminKeys } from '../../api/admin';
import { errorMessage } from '../../api/http';
import { useAdminPush } from '../../api/RealtimeProvider';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { SearchBox } from '../../components/DataTable';
import type { Column } from '../../components/DataTable';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { esFleet } from '../../i18n/es.manager.fleet';
import { useCan } from './ManagerLayout';
import { EditServerDialog, InstallCommandDialog, NewServerDialog } from './ServerDialogs';
import type { ShownInstall } from './ServerDialogs';
import { OutdatedBadge, ServerDetail } from './ServerDetail';
import { AgentState, EnabledState, HealthFigures, useCoalescedInvalidate, useFleetLive } from './NodeHealth';
import { esHealth } from '../../i18n/es.manager.health';
import { ListView, ManagerPageHeader, StateBadge } from './shared';

const t = esFleet.servers;

/**
 * `/manager/dashboard/servers`: the fleet (searchable, paged, in the URL), a server's detail with
 * live status and peers, and the operator's actions: new, edit, drain, delete, rotate the token.
 * `admin_server` / `admin_drain` pushes keep status and drain progress live.
 */
export function ManagerServers() {
  const queryClient = useQueryClient();
  const canWrite = useCan('servers.write');
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const selected = Number(params.get('server')) || null;
  const list = useQuery(serverListQuery(q, page));

  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<AdminServer | null>(null);
  const [draining, setDraining] = useState<AdminServerDetail | null>(null);
  const [reason, setReason] = useState('');
  const [deleting, setDeleting] = useState<AdminServerDetail | null>(null);
  const [rotating, setRotating] = useState<AdminServerDetail | null>(null);
  const [shown, setShown] = useState<ShownInstall | null>(null);

  const update = useCallback(
    (patch: Record<string, string | null>) =>
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [k, v] of Object.entries(patch)) {
            if (v === null || v === '') next.delete(k);
            else next.set(k, v);
          }
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );
  const refresh = () => void queryClient.invalidateQueries({ queryKey: fleetKeys.servers });

  useFleetLive();
  const reread = useCoalescedInvalidate([fleetKeys.servers]);
  useAdminPush((m) => {
    if (m.type === 'admin_drain') {
      // The bar moves with the push itself; the re-read brings counts and status.
      queryClient.setQueryData<AdminServerDetail>(fleetKeys.server(m.server_id), (old) =>
        old
          ? {
              ...old,
              drain: {
                ...(old.drain ??
                  ({
                    started_at: new Date().toISOString(),
                    finished_at: null,
                    error: null,
                  } as DrainProgress)),
                moved: m.moved,
                total: m.total,
                done: m.done,
              },
            }
          : old,
      );
      reread();
    }
  });

  const drain = useMutation({
    mutationFn: ({ id, why }: { id: number; why: string }) => drainServer(id, why),
    onSuccess: () => {
      toast.success(esFleet.drain.started);
      refresh();
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });
  const remove = useMutation({
    mutationFn: (id: number) => deleteServer(id),
    onSuccess: () => {
      toast.success(esFleet.remove.done);
      update({ server: null });
      refresh();
      void queryClient.invalidateQueries({ queryKey: adminKeys.metrics });
    },
    // 409 while peers remain: the server's sentence says why and what to do.
    onError: (error) => toast.error(errorMessage(error, esManager.requestError), { duration: 8000 }),
  });
  const rotate = useMutation({
    mutationFn: (server: AdminServerDetail) => rotateServerToken(server.id),
    onSuccess: (answer, server) => {
      toast.success(esManager.servers.rotated);
      setShown({ ...answer, serverName: server.name });
      refresh();
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });

  const upgrade = useMutation({
    mutationFn: (server: AdminServerDetail) => upgradeServerAgent(server.id),
    onSuccess: (detail) => {
      toast.success(esFleet.detail.upgradeRequested);
      queryClient.setQueryData(fleetKeys.server(detail.id), detail);
      refresh();
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError), { duration: 8000 }),
  });

  const c = t.columns;
  const columns: Column<AdminServer>[] = [
    { key: 'name', header: c.name, cell: (s) => <span className="font-semibold text-white">{s.name}</span> },
    {
      key: 'endpoint',
      header: c.endpoint,
      cell: (s) => <span className="font-mono text-xs">{s.endpoint}</span>,
    },
    { key: 'ubication', header: c.ubication, cell: (s) => s.ubication },
    {
      key: 'agent',
      header: c.agent,
      cell: (s) => (
        <span className="inline-flex flex-wrap items-center gap-2">
          <AgentState server={s} />
          {s.agent_version && <span className="font-mono text-xs text-slate-300">{s.agent_version}</span>}
          {s.agent_outdated && <OutdatedBadge latest={null} />}
        </span>
      ),
    },
    {
      key: 'state',
      header: c.state,
      cell: (s) => <EnabledState server={s} />,
    },
    { key: 'health', header: esHealth.column, cell: (s) => <HealthFigures server={s} compact /> },
    {
      key: 'relay',
      header: c.relay,
      cell: (s) =>
        s.relay.active === null ? (
          <span className="text-xs text-slate-400" title={t.relayTitle}>
            {t.relayUnknown}
          </span>
        ) : s.relay.error !== null ? (
          <span title={t.relayFailingTitle(s.relay.error)}>
            <StateBadge ok={false}>{t.relayFailing}</StateBadge>
          </span>
        ) : (
          <span title={t.relayTitle}>
            <StateBadge ok={s.relay.active}>{s.relay.active ? t.relayOn : t.relayOff}</StateBadge>
          </span>
        ),
    },
    { key: 'peers', header: c.peers, cell: (s) => s.peers.toLocaleString('es-ES') },
  ];

  return (
    <section>
      <ManagerPageHeader title={esManager.servers.title} subtitle={esManager.servers.subtitle}>
        {canWrite && (
          <button type="button" className={ui.buttonPrimary} onClick={() => setCreating(true)}>
            <Plus className="size-4" aria-hidden="true" />
            {esManager.servers.create}
          </button>
        )}
      </ManagerPageHeader>
      <div className="mb-4">
        <SearchBox
          value={q}
          onSearch={(next) => update({ q: next, page: null })}
          placeholder={t.searchPlaceholder}
          label={t.search}
        />
      </div>
      <ListView
        query={list}
        page={page}
        onPage={(p) => update({ page: p > 1 ? String(p) : null })}
        label={esManager.servers.tableLabel}
        columns={columns}
        rowKey={(s) => s.id}
        empty={q ? t.noMatch : t.empty}
        onRowClick={(s) => update({ server: String(s.id) })}
      />
      {selected !== null && (
        <ServerDetail
          id={selected}
          onClose={() => update({ server: null })}
          actions={{
            onEdit: setEditing,
            onDrain: (s) => {
              setReason('');
              setDraining(s);
            },
            onDelete: setDeleting,
            onRotate: setRotating,
            onUpgrade: (s) => upgrade.mutate(s),
          }}
        />
      )}

      <NewServerDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(answer) => {
          setCreating(false);
          toast.success(esManager.servers.created);
          setShown({ ...answer, serverName: answer.server.name });
          refresh();
          void queryClient.invalidateQueries({ queryKey: adminKeys.metrics });
        }}
      />
      <EditServerDialog
        server={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          toast.success(esFleet.edit.saved);
          refresh();
        }}
      />
      <ConfirmDialog
        open={draining !== null}
        onOpenChange={(open) => (open ? undefined : setDraining(null))}
        title={esFleet.drain.title}
        description={draining ? esFleet.drain.description(draining.name, draining.peers) : ''}
        confirmLabel={draining ? esFleet.drain.confirmNamed(draining.name) : esFleet.drain.confirm}
        danger
        onConfirm={() => {
          if (draining) drain.mutate({ id: draining.id, why: reason.trim() });
          setDraining(null);
        }}
      >
        <label className={`${ui.label} mt-4`} htmlFor="drain-reason">
          {esFleet.drain.reason}
        </label>
        <input
          id="drain-reason"
          className={ui.input}
          value={reason}
          maxLength={300}
          onChange={(e) => setReason(e.target.value)}
        />
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => (open ? undefined : setDeleting(null))}
        title={esFleet.remove.title}
        description={deleting ? esFleet.remove.description(deleting.name) : ''}
        confirmLabel={deleting ? esFleet.remove.confirmNamed(deleting.name) : esFleet.remove.confirm}
        danger
        onConfirm={() => {
          if (deleting) remove.mutate(deleting.id);
          setDeleting(null);
        }}
      />
      <ConfirmDialog
        open={rotating !== null}
        onOpenChange={(open) => (open ? undefined : setRotating(null))}
        title={esManager.servers.rotateTitle}
        description={rotating ? esManager.servers.rotateDescription(rotating.name) : ''}
        confirmLabel={rotating ? esFleet.remove.rotateNamed(rotating.name) : esManager.servers.rotate}
        danger
        onConfirm={() => {
          if (rotating) rotate.mutate(rotating);
          setRotating(null);
        }}
      />
      <InstallCommandDialog shown={shown} onClose={() => setShown(null)} />
    </section>
  );
}
