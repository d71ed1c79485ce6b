import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, Ban, CheckCircle2, Mail } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import toast from 'react-hot-toast';
import { Link, useNavigate, useParams } from 'react-router';
import {
  customerKeys,
  customerQuery,
  patchCustomer,
  sendPasswordReset,
  type AdminCustomerDetail,
} from '../../../api/adminCustomers';
import { errorMessage } from '../../../api/http';
import { useAdminPush } from '../../../api/RealtimeProvider';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { DataTable, type Column } from '../../../components/DataTable';
import { ui } from '../../../components/ui';
import { esManager } from '../../../i18n/es.manager';
import { esCustomers } from '../../../i18n/es.manager.customers';
import { useCan } from '../ManagerLayout';
import { ManagerPageHeader, QueryView, StateBadge } from '../shared';
import { invoiceColumns } from './Invoices';
import { ReasonDialog } from './shared';

const t = esCustomers.customer;
type Peer = AdminCustomerDetail['peer_list'][number];
type Session = AdminCustomerDetail['sessions'][number];

function peerState(p: Peer, disabled: boolean): { ok: boolean; label: string } {
  if (p.live) return { ok: true, label: t.peerLive };
  if (!p.active) return { ok: false, label: t.peerOff };
  if (p.expires_at && Date.parse(p.expires_at) <= Date.now()) return { ok: false, label: t.peerExpired };
  return { ok: false, label: disabled ? t.peerHeld : t.peerOff };
}

const sessionColumns: Column<Session>[] = [
  { key: 'started', header: t.sessionColumns.started, cell: (s) => esCustomers.dateTime(s.started) },
  { key: 'last', header: t.sessionColumns.lastUsed, cell: (s) => esCustomers.dateTime(s.last_used) },
  { key: 'ip', header: t.sessionColumns.ip, cell: (s) => s.ip ?? '—' },
  {
    key: 'ua',
    header: t.sessionColumns.userAgent,
    cell: (s) => <span className="break-all">{s.user_agent ?? '—'}</span>,
  },
  { key: 'remember', header: t.sessionColumns.remember, cell: (s) => (s.remember ? t.yes : t.no) },
];

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="mt-8">
      <h2 className="mb-3 text-lg font-semibold text-white">{title}</h2>
      {children}
    </section>
  );
}

/**
 * `/manager/dashboard/customers/:id`: the customer with their peers, invoices, rooms and open
 * sessions; disable / enable (with a reason) and a password-reset mail.
 */
export function ManagerCustomerDetail() {
  const id = Number(useParams().id);
  const queryClient = useQueryClient();
  const customer = useQuery(customerQuery(id));
  // A paid invoice can bring a new peer: re-read the customer when one of theirs changes.
  useAdminPush((m) => {
    if (m.type === 'admin_invoice') void queryClient.invalidateQueries({ queryKey: customerKeys.detail(id) });
  });
  return (
    <section>
      <Link
        to="/manager/dashboard/customers"
        className={`${ui.link} mb-4 inline-flex items-center gap-1 text-sm`}
      >
        <ArrowLeft className="size-4" aria-hidden="true" />
        {esCustomers.back}
      </Link>
      <QueryView query={customer}>{(c) => <CustomerView customer={c} />}</QueryView>
    </section>
  );
}

function CustomerView({ customer: c }: { customer: AdminCustomerDetail }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canWrite = useCan('customers.write');
  const canReset = useCan('customers.reset');
  const [toggling, setToggling] = useState(false);
  const [resetting, setResetting] = useState(false);

  const toggle = useMutation({
    mutationFn: (reason: string | undefined) => patchCustomer(c.id, { disabled: !c.disabled, reason }),
    onSuccess: (next) => {
      queryClient.setQueryData(customerKeys.detail(c.id), next);
      void queryClient.invalidateQueries({ queryKey: ['manager', 'customers', 'list'] });
      setToggling(false);
      toast.success(next.disabled ? t.disabledToast : t.enabledToast);
    },
  });
  const reset = useMutation({
    mutationFn: () => sendPasswordReset(c.id),
    onSuccess: (answer) => toast.success(answer.message),
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });
  const verifiedEmail = c.email && c.email_verified ? c.email : null;

  const peerColumns: Column<Peer>[] = [
    { key: 'name', header: t.peerColumns.name, cell: (p) => <span className="font-medium">{p.name}</span> },
    { key: 'address', header: t.peerColumns.address, cell: (p) => <code>{p.address}</code> },
    { key: 'server', header: t.peerColumns.server, cell: (p) => p.server.name },
    {
      key: 'state',
      header: t.peerColumns.state,
      cell: (p) => {
        const s = peerState(p, c.disabled);
        return <StateBadge ok={s.ok}>{s.label}</StateBadge>;
      },
    },
    {
      key: 'expires',
      header: t.peerColumns.expires,
      cell: (p) => (p.expires_at ? esCustomers.dateTime(p.expires_at) : t.never),
    },
    { key: 'room', header: t.peerColumns.room, cell: (p) => p.party?.name ?? '—' },
  ];

  return (
    <>
      <ManagerPageHeader title={c.username} subtitle={t.subtitle(c.email, esCustomers.dateTime(c.created))}>
        <div className="flex flex-wrap gap-3">
          {canReset && (
            <button
              type="button"
              className={ui.buttonSecondary}
              onClick={() => setResetting(true)}
              disabled={reset.isPending}
            >
              <Mail className="size-4" aria-hidden="true" />
              {t.reset}
            </button>
          )}
          {canWrite && (
            <button
              type="button"
              className={c.disabled ? ui.buttonPrimary : ui.buttonSecondary}
              onClick={() => setToggling(true)}
            >
              {c.disabled ? (
                <CheckCircle2 className="size-4" aria-hidden="true" />
              ) : (
                <Ban className="size-4" aria-hidden="true" />
              )}
              {c.disabled ? t.enable : t.disable}
            </button>
          )}
        </div>
      </ManagerPageHeader>
      <div className="flex flex-wrap items-center gap-3 text-sm text-slate-300">
        <StateBadge ok={!c.disabled}>
          {c.disabled ? esCustomers.customers.disabled : esCustomers.customers.active}
        </StateBadge>
        {c.alias && <span>{t.alias(c.alias)}</span>}
        {c.email && (
          <span>
            {c.email} ({c.email_verified ? esCustomers.customers.verified : esCustomers.customers.unverified})
          </span>
        )}
      </div>
      {c.disabled && (
        <p role="status" className="mt-4 rounded-lg bg-amber-500/10 p-3 text-sm text-amber-100">
          {t.disabledBanner}
        </p>
      )}

      <Section title={`${t.peers} (${c.peer_list.length})`}>
        <DataTable
          label={t.peersLabel}
          columns={peerColumns}
          rows={c.peer_list}
          rowKey={(p) => p.id}
          empty={t.noPeers}
        />
      </Section>

      <Section title={`${t.invoices} (${t.invoicesOf(c.invoices.length, c.invoice_count)})`}>
        <DataTable
          label={t.invoices}
          columns={invoiceColumns.filter((col) => col.key !== 'customer')}
          rows={c.invoices}
          rowKey={(i) => i.id}
          empty={t.noInvoices}
          onRowClick={(i) => void navigate(`/manager/dashboard/invoices/${i.id}`)}
        />
        {c.invoice_count > c.invoices.length && (
          <Link
            className={`${ui.link} mt-3 inline-block text-sm`}
            to={`/manager/dashboard/invoices?q=${encodeURIComponent(c.username)}`}
          >
            {t.allInvoices}
          </Link>
        )}
      </Section>

      <Section title={t.rooms}>
        {c.rooms.length === 0 ? (
          <p className="text-slate-400">{t.noRooms}</p>
        ) : (
          <ul className="space-y-2">
            {c.rooms.map((r) => (
              <li key={r.id} className={`${ui.card} flex flex-wrap items-center gap-3 px-4 py-3`}>
                <span className="font-medium text-white">{r.name}</span>
                <span className="text-sm text-slate-400">
                  {r.role === 'owner' ? t.roomOwner : t.roomMember} · {t.roomMembers(r.members)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title={t.sessions}>
        <DataTable
          label={t.sessionsLabel}
          columns={sessionColumns}
          rows={c.sessions}
          rowKey={(s) => s.id}
          empty={t.noSessions}
        />
      </Section>

      <ReasonDialog
        open={toggling}
        onOpenChange={(open) => {
          setToggling(open);
          if (!open) toggle.reset();
        }}
        title={c.disabled ? t.enableTitle(c.username) : t.disableTitle(c.username)}
        description={c.disabled ? t.enableDescription : t.disableDescription}
        submitLabel={c.disabled ? t.enable : `${t.disable} ${c.username}`}
        danger={!c.disabled}
        required={!c.disabled}
        busy={toggle.isPending}
        error={toggle.error ? errorMessage(toggle.error, esManager.requestError) : null}
        onSubmit={(reason) => toggle.mutate(reason)}
      />
      <ConfirmDialog
        open={resetting}
        onOpenChange={setResetting}
        title={t.resetTitle}
        description={verifiedEmail ? t.resetDescription(verifiedEmail) : t.resetNoEmail}
        confirmLabel={t.resetConfirm}
        onConfirm={() => {
          setResetting(false);
          reset.mutate();
        }}
      />
    </>
  );
}
