/**
 * The Servidores page's dialogs: new server, edit, and the install command shown once (after
 * creating a server or rotating its token).
 */
import { useMutation } from '@tanstack/react-query';
import { TriangleAlert } from 'lucide-react';
import { useState } from 'react';
import { createServer, patchServer } from '../../api/adminFleet';
import type { AdminServer, AgentInstall, NewServerBody } from '../../api/adminFleet';
import { errorMessage } from '../../api/http';
import { CopyButton } from '../../components/CopyButton';
import { TextField } from '../../components/Field';
import { FormDialog } from '../../components/FormDialog';
import { Modal } from '../../components/Modal';
import { esManager } from '../../i18n/es.manager';
import { esFleet } from '../../i18n/es.manager.fleet';

const ENDPOINT = /^[^\s:]+:\d{1,5}$/;

export interface ShownInstall extends AgentInstall {
  serverName: string;
}

/** The install command with its token, once: closing the dialog drops it from memory. */
export function InstallCommandDialog({
  shown,
  onClose,
}: {
  shown: ShownInstall | null;
  onClose: () => void;
}) {
  const t = esFleet.install;
  return (
    <Modal
      open={shown !== null}
      onOpenChange={(open) => (open ? undefined : onClose())}
      title={t.title}
      description={shown ? t.description(shown.serverName) : undefined}
      size="max-w-2xl"
    >
      {shown && (
        <div className="space-y-4">
          <p
            role="alert"
            className="flex items-start gap-2 rounded-lg border border-amber-500/40 bg-amber-500/10 px-3 py-2.5 text-sm text-amber-200"
          >
            <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            {t.warning}
          </p>
          <div>
            <div className="mb-1.5 flex items-center justify-between gap-3">
              <h3 className="text-sm font-medium text-slate-200">{t.commandLabel}</h3>
              <CopyButton
                text={shown.install_command}
                label={t.copy}
                copiedLabel={t.copied}
                ariaLabel={t.copyCommand}
                ariaCopiedLabel={t.commandCopied}
                successToast={t.copiedToast}
                errorToast={t.copyError}
              />
            </div>
            {/* A region that scrolls sideways: focusable and named, so a keyboard can scroll it
                (axe scrollable-region-focusable, issue 34). */}
            <pre
              tabIndex={0}
              role="region"
              aria-label={t.commandLabel}
              className="overflow-x-auto focus:ring-2 focus:ring-emerald-400/40 focus:outline-none rounded-lg border border-slate-700 bg-navy-950/80 px-3 py-2.5 font-mono text-xs whitespace-pre text-emerald-200"
            >
              {shown.install_command}
            </pre>
          </div>
        </div>
      )}
    </Modal>
  );
}

const EMPTY = {
  name: '',
  endpoint: '',
  ubication: '',
  allowRooms: false,
  dns: '',
  mtu: '',
  interfaceName: '',
};

export function NewServerDialog({
  open,
  onOpenChange,
  onCreated,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (answer: AgentInstall & { server: AdminServer }) => void;
}) {
  const f = esManager.servers.form;
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: createServer,
    onSuccess: (answer) => {
      setForm(EMPTY);
      onCreated(answer);
    },
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });

  function submit() {
    const name = form.name.trim();
    const endpoint = form.endpoint.trim();
    const ubication = form.ubication.trim();
    if (!name || !endpoint || !ubication) return setError(f.required);
    if (!ENDPOINT.test(endpoint)) return setError(f.endpointFormat);
    const body: NewServerBody = { name, endpoint, ubication, allow_partys: form.allowRooms };
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
      onClose={() => {
        setError(null);
        onOpenChange(false);
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
      <Check
        label={f.allowRooms}
        checked={form.allowRooms}
        disabled={create.isPending}
        onChange={(v) => setForm((prev) => ({ ...prev, allowRooms: v }))}
      />
      <TextField label={f.dns} {...field('dns')} />
      <TextField label={f.mtu} inputMode="numeric" {...field('mtu')} />
      <TextField label={f.interfaceName} {...field('interfaceName')} />
    </FormDialog>
  );
}

function Check({
  label,
  checked,
  disabled,
  onChange,
}: {
  label: string;
  checked: boolean;
  disabled: boolean;
  onChange: (v: boolean) => void;
}) {
  return (
    <label className="flex items-center gap-2 text-sm text-slate-200">
      <input
        type="checkbox"
        className="size-4 accent-emerald-500"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
      />
      {label}
    </label>
  );
}

/** Edits name, host, port, location, active, rooms and discovery; sends only what changed. */
export function EditServerDialog({
  server,
  onClose,
  onSaved,
}: {
  server: AdminServer | null;
  onClose: () => void;
  onSaved: (server: AdminServer) => void;
}) {
  return server ? <EditForm key={server.id} server={server} onClose={onClose} onSaved={onSaved} /> : null;
}

function EditForm({
  server,
  onClose,
  onSaved,
}: {
  server: AdminServer;
  onClose: () => void;
  onSaved: (server: AdminServer) => void;
}) {
  const t = esFleet.edit;
  const [form, setForm] = useState({
    name: server.name,
    host: server.host,
    port: String(server.port),
    ubication: server.ubication,
    active: server.active,
    allowRooms: server.allow_partys,
    allowDiscovery: server.allow_discovery,
  });
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: Parameters<typeof patchServer>[1]) => patchServer(server.id, body),
    onSuccess: onSaved,
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });

  function submit() {
    const port = Number(form.port.trim());
    if (!form.name.trim() || !form.host.trim()) return setError(t.required);
    if (!Number.isInteger(port) || port < 1 || port > 65535) return setError(t.portInvalid);
    const body: Parameters<typeof patchServer>[1] = {};
    if (form.name.trim() !== server.name) body.name = form.name.trim();
    if (form.host.trim() !== server.host) body.host = form.host.trim();
    if (port !== server.port) body.port = port;
    if (form.ubication.trim() !== server.ubication) body.ubication = form.ubication.trim();
    if (form.active !== server.active) body.active = form.active;
    if (form.allowRooms !== server.allow_partys) body.allow_partys = form.allowRooms;
    if (form.allowDiscovery !== server.allow_discovery) body.allow_discovery = form.allowDiscovery;
    if (Object.keys(body).length === 0) return onClose();
    setError(null);
    save.mutate(body);
  }

  const text = (key: 'name' | 'host' | 'port' | 'ubication') => ({
    value: form[key],
    onChange: (e: { target: { value: string } }) => setForm((prev) => ({ ...prev, [key]: e.target.value })),
    disabled: save.isPending,
  });

  return (
    <FormDialog
      onClose={onClose}
      title={t.title}
      description={t.description}
      submitLabel={t.submit}
      onSubmit={submit}
      busy={save.isPending}
      error={error}
    >
      <TextField label={t.name} {...text('name')} />
      <TextField label={t.host} {...text('host')} />
      <TextField label={t.port} inputMode="numeric" {...text('port')} />
      <TextField label={t.ubication} {...text('ubication')} />
      <Check
        label={t.active}
        checked={form.active}
        disabled={save.isPending}
        onChange={(v) => setForm((prev) => ({ ...prev, active: v }))}
      />
      <Check
        label={t.allowRooms}
        checked={form.allowRooms}
        disabled={save.isPending}
        onChange={(v) => setForm((prev) => ({ ...prev, allowRooms: v }))}
      />
      <Check
        label={t.allowDiscovery}
        checked={form.allowDiscovery}
        disabled={save.isPending}
        onChange={(v) => setForm((prev) => ({ ...prev, allowDiscovery: v }))}
      />
    </FormDialog>
  );
}
