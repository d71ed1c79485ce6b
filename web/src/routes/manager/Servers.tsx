import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { KeyRound, Plus } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { adminKeys, createServer, rotateAgentToken, serversQuery } from '../../api/admin';
import type { AdminServer, NewServerBody } from '../../api/admin';
import { errorMessage } from '../../api/http';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { TextField } from '../../components/Field';
import { FormDialog } from '../../components/FormDialog';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { AgentTokenDialog } from './AgentTokenDialog';
import type { ShownToken } from './AgentTokenDialog';
import { ManagerPageHeader, QueryView, StateBadge, tableClass, tdClass, thClass } from './shared';

const t = esManager.servers;
const ENDPOINT = /^[^\s:]+:\d{1,5}$/;

/** `/manager/dashboard/servers`: the nodes, their agents, new servers and token rotation. */
export function ManagerServers() {
  const queryClient = useQueryClient();
  const servers = useQuery(serversQuery());
  const [creating, setCreating] = useState(false);
  const [rotating, setRotating] = useState<AdminServer | null>(null);
  const [shown, setShown] = useState<ShownToken | null>(null);

  const rotate = useMutation({
    mutationFn: (server: AdminServer) => rotateAgentToken(server.id),
    onSuccess: ({ agent_token }, server) => {
      toast.success(t.rotated);
      setShown({ serverName: server.name, token: agent_token });
      void queryClient.invalidateQueries({ queryKey: adminKeys.servers });
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle}>
        <button type="button" className={ui.buttonPrimary} onClick={() => setCreating(true)}>
          <Plus className="size-4" aria-hidden="true" />
          {t.create}
        </button>
      </ManagerPageHeader>
      <QueryView query={servers}>
        {(list) =>
          list.length === 0 ? (
            <p className={`${ui.card} p-8 text-center text-slate-300`}>{t.empty}</p>
          ) : (
            <ServersTable servers={list} busy={rotate.isPending} onRotate={setRotating} />
          )
        }
      </QueryView>

      <NewServerDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(server, token) => {
          setCreating(false);
          toast.success(t.created);
          setShown({ serverName: server.name, token });
          void queryClient.invalidateQueries({ queryKey: adminKeys.servers });
          void queryClient.invalidateQueries({ queryKey: adminKeys.metrics });
        }}
      />
      <ConfirmDialog
        open={rotating !== null}
        onOpenChange={(open) => (open ? undefined : setRotating(null))}
        title={t.rotateTitle}
        description={rotating ? t.rotateDescription(rotating.name) : ''}
        confirmLabel={t.rotate}
        onConfirm={() => {
          if (rotating) rotate.mutate(rotating);
          setRotating(null);
        }}
      />
      <AgentTokenDialog shown={shown} onClose={() => setShown(null)} />
    </section>
  );
}

function ServersTable({
  servers,
  busy,
  onRotate,
}: {
  servers: AdminServer[];
  busy: boolean;
  onRotate: (server: AdminServer) => void;
}) {
  const c = t.columns;
  return (
    <div className={`${ui.card} overflow-x-auto`}>
      <table className={tableClass} aria-label={t.tableLabel}>
        <thead className="border-b border-slate-800">
          <tr>
            {[c.name, c.endpoint, c.ubication, c.state, c.peers, c.revision, c.agent, c.actions].map(
              (label) => (
                <th key={label} scope="col" className={thClass}>
                  {label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-800">
          {servers.map((server) => (
            <tr key={server.id}>
              <th scope="row" className={`${tdClass} font-semibold text-white`}>
                {server.name}
              </th>
              <td className={`${tdClass} font-mono text-xs`}>{server.endpoint}</td>
              <td className={tdClass}>{server.ubication}</td>
              <td className={tdClass}>
                <StateBadge ok={server.agent_online}>
                  {server.agent_online ? t.active : t.inactive}
                </StateBadge>
              </td>
              <td className={tdClass}>{server.peers}</td>
              <td className={tdClass}>
                {server.revision} ({server.acked_revision})
              </td>
              <td className={tdClass}>{server.agent_version ?? t.noAgent}</td>
              <td className={tdClass}>
                <button
                  type="button"
                  className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`}
                  disabled={busy}
                  aria-label={t.rotateLabel(server.name)}
                  onClick={() => onRotate(server)}
                >
                  <KeyRound className="size-4" aria-hidden="true" />
                  {t.rotate}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const EMPTY = {
  name: '',
  endpoint: '',
  ubication: '',
  allowPartys: false,
  dns: '',
  mtu: '',
  interfaceName: '',
};

function NewServerDialog({
  open,
  onOpenChange,
  onCreated,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (server: AdminServer, token: string) => void;
}) {
  const f = t.form;
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: createServer,
    onSuccess: ({ server, agent_token }) => {
      setForm(EMPTY);
      onCreated(server, agent_token);
    },
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });

  function submit() {
    const name = form.name.trim();
    const endpoint = form.endpoint.trim();
    const ubication = form.ubication.trim();
    if (!name || !endpoint || !ubication) return setError(f.required);
    if (!ENDPOINT.test(endpoint)) return setError(f.endpointFormat);
    const body: NewServerBody = { name, endpoint, ubication, allow_partys: form.allowPartys };
    if (form.dns.trim()) body.dns = form.dns.trim();
    if (form.interfaceName.trim()) body.interface_name = form.interfaceName.trim();
    if (form.mtu.trim()) {
      const mtu = Number(form.mtu.trim());
      if (!Number.isInteger(mtu)) return setError(f.mtuInvalid);
      body.mtu = mtu;
    }
    setError(null);
    create.mutate(body);
  }

  const field = (key: 'name' | 'endpoint' | 'ubication' | 'dns' | 'mtu' | 'interfaceName') => ({
    value: form[key],
    onChange: (e: { target: { value: string } }) => setForm((prev) => ({ ...prev, [key]: e.target.value })),
    disabled: create.isPending,
  });

  return (
    <FormDialog
      open={open}
      onOpenChange={(next) => {
        if (!next) setError(null);
        onOpenChange(next);
      }}
      title={f.title}
      description={f.description}
      submitLabel={f.submit}
      onSubmit={submit}
      busy={create.isPending}
      error={error}
    >
      <TextField label={f.name} {...field('name')} />
      <TextField label={f.endpoint} placeholder="vpn.example.com:51820" {...field('endpoint')} />
      <TextField label={f.ubication} {...field('ubication')} />
      <label className="flex items-center gap-2 text-sm text-slate-200">
        <input
          type="checkbox"
          className="size-4 accent-emerald-500"
          checked={form.allowPartys}
          disabled={create.isPending}
          onChange={(e) => setForm((prev) => ({ ...prev, allowPartys: e.target.checked }))}
        />
        {f.allowPartys}
      </label>
      <TextField label={f.dns} {...field('dns')} />
      <TextField label={f.mtu} inputMode="numeric" {...field('mtu')} />
      <TextField label={f.interfaceName} {...field('interfaceName')} />
    </FormDialog>
  );
}
