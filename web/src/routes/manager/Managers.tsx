import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { KeyRound, Pencil, Plus, Power, Trash2 } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import toast from 'react-hot-toast';
import { ROLE_LABELS, ROLES, type Role } from '@vpn/contracts';
import {
  createManager,
  deleteManager,
  managerKeys,
  managersQuery,
  resetManagerTotp,
  updateManager,
  type AdminManager,
} from '../../api/adminManagers';
import { errorMessage } from '../../api/http';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { FilterSelect, SearchBox, type Column } from '../../components/DataTable';
import { PasswordField, TextField } from '../../components/Field';
import { FormDialog } from '../../components/FormDialog';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { esManagers } from '../../i18n/es.manager.managers';
import { useListParams } from './listParams';
import { useCurrentManager } from './ManagerLayout';
import { ListView, ManagerPageHeader, StateBadge } from './shared';

const t = esManagers.managers;
const date = new Intl.DateTimeFormat('es-ES', { dateStyle: 'medium' });

type Editing = { mode: 'create' } | { mode: 'edit'; manager: AdminManager };
type Confirming = { kind: 'disable' | 'delete' | 'resetTotp'; manager: AdminManager };

/** `/manager/dashboard/managers` (owner only): list, create, edit, disable, delete managers. */
export function ManagerManagers() {
  const { q, page, filters, update, onSearch } = useListParams(['role'] as const);
  const roleParam = filters.role;
  const role = (ROLES as readonly string[]).includes(roleParam) ? (roleParam as Role) : '';
  const query = useQuery(managersQuery({ q, role, page }));
  const queryClient = useQueryClient();
  const me = useCurrentManager();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [confirming, setConfirming] = useState<Confirming | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: managerKeys.all });
  const action = useMutation({
    mutationFn: async ({ kind, manager }: Confirming) => {
      if (kind === 'delete') await deleteManager(manager.id);
      else if (kind === 'resetTotp') await resetManagerTotp(manager.id);
      else await updateManager(manager.id, { disabled: !manager.disabled });
      return { kind, manager };
    },
    onSuccess: ({ kind, manager }) => {
      toast.success(
        kind === 'delete'
          ? t.deletedToast(manager.username)
          : kind === 'resetTotp'
            ? t.saved
            : manager.disabled
              ? t.enabledToast(manager.username)
              : t.disabledToast(manager.username),
      );
      void refresh();
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });

  const columns: Column<AdminManager>[] = [
    {
      key: 'username',
      header: t.columns.username,
      cell: (m) => (
        <span className="font-medium text-white">
          {m.username} {m.id === me.id && <span className="text-slate-400">{t.you}</span>}
        </span>
      ),
    },
    { key: 'role', header: t.columns.role, cell: (m) => ROLE_LABELS[m.role] },
    {
      key: 'state',
      header: t.columns.state,
      cell: (m) => <StateBadge ok={!m.disabled}>{m.disabled ? t.disabled : t.active}</StateBadge>,
    },
    { key: 'totp', header: t.columns.totp, cell: (m) => (m.totp_enabled ? t.totpOn : t.totpOff) },
    { key: 'created', header: t.columns.created, cell: (m) => date.format(new Date(m.created)) },
    {
      key: 'actions',
      header: <span className="sr-only">{t.columns.actions}</span>,
      className: 'text-right',
      cell: (m) => (
        <div className="flex flex-wrap justify-end gap-1">
          <IconButton
            label={t.editLabel(m.username)}
            onClick={() => setEditing({ mode: 'edit', manager: m })}
          >
            <Pencil className="size-4" aria-hidden="true" />
          </IconButton>
          {m.id !== me.id && (
            <IconButton
              label={t.toggleLabel(m.username, m.disabled)}
              onClick={() =>
                m.disabled
                  ? action.mutate({ kind: 'disable', manager: m })
                  : setConfirming({ kind: 'disable', manager: m })
              }
            >
              <Power className="size-4" aria-hidden="true" />
            </IconButton>
          )}
          {m.totp_enabled && (
            <IconButton
              label={t.resetTotpLabel(m.username)}
              onClick={() => setConfirming({ kind: 'resetTotp', manager: m })}
            >
              <KeyRound className="size-4" aria-hidden="true" />
            </IconButton>
          )}
          {m.id !== me.id && (
            <IconButton
              label={t.deleteLabel(m.username)}
              onClick={() => setConfirming({ kind: 'delete', manager: m })}
            >
              <Trash2 className="size-4" aria-hidden="true" />
            </IconButton>
          )}
        </div>
      ),
    },
  ];

  const confirmText =
    confirming &&
    {
      disable: { title: t.confirmDisableTitle, body: t.confirmDisable, label: t.disable },
      delete: { title: t.confirmDeleteTitle, body: t.confirmDelete, label: t.delete },
      resetTotp: { title: t.confirmResetTitle, body: t.confirmReset, label: t.resetTotp },
    }[confirming.kind];

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle}>
        <button type="button" className={ui.buttonPrimary} onClick={() => setEditing({ mode: 'create' })}>
          <Plus className="size-4" aria-hidden="true" />
          {t.create}
        </button>
      </ManagerPageHeader>
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-center">
        <SearchBox value={q} onSearch={onSearch} placeholder={t.search} label={t.searchLabel} />
        <FilterSelect
          label={t.roleFilter}
          value={role}
          onChange={(value) => update({ role: value })}
          options={[
            { value: '', label: t.allRoles },
            ...ROLES.map((r) => ({ value: r, label: ROLE_LABELS[r] })),
          ]}
        />
      </div>
      <ListView
        query={query}
        page={page}
        onPage={(p) => update({ page: p })}
        label={t.tableLabel}
        columns={columns}
        rowKey={(m) => m.id}
        empty={t.empty}
      />
      {editing && (
        <ManagerDialog
          editing={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void refresh();
          }}
        />
      )}
      {confirming && confirmText && (
        <ConfirmDialog
          open
          onOpenChange={(open) => !open && setConfirming(null)}
          title={confirmText.title}
          description={confirmText.body(confirming.manager.username)}
          confirmLabel={`${confirmText.label}${confirming.kind === 'resetTotp' ? ' de' : ''} ${confirming.manager.username}`}
          danger
          onConfirm={() => action.mutate(confirming)}
        />
      )}
    </section>
  );
}

function IconButton({
  label,
  onClick,
  children,
}: {
  label: string;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className="rounded-lg p-2 text-slate-300 hover:bg-white/5 hover:text-white"
    >
      {children}
    </button>
  );
}

/** Create or edit a manager: username, password (optional when editing) and role. */
function ManagerDialog({
  editing,
  onClose,
  onSaved,
}: {
  editing: Editing;
  onClose: () => void;
  onSaved: () => void;
}) {
  const current = editing.mode === 'edit' ? editing.manager : null;
  const [username, setUsername] = useState(current?.username ?? '');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>(current?.role ?? 'support');
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () => {
      if (!current) return createManager({ username: username.trim(), password, role });
      return updateManager(current.id, {
        ...(username.trim() !== current.username ? { username: username.trim() } : {}),
        ...(password ? { password } : {}),
        ...(role !== current.role ? { role } : {}),
      });
    },
    onSuccess: (saved) => {
      toast.success(current ? t.saved : t.created(saved.username));
      onSaved();
    },
    onError: (e) => setError(errorMessage(e, esManager.requestError)),
  });

  function submit() {
    if (!current && (!username.trim() || !password)) return setError(t.form.required);
    if (current && username.trim() === current.username && !password && role === current.role)
      return onClose();
    setError(null);
    save.mutate();
  }

  return (
    <FormDialog
      onClose={onClose}
      title={current ? t.form.editTitle(current.username) : t.form.createTitle}
      description={current ? t.form.editDescription : t.form.createDescription}
      submitLabel={current ? t.form.editSubmit : t.form.createSubmit}
      onSubmit={submit}
      busy={save.isPending}
      error={error}
    >
      <TextField
        label={t.form.username}
        name="username"
        autoComplete="off"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
        disabled={save.isPending}
      />
      <PasswordField
        label={current ? t.form.newPassword : t.form.password}
        name="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={save.isPending}
      />
      <div>
        <label htmlFor="manager-role" className={ui.label}>
          {t.form.role}
        </label>
        <select
          id="manager-role"
          className={ui.input}
          value={role}
          onChange={(e) => setRole(e.target.value as Role)}
          disabled={save.isPending}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_LABELS[r]}
            </option>
          ))}
        </select>
      </div>
    </FormDialog>
  );
}
