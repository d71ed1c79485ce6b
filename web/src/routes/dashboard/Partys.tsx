import { useQuery, useQueryClient } from '@tanstack/react-query';
import { LogIn, Plus } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { ApiError, errorMessage } from '../../api/http';
import { MAX_OWNED_PARTIES, freePeers } from '../../api/partys';
import type { Party, PartyPeer, PartyRole } from '../../api/partys';
import { partysQuery, peersQuery, queryKeys } from '../../api/queries';
import type { CurrentUser } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingBlock } from '../../components/LoadingScreen';
import { ui } from '../../components/ui';
import { esPartys } from '../../i18n/es.partys';
import { useCurrentUser } from './DashboardLayout';
import { PageHeader } from './PageHeader';
import { AliasCard, NoPeersCard, NoRoomsState } from './partys/Guidance';
import { AddPeerDialog, CreatePartyDialog, JoinPartyDialog } from './partys/PartyDialogs';
import { PartyDetail } from './partys/PartyDetail';
import { PartyList } from './partys/PartyList';
import { usePartyActions } from './partys/usePartyActions';

const t = esPartys;

/** The query parameter naming the open room (`/dashboard/partys?sala=12`), so Back returns to the list. */
export const ROOM_PARAM = 'sala';

type DialogName = 'create' | 'join' | 'add';

/** The question the page asks before an action on a room. */
type Confirmation =
  | { kind: 'delete' | 'regenerate'; partyId: number }
  | { kind: 'removePeer'; partyId: number; peer: PartyPeer; leave: boolean };

/** `/dashboard/partys` (Salas): only where the site allows rooms. */
export function Partys() {
  const user = useCurrentUser();
  if (!user.web_settings.allow_partys) return <Navigate to="/dashboard/home" replace />;
  return <PartysPage user={user} />;
}

/**
 * The rooms page (spec "Rooms (Salas)"): the rooms I administer and those my peers are guests in,
 * guidance when something is missing (alias, a free peer, a first room), the create and join
 * dialogs, and one room's detail (`?sala=ID`). Everything renders from the cached lists, which the
 * push websocket keeps live (`api/realtime.ts`): a room that disappears while open (deleted, or my
 * last peer taken out) sends the page back to the list.
 */
function PartysPage({ user }: { user: CurrentUser }) {
  const queryClient = useQueryClient();
  const partys = useQuery(partysQuery());
  const peers = useQuery(peersQuery());
  // 403 'Las salas no están habilitadas': the site turned rooms off since the user data was read.
  // Reading it again hides 'Salas' from the nav and sends this page home.
  const roomsOff = partys.error instanceof ApiError && partys.error.status === 403;
  useEffect(() => {
    if (roomsOff) void queryClient.invalidateQueries({ queryKey: queryKeys.currentUser });
  }, [roomsOff, queryClient]);
  const actions = usePartyActions();
  const [searchParams, setSearchParams] = useSearchParams();
  const [dialog, setDialog] = useState<DialogName | null>(null);
  const [confirm, setConfirm] = useState<Confirmation | null>(null);

  const selectedId = Number(searchParams.get(ROOM_PARAM)) || null;
  const openRoom = (party: Party) => setSearchParams({ [ROOM_PARAM]: String(party.id) });
  const backToList = () => setSearchParams({});
  const closeDialog = () => setDialog(null);

  const header = (actionsNode?: ReactNode) => (
    <PageHeader title={t.title} subtitle={t.subtitle}>
      {actionsNode}
    </PageHeader>
  );

  if (partys.isPending || peers.isPending)
    return (
      <>
        {header()}
        <LoadingBlock label={t.loading} />
      </>
    );
  if ((partys.isError && !partys.data) || (peers.isError && !peers.data))
    return (
      <>
        {header()}
        <ErrorPanel
          message={roomsOff ? errorMessage(partys.error, t.loadError) : t.loadError}
          retryLabel={t.retry}
          onRetry={() => {
            if (partys.isError) void partys.refetch();
            if (peers.isError) void peers.refetch();
          }}
        />
      </>
    );

  const owned = partys.data.owned_partys;
  const guest = partys.data.guest_partys;
  const free = freePeers(peers.data);
  const hasAlias = Boolean(user.alias);
  const atLimit = owned.length >= MAX_OWNED_PARTIES;
  const noRooms = owned.length + guest.length === 0;
  const canEnter = free.usable.length > 0;

  const find = (id: number | null) =>
    id === null ? null : (owned.find((p) => p.id === id) ?? guest.find((p) => p.id === id) ?? null);
  const roleOf = (party: Party): PartyRole => (owned.some((p) => p.id === party.id) ? 'owned' : 'guest');
  const myPeerIds = new Set(peers.data.map((p) => p.id));
  const isMine = (peer: PartyPeer) =>
    myPeerIds.has(peer.id) || (user.alias !== null && peer.user === user.alias);
  const busy = actions.regenerate.isPending || actions.removePeer.isPending || actions.remove.isPending;

  const selected = find(selectedId);
  // The open room is gone (deleted, or I left it): back to the list.
  if (selectedId !== null && !selected) return <Navigate to="/dashboard/partys" replace />;

  const dialogs = (
    <>
      {dialog === 'create' && (
        <CreatePartyDialog
          free={free}
          ownedCount={owned.length}
          onClose={closeDialog}
          onCreated={(party) => {
            closeDialog();
            openRoom(party);
          }}
        />
      )}
      {dialog === 'join' && (
        <JoinPartyDialog
          free={free}
          onClose={closeDialog}
          onJoined={(party) => {
            closeDialog();
            openRoom(party);
          }}
        />
      )}
      {dialog === 'add' && selected && <AddPeerDialog free={free} party={selected} onClose={closeDialog} />}
      {confirmationDialog()}
    </>
  );

  if (selected) {
    return (
      <>
        {header()}
        <PartyDetail
          party={selected}
          role={roleOf(selected)}
          isMine={isMine}
          canAddPeer={canEnter}
          busy={busy}
          onBack={backToList}
          onAddPeer={() => setDialog('add')}
          onRegeneratePassword={() => setConfirm({ kind: 'regenerate', partyId: selected.id })}
          onDelete={() => setConfirm({ kind: 'delete', partyId: selected.id })}
          onRemovePeer={(peer, leave) =>
            setConfirm({ kind: 'removePeer', partyId: selected.id, peer, leave })
          }
        />
        {dialogs}
      </>
    );
  }

  const noFreePeerHint = 'partys-no-free-peer';
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
        {!noRooms && <PartyList owned={owned} guest={guest} onOpen={openRoom} />}
      </div>
      {dialogs}
    </>
  );

  function confirmationDialog() {
    const party = confirm ? find(confirm.partyId) : null;
    const question = confirm && party ? confirmation(confirm, party) : null;
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

  function confirmation(c: Confirmation, party: Party) {
    const q = t.confirm;
    switch (c.kind) {
      case 'delete':
        return { ...q.delete, text: q.delete.text(party.name), run: () => actions.remove.mutate(party) };
      case 'regenerate':
        return {
          ...q.regenerate,
          text: q.regenerate.text(party.name),
          run: () => actions.regenerate.mutate(party),
        };
      case 'removePeer': {
        const words = c.leave ? q.leave : q.remove;
        return {
          ...words,
          text: words.text(c.peer.name, party.name),
          run: () => actions.removePeer.mutate({ party, peer: c.peer, leave: c.leave }),
        };
      }
    }
  }
}
