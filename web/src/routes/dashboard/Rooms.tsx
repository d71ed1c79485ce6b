import { useQuery, useQueryClient } from '@tanstack/react-query';
import { LogIn, Plus } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { ApiError, errorMessage } from '../../api/http';
import { MAX_OWNED_ROOMS, freePeers } from '../../api/rooms';
import type { Room, RoomPeer, RoomRole } from '../../api/rooms';
import { roomsQuery, peersQuery, queryKeys } from '../../api/queries';
import type { CurrentUser } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingBlock } from '../../components/LoadingScreen';
import { ui } from '../../components/ui';
import { esRooms } from '../../i18n/es.rooms';
import { useCurrentUser } from './DashboardLayout';
import { PageHeader } from './PageHeader';
import { AliasCard, NoPeersCard, NoRoomsState } from './rooms/Guidance';
import { AddPeerDialog, CreateRoomDialog, JoinRoomDialog } from './rooms/RoomDialogs';
import { RoomDetail } from './rooms/RoomDetail';
import { RoomList } from './rooms/RoomList';
import { useRoomActions } from './rooms/useRoomActions';

const t = esRooms;

/** The query parameter naming the open room (`/dashboard/partys?sala=12`), so Back returns to the list. */
export const ROOM_PARAM = 'sala';

type DialogName = 'create' | 'join' | 'add';

/** The question the page asks before an action on a room. */
type Confirmation =
  | { kind: 'delete' | 'regenerate'; roomId: number }
  | { kind: 'removePeer'; roomId: number; peer: RoomPeer; leave: boolean };

/** `/dashboard/partys` (Salas): only where the site allows rooms. */
export function Rooms() {
  const user = useCurrentUser();
  if (!user.web_settings.allow_partys) return <Navigate to="/dashboard/home" replace />;
  return <RoomsPage user={user} />;
}

/**
 * The rooms page (spec "Rooms (Salas)"): the rooms I administer and those my peers are guests in,
 * guidance when something is missing (alias, a free peer, a first room), the create and join
 * dialogs, and one room's detail (`?sala=ID`). Everything renders from the cached lists, which the
 * push websocket keeps live (`api/realtime.ts`): a room that disappears while open (deleted, or my
 * last peer taken out) sends the page back to the list.
 */
function RoomsPage({ user }: { user: CurrentUser }) {
  const queryClient = useQueryClient();
  const rooms = useQuery(roomsQuery());
  const peers = useQuery(peersQuery());
  // 403 'Las salas no están habilitadas': the site turned rooms off since the user data was read.
  // Reading it again hides 'Salas' from the nav and sends this page home.
  const roomsOff = rooms.error instanceof ApiError && rooms.error.status === 403;
  useEffect(() => {
    if (roomsOff) void queryClient.invalidateQueries({ queryKey: queryKeys.currentUser });
  }, [roomsOff, queryClient]);
  const actions = useRoomActions();
  const [searchParams, setSearchParams] = useSearchParams();
  const [dialog, setDialog] = useState<DialogName | null>(null);
  const [confirm, setConfirm] = useState<Confirmation | null>(null);

  const selectedId = Number(searchParams.get(ROOM_PARAM)) || null;
  const openRoom = (room: Room) => setSearchParams({ [ROOM_PARAM]: String(room.id) });
  const backToList = () => setSearchParams({});
  const closeDialog = () => setDialog(null);

  const header = (actionsNode?: ReactNode) => (
    <PageHeader title={t.title} subtitle={t.subtitle}>
      {actionsNode}
    </PageHeader>
  );

  if (rooms.isPending || peers.isPending)
    return (
      <>
        {header()}
        <LoadingBlock label={t.loading} />
      </>
    );
  if ((rooms.isError && !rooms.data) || (peers.isError && !peers.data))
    return (
      <>
        {header()}
        <ErrorPanel
          message={roomsOff ? errorMessage(rooms.error, t.loadError) : t.loadError}
          retryLabel={t.retry}
          onRetry={() => {
            if (rooms.isError) void rooms.refetch();
            if (peers.isError) void peers.refetch();
          }}
        />
      </>
    );

  const owned = rooms.data.owned_partys;
  const guest = rooms.data.guest_partys;
  const free = freePeers(peers.data);
  const hasAlias = Boolean(user.alias);
  const atLimit = owned.length >= MAX_OWNED_ROOMS;
  const noRooms = owned.length + guest.length === 0;
  const canEnter = free.usable.length > 0;

  const find = (id: number | null) =>
    id === null ? null : (owned.find((p) => p.id === id) ?? guest.find((p) => p.id === id) ?? null);
  const roleOf = (room: Room): RoomRole => (owned.some((p) => p.id === room.id) ? 'owned' : 'guest');
  const myPeerIds = new Set(peers.data.map((p) => p.id));
  const isMine = (peer: RoomPeer) =>
    myPeerIds.has(peer.id) || (user.alias !== null && peer.user === user.alias);
  const busy = actions.regenerate.isPending || actions.removePeer.isPending || actions.remove.isPending;

  const selected = find(selectedId);
  // The open room is gone (deleted, or I left it): back to the list.
  if (selectedId !== null && !selected) return <Navigate to="/dashboard/partys" replace />;

  const dialogs = (
    <>
      {dialog === 'create' && (
        <CreateRoomDialog
          free={free}
          ownedCount={owned.length}
          onClose={closeDialog}
          onCreated={(room) => {
            closeDialog();
            openRoom(room);
          }}
        />
      )}
      {dialog === 'join' && (
        <JoinRoomDialog
          free={free}
          onClose={closeDialog}
          onJoined={(room) => {
            closeDialog();
            openRoom(room);
          }}
        />
      )}
      {dialog === 'add' && selected && <AddPeerDialog free={free} room={selected} onClose={closeDialog} />}
      {confirmationDialog()}
    </>
  );

  if (selected) {
    return (
      <>
        {header()}
        <RoomDetail
          room={selected}
          role={roleOf(selected)}
          isMine={isMine}
          canAddPeer={canEnter}
          busy={busy}
          onBack={backToList}
          onAddPeer={() => setDialog('add')}
          onRegeneratePassword={() => setConfirm({ kind: 'regenerate', roomId: selected.id })}
          onDelete={() => setConfirm({ kind: 'delete', roomId: selected.id })}
          onRemovePeer={(peer, leave) => setConfirm({ kind: 'removePeer', roomId: selected.id, peer, leave })}
        />
        {dialogs}
      </>
    );
  }

  const noFreePeerHint = 'rooms-no-free-peer';
  const createButton = (
    <button
      type="button"
      className={ui.buttonPrimary}
      onClick={() => setDialog('create')}
      disabled={!canEnter}
      aria-describedby={canEnter ? undefined : noFreePeerHint}
    >
      <Plus className="size-4" aria-hidden="true" />
      {t.actions.create}
    </button>
  );
  const joinButton = (
    <button
      type="button"
      className={ui.buttonSecondary}
      onClick={() => setDialog('join')}
      disabled={!canEnter}
      aria-describedby={canEnter ? undefined : noFreePeerHint}
    >
      <LogIn className="size-4" aria-hidden="true" />
      {t.actions.join}
    </button>
  );

  return (
    <>
      {header(
        hasAlias && !noRooms ? (
          <div className="flex flex-wrap gap-3">
            {joinButton}
            {/* Spec §5: the create button is hidden at 5 owned rooms. */}
            {!atLimit && createButton}
          </div>
        ) : undefined,
      )}
      {hasAlias && !noRooms && (atLimit || !canEnter) && (
        <div className="-mt-4 mb-6 space-y-1 text-sm">
          {atLimit && <p className="text-amber-300">{t.actions.limitReached}</p>}
          {!canEnter && (
            <p id={noFreePeerHint} className="text-slate-400">
              {t.actions.needFreePeer}
            </p>
          )}
        </div>
      )}
      <div className="space-y-6">
        {!hasAlias && <AliasCard />}
        {noRooms && !canEnter && <NoPeersCard blocked={free.blocked.length > 0} />}
        {noRooms && canEnter && (
          <NoRoomsState
            actions={
              hasAlias ? (
                <>
                  {createButton}
                  {joinButton}
                </>
              ) : undefined
            }
          />
        )}
        {!noRooms && <RoomList owned={owned} guest={guest} onOpen={openRoom} />}
      </div>
      {dialogs}
    </>
  );

  function confirmationDialog() {
    const room = confirm ? find(confirm.roomId) : null;
    const question = confirm && room ? confirmation(confirm, room) : null;
    return (
      <ConfirmDialog
        open={question !== null}
        onOpenChange={(open) => !open && setConfirm(null)}
        title={question?.title ?? ''}
        description={question?.text ?? ''}
        confirmLabel={question?.confirm ?? ''}
        onConfirm={() => question?.run()}
      />
    );
  }

  function confirmation(c: Confirmation, room: Room) {
    const q = t.confirm;
    switch (c.kind) {
      case 'delete':
        return { ...q.delete, text: q.delete.text(room.name), run: () => actions.remove.mutate(room) };
      case 'regenerate':
        return {
          ...q.regenerate,
          text: q.regenerate.text(room.name),
          run: () => actions.regenerate.mutate(room),
        };
      case 'removePeer': {
        const words = c.leave ? q.leave : q.remove;
        return {
          ...words,
          text: words.text(c.peer.name, room.name),
          run: () => actions.removePeer.mutate({ room, peer: c.peer, leave: c.leave }),
        };
      }
    }
  }
}
