import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Reason } from '@vpn/contracts';
import {
  adminRoomQuery,
  adminRoomsQuery,
  catalogKeys,
  deleteRoom,
  type AdminRoom,
  type AdminRoomDetail,
} from '../../../api/adminCatalog';
import { errorMessage } from '../../../api/http';
import { DataTable, SearchBox, type Column } from '../../../components/DataTable';
import { TextField } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { Modal } from '../../../components/Modal';
import { ui } from '../../../components/ui';
import { esManager } from '../../../i18n/es.manager';
import { esCatalog } from '../../../i18n/es.manager.catalog';
import { formatDate } from '../../../lib/format';
import { useCan } from '../ManagerLayout';
import { ListView, ManagerPageHeader, QueryView, StateBadge } from '../shared';
import { firstIssue, PAGE_SIZE, useListParams } from '../listParams';

const t = esCatalog.rooms;

const ownerName = (o: AdminRoom['owner']) => (o.alias ? `${o.alias} (${o.username})` : o.username);

/** `/manager/dashboard/partys`: every customer's rooms; detail with members; delete with a reason. */
export function ManagerRooms() {
  const { q, page, onSearch, onPage } = useListParams();
  const rooms = useQuery(adminRoomsQuery({ q, page, page_size: PAGE_SIZE }));
  const [open, setOpen] = useState<AdminRoom | null>(null);

  const columns: Column<AdminRoom>[] = [
    {
      key: 'name',
      header: t.columns.name,
      cell: (p) => (
        <span className="font-medium text-white">
          {p.name} {p.processing && <StateBadge ok={false}>{t.processing}</StateBadge>}
        </span>
      ),
    },
    { key: 'owner', header: t.columns.owner, cell: (p) => ownerName(p.owner) },
    { key: 'members', header: t.columns.members, cell: (p) => p.members },
    { key: 'servers', header: t.columns.servers, cell: (p) => p.servers.map((s) => s.name).join(', ') },
    { key: 'created', header: t.columns.created, cell: (p) => formatDate(p.created) },
  ];

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      <div className="mb-4">
        <SearchBox value={q} onSearch={onSearch} placeholder={t.searchPlaceholder} label={esCatalog.search} />
      </div>
      <ListView
        query={rooms}
        page={page}
        onPage={onPage}
        label={t.tableLabel}
        columns={columns}
        rowKey={(p) => p.id}
        empty={q ? t.emptySearch : t.empty}
        onRowClick={setOpen}
      />
      {open && <RoomDetail room={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

function RoomDetail({ room, onClose }: { room: AdminRoom; onClose: () => void }) {
  const queryClient = useQueryClient();
  const canWrite = useCan('rooms.write');
  const detail = useQuery(adminRoomQuery(room.id));
  const [deleting, setDeleting] = useState(false);
  return (
    <Modal
      open
      onOpenChange={(o) => (o ? undefined : onClose())}
      title={t.detailTitle(room.name)}
      size="max-w-3xl"
    >
      <QueryView query={detail}>
        {(data) => (
          <div className="space-y-4">
            <p className="text-sm text-slate-300">
              {t.columns.owner}: <span className="text-white">{ownerName(data.owner)}</span>
            </p>
            <Members room={data} />
            {canWrite && (
              <button type="button" className={ui.buttonSecondary} onClick={() => setDeleting(true)}>
                {t.delete}
              </button>
            )}
          </div>
        )}
      </QueryView>
      {deleting && (
        <DeleteRoomDialog
          room={room}
          onClose={() => setDeleting(false)}
          onDeleted={() => {
            setDeleting(false);
            onClose();
            toast.success(t.deleted(room.name));
            void queryClient.invalidateQueries({ queryKey: catalogKeys.rooms });
          }}
        />
      )}
    </Modal>
  );
}

function Members({ room }: { room: AdminRoomDetail }) {
  const m = t.member;
  return (
    <DataTable
      label={t.membersLabel}
      rows={room.peers}
      rowKey={(p) => p.peer.id}
      empty={t.noMembers}
      columns={[
        { key: 'peer', header: m.peer, cell: (p) => p.peer.name },
        {
          key: 'customer',
          header: m.customer,
          cell: (p) =>
            p.customer.alias ? `${p.customer.alias} (${p.customer.username})` : p.customer.username,
        },
        { key: 'ip', header: m.ip, cell: (p) => <span className="font-mono">{p.private_ip}</span> },
        { key: 'server', header: m.server, cell: (p) => p.server.name },
      ]}
    />
  );
}

function DeleteRoomDialog({
  room,
  onClose,
  onDeleted,
}: {
  room: AdminRoom;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: () => deleteRoom(room.id, reason.trim()),
    onSuccess: onDeleted,
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });
  return (
    <FormDialog
      onClose={onClose}
      title={t.delete}
      description={t.deleteDescription(room.name)}
      submitLabel={t.delete}
      busy={remove.isPending}
      error={error}
      onSubmit={() => {
        const issue = firstIssue(Reason.safeParse(reason));
        if (issue) return setError(issue);
        setError(null);
        remove.mutate();
      }}
    >
      <TextField
        label={esCatalog.reason}
        hint={esCatalog.reasonHint}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        disabled={remove.isPending}
      />
    </FormDialog>
  );
}
