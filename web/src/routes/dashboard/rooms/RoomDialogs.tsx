import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import toast from 'react-hot-toast';
import { errorMessage } from '../../../api/http';
import { MAX_OWNED_ROOMS, addRoomPeer, createRoom, joinRoom } from '../../../api/rooms';
import type { FreePeers, Room } from '../../../api/rooms';
import { PasswordField, TextField } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { ui } from '../../../components/ui';
import { esRooms } from '../../../i18n/es.rooms';
import { applyRoomAnswer } from './useRoomActions';

const t = esRooms.dialogs;
const v = esRooms.validation;

/** The longest room name the server takes. */
const NAME_MAX = 40;

interface PeerSelectProps {
  label: string;
  free: FreePeers;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
}

/**
 * The free-peer select of the three dialogs: only peers that can enter a room (active, outside any
 * room, on a server that allows rooms). Free peers whose server does not allow rooms are named under
 * it, so the customer knows why they are missing.
 */
function PeerSelect({ label, free, value, onChange, disabled }: PeerSelectProps) {
  const id = useId();
  const noteId = `${id}-note`;
  const notes: string[] = [];
  if (free.usable.length === 0) notes.push(t.noFreePeers);
  if (free.blocked.length > 0) notes.push(t.blockedPeers(free.blocked.map((p) => p.name).join(', ')));
  return (
    <div>
      <label htmlFor={id} className={ui.label}>
        {label}
      </label>
      <select
        id={id}
        name="peer"
        className={ui.input}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
        aria-describedby={notes.length ? noteId : undefined}
      >
        <option value="">{t.selectPeer}</option>
        {free.usable.map((peer) => (
          <option key={peer.id} value={String(peer.id)}>
            {t.peerOption(peer.name, peer.server.ubication)}
          </option>
        ))}
      </select>
      {notes.length > 0 && (
        <div id={noteId} className="mt-1.5 space-y-1 text-xs text-amber-200">
          {notes.map((note) => (
            <p key={note}>{note}</p>
          ))}
        </div>
      )}
    </div>
  );
}

/** The room's name input of 'Crear sala' and 'Unirse a una sala'. */
const nameInput = { name: 'name', autoComplete: 'off', autoFocus: true, maxLength: NAME_MAX } as const;

/** With exactly one free peer there is nothing to choose: it comes selected. */
const initialPeer = (free: FreePeers) => (free.usable.length === 1 ? String(free.usable[0]!.id) : '');

interface DialogProps {
  free: FreePeers;
  onClose: () => void;
}

/**
 * 'Crear sala': a name and the first peer. Checks, in order, the 5-room limit, the name and the peer
 * (spec §5), then asks the server; a success toasts 'Sala creada correctamente' and opens the room.
 */
export function CreateRoomDialog({
  free,
  ownedCount,
  onClose,
  onCreated,
}: DialogProps & { ownedCount: number; onCreated: (room: Room) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [peer, setPeer] = useState(() => initialPeer(free));
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: createRoom,
    onSuccess: (room) => {
      applyRoomAnswer(queryClient, room);
      toast.success(esRooms.toasts.created);
      onCreated(room);
    },
    onError: (e) => void toast.error(errorMessage(e, esRooms.errors.create)),
  });

  function submit() {
    if (ownedCount >= MAX_OWNED_ROOMS) return setError(v.limit);
    if (!name.trim()) return setError(v.nameRequired);
    if (!peer) return setError(v.peerRequired);
    setError(null);
    create.mutate({ name: name.trim(), peer: Number(peer) });
  }

  return (
    <FormDialog
      onClose={onClose}
      title={t.create.title}
      description={t.create.description}
      submitLabel={t.create.submit}
      onSubmit={submit}
      busy={create.isPending}
      error={error}
    >
      <TextField
        label={t.create.name}
        {...nameInput}
        value={name}
        onChange={(e) => setName(e.target.value)}
        disabled={create.isPending}
      />
      <PeerSelect
        label={t.create.peer}
        free={free}
        value={peer}
        onChange={setPeer}
        disabled={create.isPending}
      />
    </FormDialog>
  );
}

/**
 * 'Unirse a una sala': the room's name and password and one of my free peers, all required
 * ('Por favor, complete todos los campos'). A success toasts 'Te has unido a la sala' and opens it.
 */
export function JoinRoomDialog({
  free,
  onClose,
  onJoined,
}: DialogProps & { onJoined: (room: Room) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [peer, setPeer] = useState(() => initialPeer(free));
  const [error, setError] = useState<string | null>(null);
  const join = useMutation({
    mutationFn: joinRoom,
    onSuccess: (room) => {
      applyRoomAnswer(queryClient, room);
      toast.success(esRooms.toasts.joined);
      onJoined(room);
    },
    onError: (e) => void toast.error(errorMessage(e, esRooms.errors.join)),
  });

  function submit() {
    if (!name.trim() || !password || !peer) return setError(v.fieldsRequired);
    setError(null);
    join.mutate({ name: name.trim(), password, peer: Number(peer) });
  }

  return (
    <FormDialog
      onClose={onClose}
      title={t.join.title}
      description={t.join.description}
      submitLabel={t.join.submit}
      onSubmit={submit}
      busy={join.isPending}
      error={error}
    >
      <TextField
        label={t.join.name}
        {...nameInput}
        value={name}
        onChange={(e) => setName(e.target.value)}
        disabled={join.isPending}
      />
      <PasswordField
        label={t.join.password}
        name="password"
        autoComplete="off"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={join.isPending}
      />
      <PeerSelect label={t.join.peer} free={free} value={peer} onChange={setPeer} disabled={join.isPending} />
    </FormDialog>
  );
}

/**
 * 'Añadir peer' (the room's owner): one of my free peers ('Por favor, selecciona un peer para
 * añadir' when none is chosen). A success toasts 'Peer añadido a la sala'.
 */
export function AddPeerDialog({ free, room, onClose }: DialogProps & { room: Room }) {
  const queryClient = useQueryClient();
  const [peer, setPeer] = useState(() => initialPeer(free));
  const [error, setError] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: (peerId: number) => addRoomPeer(room.id, peerId),
    onSuccess: (answer) => {
      applyRoomAnswer(queryClient, answer);
      toast.success(esRooms.toasts.peerAdded);
      onClose();
    },
    onError: (e) => void toast.error(errorMessage(e, esRooms.errors.add)),
  });

  function submit() {
    if (!peer) return setError(v.peerRequired);
    setError(null);
    add.mutate(Number(peer));
  }

  return (
    <FormDialog
      onClose={onClose}
      title={t.add.title}
      description={t.add.description(room.name)}
      submitLabel={t.add.submit}
      onSubmit={submit}
      busy={add.isPending}
      error={error}
    >
      <PeerSelect label={t.add.peer} free={free} value={peer} onChange={setPeer} disabled={add.isPending} />
    </FormDialog>
  );
}
