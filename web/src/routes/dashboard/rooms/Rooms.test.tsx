import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Peer } from '@vpn/contracts';
import type { Room, RoomLists } from '@vpn/contracts';
import { describe, expect, it, vi } from 'vitest';
import { deferred, fakeApi, sampleUser } from '../../../test/api';
import type { Handler, Reply } from '../../../test/api';
import { captureDownloads, fetchedUrls, readBlob } from '../../../test/downloads';
import { ALIAS, consola, guestRoom, ownedRoom, roomPeers } from '../../../test/rooms';
import { laptop, samplePeer } from '../../../test/peers';
import { renderApp } from '../../../test/render';
import { setViewportWidth } from '../../../test/viewport';
import { FakeWebSocket } from '../../../test/websocket';

const ROOMS = 'GET /api/client/network/partys';
const PEERS = 'GET /api/client/accounts/peers';

interface OpenOptions {
  lists?: RoomLists;
  peers?: Peer[];
  alias?: string | null;
  width?: number;
  path?: string;
  routes?: Record<string, Handler>;
}

const lists = (owned: Room[] = [], guest: Room[] = []): RoomLists => ({
  owned_partys: owned,
  guest_partys: guest,
});

/** Signs in, opens /dashboard/partys, waits for the page and accepts the push socket. */
async function openRooms({
  lists: rooms = lists([ownedRoom()], [guestRoom()]),
  peers = roomPeers(),
  alias = ALIAS,
  width = 1280,
  path = '/dashboard/partys',
  routes = {},
}: OpenOptions = {}) {
  localStorage.setItem('access', 'a1');
  localStorage.setItem('refresh', 'r1');
  setViewportWidth(width);
  const api = fakeApi({
    'GET /api/client/verify-token': { body: { ...sampleUser, alias } },
    [ROOMS]: { body: rooms },
    [PEERS]: { body: peers },
    ...routes,
  });
  const app = renderApp(path);
  await screen.findByRole('heading', { name: 'Salas', level: 1 });
  await waitFor(() => expect(screen.queryByText('Cargando información...')).not.toBeInTheDocument());
  await waitFor(() => expect(FakeWebSocket.latest()).toBeDefined());
  const socket = FakeWebSocket.latest()!;
  socket.accept();
  // The accepted socket reads the lists again (pushes may have been missed): let that settle first.
  await waitFor(() => expect(api.callsTo(ROOMS).length).toBeGreaterThanOrEqual(2));
  await waitFor(() => expect(app.queryClient.isFetching()).toBe(0));
  return { api, app, socket };
}

/** The card of a room in the list. */
const card = (name: string) => screen.getByRole('article', { name });

async function openRoom(name: string) {
  await userEvent.click(screen.getByRole('button', { name: `Ver la sala ${name}` }));
  return screen.findByRole('heading', { name, level: 2 });
}

/** The table row (desktop) of a peer in the open room. */
function peerRow(name: string): HTMLElement {
  const row = screen.getByRole('rowheader', { name: new RegExp(`^${name}`) }).closest('tr');
  if (!row) throw new Error(`no row for ${name}`);
  return row;
}

const toast = (text: string | RegExp) => screen.findByText(text);

async function confirmWith(label: string) {
  const dialog = await screen.findByRole('alertdialog');
  await userEvent.click(within(dialog).getByRole('button', { name: label }));
}

describe('Salas: states', () => {
  it("shows 'Cargando información...' while loading, then the rooms", async () => {
    localStorage.setItem('access', 'a1');
    const pending = deferred<Reply>();
    fakeApi({
      'GET /api/client/verify-token': { body: { ...sampleUser, alias: ALIAS } },
      [ROOMS]: () => pending.promise,
      [PEERS]: { body: roomPeers() },
    });
    renderApp('/dashboard/partys');
    expect(await screen.findByText('Cargando información...')).toBeInTheDocument();
    pending.resolve({ body: lists([ownedRoom()]) });
    expect(await screen.findByRole('article', { name: 'LAN Viernes' })).toBeInTheDocument();
  });

  it("shows 'Hubo un error al cargar los datos de la sección' with retry, and the rooms after retrying", async () => {
    localStorage.setItem('access', 'a1');
    let calls = 0;
    fakeApi({
      'GET /api/client/verify-token': { body: { ...sampleUser, alias: ALIAS } },
      [ROOMS]: () => (++calls === 1 ? { status: 500, body: {} } : { body: lists([ownedRoom()]) }),
      [PEERS]: { body: roomPeers() },
    });
    renderApp('/dashboard/partys');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Hubo un error al cargar los datos de la sección');
    await userEvent.click(within(alert).getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('article', { name: 'LAN Viernes' })).toBeInTheDocument();
  });

  it('shows the error panel when the peers (the free-peer list) fail to load', async () => {
    await openRooms({ routes: { [PEERS]: { status: 500, body: {} } } });
    expect(screen.getByRole('alert')).toHaveTextContent('Hubo un error al cargar los datos de la sección');
  });
});

describe('Salas: rooms turned off', () => {
  it("says 'Las salas no están habilitadas' and, once the account says so too, goes home", async () => {
    localStorage.setItem('access', 'a1');
    localStorage.setItem('refresh', 'r1');
    let verified = 0;
    const api = fakeApi({
      'GET /api/client/verify-token': () => ({
        body: {
          ...sampleUser,
          alias: ALIAS,
          web_settings: { ...sampleUser.web_settings, allow_partys: ++verified === 1 },
        },
      }),
      'POST /api/refresh-token': { body: { access: 'a2', refresh: 'r2' } },
      [ROOMS]: { status: 403, body: { message: 'Las salas no están habilitadas' } },
      [PEERS]: { body: roomPeers() },
    });
    const app = renderApp('/dashboard/partys');
    await waitFor(() => expect(app.path()).toBe('/dashboard/home'));
    expect(api.callsTo('GET /api/client/verify-token')).toHaveLength(2);
    expect(localStorage.getItem('access')).toBe('a2');
  });
});

describe('Salas: list', () => {
  it('lists owned rooms (Administrador) and guest rooms (Invitado) with peers, date and owner', async () => {
    await openRooms();
    const owned = within(screen.getByRole('list', { name: 'Salas que administras' })).getAllByRole('article');
    expect(owned).toHaveLength(1);
    const mine = card('LAN Viernes');
    expect(within(mine).getByText('Administrador')).toBeInTheDocument();
    expect(within(mine).getByText('1 peer')).toBeInTheDocument();
    expect(within(mine).getByText('5 de marzo de 2025')).toBeInTheDocument();
    expect(screen.getByText('1 de 5')).toBeInTheDocument();

    const guest = within(screen.getByRole('list', { name: 'Salas en las que participas' })).getAllByRole(
      'article',
    );
    expect(guest).toHaveLength(1);
    const theirs = card('Clan Norte');
    expect(within(theirs).getByText('Invitado')).toBeInTheDocument();
    expect(within(theirs).getByText('2 peers')).toBeInTheDocument();
    expect(within(theirs).getByText('20 de junio de 2025')).toBeInTheDocument();
    expect(within(theirs).getByText('pedro')).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('shows the in-progress indicator of a room its servers are still applying', async () => {
    await openRooms({ lists: lists([ownedRoom({ processing: true })]) });
    expect(within(card('LAN Viernes')).getByRole('status')).toHaveTextContent('Aplicando cambios...');
  });

  it('hides the create button at 5 owned rooms and says why; joining stays possible', async () => {
    const five = [1, 2, 3, 4, 5].map((n) => ownedRoom({ id: n, name: `Sala ${n}` }));
    await openRooms({ lists: lists(five) });
    expect(screen.getByText('5 de 5')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Crear sala' })).not.toBeInTheDocument();
    expect(screen.getByText(/Has alcanzado el máximo de 5 salas propias/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Unirse a una sala' })).toBeEnabled();
  });

  it('offers create and join while under the limit', async () => {
    await openRooms({ lists: lists([1, 2, 3, 4].map((n) => ownedRoom({ id: n, name: `Sala ${n}` }))) });
    expect(screen.getByRole('button', { name: 'Crear sala' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Unirse a una sala' })).toBeEnabled();
  });

  it('keeps the buttons but disables them, saying why, when no peer is free', async () => {
    await openRooms({ peers: roomPeers().filter((p) => p.name !== 'consola') });
    const create = screen.getByRole('button', { name: 'Crear sala' });
    expect(create).toBeDisabled();
    expect(create).toHaveAccessibleDescription(/necesitas un peer libre/);
    expect(screen.getByRole('button', { name: 'Unirse a una sala' })).toBeDisabled();
  });
});

describe('Salas: guidance', () => {
  it('asks for an alias first, sets it right here and stays in Salas (issue 32)', async () => {
    const { app } = await openRooms({
      alias: null,
      lists: lists(),
      routes: {
        'PATCH /api/client/settings': {
          body: { message: 'Alias configurado correctamente', user: { ...sampleUser, alias: 'Pepe' } },
        },
      },
    });
    const guide = screen.getByRole('region', { name: 'Configura tu alias para usar las salas' });
    expect(screen.queryByRole('button', { name: 'Crear sala' })).not.toBeInTheDocument();
    await userEvent.click(within(guide).getByRole('button', { name: 'Configurar alias' }));
    const dialog = await screen.findByRole('dialog', { name: 'Configurar alias' });
    await userEvent.type(within(dialog).getByLabelText('Alias'), 'Pepe');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Guardar' }));
    await waitFor(() =>
      expect(screen.queryByRole('region', { name: 'Configura tu alias para usar las salas' })).toBeNull(),
    );
    expect(app.path()).toBe('/dashboard/partys');
    expect(await screen.findByRole('button', { name: 'Crear sala' })).toBeInTheDocument();
  });

  it('still lists the rooms under the alias card', async () => {
    await openRooms({ alias: null });
    expect(
      screen.getByRole('region', { name: 'Configura tu alias para usar las salas' }),
    ).toBeInTheDocument();
    expect(card('LAN Viernes')).toBeInTheDocument();
  });

  it('says a peer must be acquired first when there are no rooms and no free peers', async () => {
    const { app } = await openRooms({ lists: lists(), peers: [] });
    const guide = screen.getByRole('region', { name: 'Necesitas un peer para usar las salas' });
    expect(guide).toHaveTextContent(/primero debes adquirir un peer/);
    expect(screen.queryByText('Aún no tienes salas.')).not.toBeInTheDocument();
    await userEvent.click(within(guide).getByRole('link', { name: 'Ver planes' }));
    await waitFor(() => expect(app.path()).toBe('/dashboard/plans'));
  });

  it('counts disabled peers and peers already in a room as not free', async () => {
    await openRooms({
      lists: lists(),
      peers: [samplePeer({ active: false }), consola({ party: { id: 99, name: 'otra' } })],
    });
    expect(screen.getByRole('region', { name: 'Necesitas un peer para usar las salas' })).toBeInTheDocument();
  });

  it('points to Peers when the only free peers sit on servers without rooms', async () => {
    await openRooms({ lists: lists(), peers: [laptop()] });
    const guide = screen.getByRole('region', { name: 'Tus peers no pueden entrar en una sala' });
    expect(within(guide).getByRole('link', { name: 'Ir a Peers' })).toHaveAttribute(
      'href',
      '/dashboard/peers',
    );
    expect(within(guide).getByRole('link', { name: 'Ver planes' })).toHaveAttribute(
      'href',
      '/dashboard/plans',
    );
  });

  it('offers creating (or joining) a room when there is none yet', async () => {
    await openRooms({ lists: lists(), peers: [consola()] });
    expect(screen.getByText('Aún no tienes salas.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Crear sala' }));
    expect(await screen.findByRole('dialog', { name: 'Crear sala' })).toBeInTheDocument();
  });
});

describe('Salas: create room dialog', () => {
  async function openCreate(options: OpenOptions = {}) {
    const ctx = await openRooms({
      peers: [...roomPeers(), consola({ id: 15, name: 'pc-casa' })],
      ...options,
    });
    await userEvent.click(screen.getByRole('button', { name: 'Crear sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Crear sala' });
    return { ...ctx, dialog };
  }

  it('requires a name, then a peer, before calling the server', async () => {
    const { api, dialog } = await openCreate();
    const submit = within(dialog).getByRole('button', { name: 'Crear sala' });
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Por favor, ingrese un nombre para la sala');
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), '   ');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Por favor, ingrese un nombre para la sala');
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), 'Torneo');
    await userEvent.click(submit);
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Por favor, selecciona un peer para añadir');
    expect(api.callsTo('POST /api/client/network/partys')).toHaveLength(0);
  });

  it('offers only free peers on servers with rooms, and names the ones whose server has none', async () => {
    const { dialog } = await openCreate();
    const select = within(dialog).getByLabelText('Peer inicial');
    const options = within(select)
      .getAllByRole('option')
      .map((o) => o.textContent);
    expect(options).toEqual(['Selecciona un peer', 'consola — Madrid, España', 'pc-casa — Madrid, España']);
    expect(select).toHaveAccessibleDescription(/Sin salas en su servidor \(no pueden entrar\): portatil/);
  });

  it('creates the room, toasts it and opens it', async () => {
    const created = ownedRoom({
      id: 22,
      name: 'Torneo',
      password: 'nuevaClave9',
      peers: [{ id: 13, name: 'consola', user: ALIAS, private_ip: '10.8.0.4' }],
    });
    const { api, dialog, app } = await openCreate({
      routes: { 'POST /api/client/network/partys': { status: 201, body: created } },
    });
    const peersBefore = api.callsTo(PEERS).length;
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), '  Torneo ');
    await userEvent.selectOptions(within(dialog).getByLabelText('Peer inicial'), 'consola — Madrid, España');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Crear sala' }));
    expect(await toast('Sala creada correctamente')).toBeInTheDocument();
    expect(api.callsTo('POST /api/client/network/partys')[0]!.body).toEqual({ name: 'Torneo', peer: 13 });
    expect(await screen.findByRole('heading', { name: 'Torneo', level: 2 })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(app.router.state.location.search).toBe('?sala=22');
    await waitFor(() => expect(api.callsTo(PEERS).length).toBeGreaterThan(peersBefore));
  });

  it("toasts the server's message and keeps the dialog open", async () => {
    const { dialog } = await openCreate({
      routes: {
        'POST /api/client/network/partys': {
          status: 409,
          body: { message: 'Ya existe una sala con ese nombre' },
        },
      },
    });
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), 'LAN Viernes');
    await userEvent.selectOptions(within(dialog).getByLabelText('Peer inicial'), 'consola — Madrid, España');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Crear sala' }));
    expect(await toast('Ya existe una sala con ese nombre')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Crear sala' })).toBeInTheDocument();
  });

  it("falls back to 'Hubo un error al crear la sala'", async () => {
    const { dialog } = await openCreate({
      routes: { 'POST /api/client/network/partys': { status: 500, body: {} } },
    });
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), 'Torneo');
    await userEvent.selectOptions(within(dialog).getByLabelText('Peer inicial'), 'consola — Madrid, España');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Crear sala' }));
    expect(await toast('Hubo un error al crear la sala')).toBeInTheDocument();
  });

  it("refuses with 'No se pueden crear más de 5 salas' when a fifth room appeared meanwhile", async () => {
    const four = [1, 2, 3, 4].map((n) => ownedRoom({ id: n, name: `Sala ${n}` }));
    const { api, dialog, socket } = await openCreate({ lists: lists(four) });
    // Another tab created the fifth room while this dialog was open.
    socket.push({ type: 'updated_owner_party', party: ownedRoom({ id: 5, name: 'Sala 5' }) });
    await screen.findByText('5 de 5');
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), 'Sexta');
    await userEvent.selectOptions(within(dialog).getByLabelText('Peer inicial'), 'consola — Madrid, España');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Crear sala' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('No se pueden crear más de 5 salas');
    expect(api.callsTo('POST /api/client/network/partys')).toHaveLength(0);
  });

  it('preselects the only free peer', async () => {
    await openRooms();
    await userEvent.click(screen.getByRole('button', { name: 'Crear sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Crear sala' });
    expect(within(dialog).getByLabelText('Peer inicial')).toHaveValue('13');
  });
});

describe('Salas: join room dialog', () => {
  async function openJoin(options: OpenOptions = {}) {
    const ctx = await openRooms({ lists: lists([ownedRoom()]), ...options });
    await userEvent.click(screen.getByRole('button', { name: 'Unirse a una sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Unirse a una sala' });
    return { ...ctx, dialog };
  }

  it("asks for every field with 'Por favor, complete todos los campos'", async () => {
    const { api, dialog } = await openJoin({ peers: [...roomPeers(), consola({ id: 15, name: 'pc-casa' })] });
    const submit = within(dialog).getByRole('button', { name: 'Unirse' });
    const expectRefused = async () => {
      await userEvent.click(submit);
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Por favor, complete todos los campos');
    };
    await expectRefused();
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), 'Clan Norte');
    await expectRefused();
    await userEvent.type(within(dialog).getByLabelText('Contraseña'), 'secreta');
    await expectRefused();
    expect(api.callsTo('PATCH /api/client/network/partys')).toHaveLength(0);
  });

  it('joins with name, password and peer, toasts it and opens the room as Invitado', async () => {
    const joined = guestRoom({
      peers: [...guestRoom().peers, { id: 13, name: 'consola', user: ALIAS, private_ip: '10.8.0.4' }],
    });
    const { api, dialog } = await openJoin({
      routes: { 'PATCH /api/client/network/partys': { body: joined } },
    });
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), 'Clan Norte');
    await userEvent.type(within(dialog).getByLabelText('Contraseña'), 'secreta');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(await toast('Te has unido a la sala')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/client/network/partys')[0]!.body).toEqual({
      operation: 'join',
      name: 'Clan Norte',
      password: 'secreta',
      peer: 13,
    });
    expect(await screen.findByRole('heading', { name: 'Clan Norte', level: 2 })).toBeInTheDocument();
    expect(screen.getAllByText('Invitado').length).toBeGreaterThan(0);
    expect(peerRow('consola')).toHaveTextContent('10.8.0.4');
  });

  it("toasts 'Nombre de sala o contraseña incorrectos' from the server", async () => {
    const { dialog } = await openJoin({
      routes: {
        'PATCH /api/client/network/partys': {
          status: 400,
          body: { message: 'Nombre de sala o contraseña incorrectos' },
        },
      },
    });
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), 'Clan Norte');
    await userEvent.type(within(dialog).getByLabelText('Contraseña'), 'mala');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(await toast('Nombre de sala o contraseña incorrectos')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Unirse a una sala' })).toBeInTheDocument();
  });

  it("falls back to 'Error al unirse a la sala'", async () => {
    const { dialog } = await openJoin({
      routes: { 'PATCH /api/client/network/partys': { status: 502, body: {} } },
    });
    await userEvent.type(within(dialog).getByLabelText('Nombre de la sala'), 'Clan Norte');
    await userEvent.type(within(dialog).getByLabelText('Contraseña'), 'secreta');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(await toast('Error al unirse a la sala')).toBeInTheDocument();
  });
});

describe('Salas: detail as Administrador', () => {
  const withGuest = () =>
    ownedRoom({
      peers: [
        { id: 11, name: 'movil', user: ALIAS, private_ip: '10.8.0.2' },
        { id: 40, name: 'pc-pedro', user: 'pedro', private_ip: '10.8.0.9' },
      ],
    });

  it('shows owner, creation date, role, and the peers with their private IP and owner', async () => {
    await openRooms({ lists: lists([withGuest()]) });
    await openRoom('LAN Viernes');
    const info = screen.getByRole('region', { name: 'LAN Viernes' });
    expect(within(info).getByText('Fecha de creación').nextSibling).toHaveTextContent('5 de marzo de 2025');
    expect(within(info).getByText('Administrada por', { selector: 'dt' }).nextSibling).toHaveTextContent(
      ALIAS,
    );
    // My role once, in the badge (it read 'Administrador' three times).
    expect(within(info).getAllByText('Administrador')).toHaveLength(1);
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual(['Peer', 'Propietario', 'IP privada', 'Acciones']);
    expect(within(peerRow('pc-pedro')).getAllByRole('cell')[0]).toHaveTextContent('pedro');
    expect(within(peerRow('pc-pedro')).getByText('10.8.0.9')).toBeInTheDocument();
    expect(within(peerRow('movil')).getByText('Tuyo')).toBeInTheDocument();
    // The owner removes any peer.
    expect(within(peerRow('pc-pedro')).getByRole('button', { name: 'Remover el peer pc-pedro de la sala' }));
    expect(within(peerRow('movil')).getByRole('button', { name: 'Remover el peer movil de la sala' }));
    expect(screen.getByRole('button', { name: 'Eliminar sala' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Añadir peer' })).toBeInTheDocument();
  });

  it('hides the password until asked, and copies it', async () => {
    await openRooms({ lists: lists([withGuest()]) });
    await openRoom('LAN Viernes');
    const output = screen.getByRole('status', { name: 'Contraseña de la sala' });
    expect(output).not.toHaveTextContent('abcDEF2345');
    await userEvent.click(screen.getByRole('button', { name: 'Mostrar contraseña' }));
    expect(output).toHaveTextContent('abcDEF2345');
    await userEvent.click(screen.getByRole('button', { name: 'Ocultar contraseña' }));
    expect(output).not.toHaveTextContent('abcDEF2345');
  });

  it("'Compartir invitación' puts the room's name and password in one message (share sheet, else copied)", async () => {
    await openRooms({ lists: lists([withGuest()]) });
    await openRoom('LAN Viernes');
    const share = vi.fn(async (_data: ShareData) => undefined);
    Object.defineProperty(navigator, 'share', { value: share, configurable: true });
    await userEvent.click(screen.getByRole('button', { name: 'Compartir invitación' }));
    await waitFor(() => expect(share).toHaveBeenCalledTimes(1));
    const sent = share.mock.calls[0]![0].text!;
    expect(sent).toContain('Nombre de la sala: LAN Viernes');
    expect(sent).toContain('Contraseña: abcDEF2345');

    // No share sheet (a computer): the same message, copied whole.
    Object.defineProperty(navigator, 'share', { value: undefined, configurable: true });
    const writeText = vi.fn(async (_text: string) => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await userEvent.click(screen.getByRole('button', { name: 'Compartir invitación' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(sent));
    expect(await screen.findByText(/Invitación copiada/)).toBeInTheDocument();
  });

  it('regenerates the password after confirming, shows the new one and toasts it', async () => {
    const { api } = await openRooms({
      lists: lists([withGuest()]),
      routes: { 'PATCH /api/client/network/partys/21': { body: { password: 'otraClave77' } } },
    });
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Regenerar contraseña' }));
    await confirmWith('Regenerar');
    expect(await toast('Contraseña regenerada correctamente')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/client/network/partys/21')[0]!.body).toEqual({
      operation: 'regenerate_password',
    });
    await userEvent.click(screen.getByRole('button', { name: 'Mostrar contraseña' }));
    expect(screen.getByRole('status', { name: 'Contraseña de la sala' })).toHaveTextContent('otraClave77');
  });

  it("does nothing when the regeneration is cancelled, and falls back to 'Error al regenerar la contraseña'", async () => {
    const { api } = await openRooms({
      lists: lists([withGuest()]),
      routes: { 'PATCH /api/client/network/partys/21': { status: 500, body: {} } },
    });
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Regenerar contraseña' }));
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Cancelar' }),
    );
    expect(api.callsTo('PATCH /api/client/network/partys/21')).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'Regenerar contraseña' }));
    await confirmWith('Regenerar');
    expect(await toast('Error al regenerar la contraseña')).toBeInTheDocument();
  });

  it("removes a guest's peer after confirming", async () => {
    const { api } = await openRooms({
      lists: lists([withGuest()]),
      routes: { 'PATCH /api/client/network/partys/21': { body: ownedRoom() } },
    });
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Remover el peer pc-pedro de la sala' }));
    expect(await screen.findByRole('alertdialog')).toHaveTextContent(
      '¿Remover el peer pc-pedro de la sala LAN Viernes?',
    );
    await confirmWith('Remover');
    expect(await toast('Peer removido de la sala')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/client/network/partys/21')[0]!.body).toEqual({
      operation: 'remove_peer',
      peer: 40,
    });
    await waitFor(() =>
      expect(screen.queryByRole('rowheader', { name: /pc-pedro/ })).not.toBeInTheDocument(),
    );
  });

  it("falls back to 'Error al remover el peer de la sala'", async () => {
    await openRooms({
      lists: lists([withGuest()]),
      routes: { 'PATCH /api/client/network/partys/21': { status: 500, body: {} } },
    });
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Remover el peer pc-pedro de la sala' }));
    await confirmWith('Remover');
    expect(await toast('Error al remover el peer de la sala')).toBeInTheDocument();
  });

  it("adds a free peer: 'Por favor, selecciona un peer para añadir' first, then the peer joins", async () => {
    const added = ownedRoom({
      peers: [...ownedRoom().peers, { id: 13, name: 'consola', user: ALIAS, private_ip: '10.8.0.4' }],
    });
    const { api } = await openRooms({
      lists: lists([ownedRoom()]),
      peers: [...roomPeers(), consola({ id: 15, name: 'pc-casa' })],
      routes: { 'PATCH /api/client/network/partys/21': { body: added } },
    });
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Añadir peer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Añadir peer' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Añadir' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Por favor, selecciona un peer para añadir');
    expect(api.callsTo('PATCH /api/client/network/partys/21')).toHaveLength(0);
    await userEvent.selectOptions(within(dialog).getByLabelText('Peer'), 'consola — Madrid, España');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Añadir' }));
    expect(await toast('Peer añadido a la sala')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/client/network/partys/21')[0]!.body).toEqual({
      operation: 'add_peer',
      peer: 13,
    });
    expect(await screen.findByRole('rowheader', { name: /consola/ })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("toasts the server's refusal to add a peer", async () => {
    await openRooms({
      lists: lists([ownedRoom()]),
      routes: {
        'PATCH /api/client/network/partys/21': {
          status: 400,
          body: { message: 'El servidor del peer no permite salas. Cámbialo a uno que las permita.' },
        },
      },
    });
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Añadir peer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Añadir peer' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Añadir' }));
    expect(
      await toast('El servidor del peer no permite salas. Cámbialo a uno que las permita.'),
    ).toBeInTheDocument();
  });

  it('hides Add Peer when no peer is free', async () => {
    await openRooms({ lists: lists([ownedRoom()]), peers: roomPeers().filter((p) => p.id !== 13) });
    await openRoom('LAN Viernes');
    expect(screen.queryByRole('button', { name: 'Añadir peer' })).not.toBeInTheDocument();
  });

  it("deletes the room after confirming: one 'Party eliminada' toast, back to the list", async () => {
    const { api, socket, app } = await openRooms({
      routes: { 'DELETE /api/client/network/partys/21': { body: { message: 'Party eliminada' } } },
    });
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Eliminar sala' }));
    expect(await screen.findByRole('alertdialog')).toHaveTextContent(
      '¿Seguro que deseas eliminar la sala LAN Viernes?',
    );
    await confirmWith('Eliminar sala');
    expect(await toast('Party eliminada')).toBeInTheDocument();
    expect(api.callsTo('DELETE /api/client/network/partys/21')).toHaveLength(1);
    // The server's push about the same room does not toast twice.
    socket.push({ type: 'deleted_owner_party', party_id: 21 });
    await waitFor(() => expect(app.router.state.location.search).toBe(''));
    expect(screen.getAllByText('Party eliminada')).toHaveLength(1);
    expect(screen.queryByRole('article', { name: 'LAN Viernes' })).not.toBeInTheDocument();
    expect(card('Clan Norte')).toBeInTheDocument();
  });

  it("falls back to 'Hubo un error al eliminar la sala'", async () => {
    await openRooms({ routes: { 'DELETE /api/client/network/partys/21': { status: 500, body: {} } } });
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Eliminar sala' }));
    await confirmWith('Eliminar sala');
    expect(await toast('Hubo un error al eliminar la sala')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'LAN Viernes', level: 2 })).toBeInTheDocument();
  });

  it('goes back to the list with the back button', async () => {
    await openRooms();
    await openRoom('LAN Viernes');
    await userEvent.click(screen.getByRole('button', { name: 'Volver a las salas' }));
    expect(await screen.findByRole('article', { name: 'LAN Viernes' })).toBeInTheDocument();
  });

  it('shows peers as cards with the private IP on phones', async () => {
    await openRooms({ lists: lists([withGuest()]), width: 390 });
    await openRoom('LAN Viernes');
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const cards = within(screen.getByRole('list', { name: 'Peers de la sala LAN Viernes' })).getAllByRole(
      'article',
    );
    expect(cards).toHaveLength(2);
    expect(within(cards[1]!).getByText('10.8.0.9')).toBeInTheDocument();
    expect(within(cards[1]!).getByRole('button', { name: 'Remover el peer pc-pedro de la sala' }));
  });
});

describe('Salas: detail as Invitado', () => {
  it('shows no password, no add, no delete, and lets me take out only my own peer', async () => {
    await openRooms();
    await openRoom('Clan Norte');
    expect(screen.queryByText('Contraseña de la sala')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Regenerar contraseña' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Añadir peer' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Eliminar sala' })).not.toBeInTheDocument();
    expect(
      within(peerRow('pc-pedro')).queryByRole('button', { name: /Sacar|Remover/ }),
    ).not.toBeInTheDocument();
    expect(within(peerRow('tablet')).getByRole('button', { name: 'Sacar mi peer tablet de la sala' }));
    expect(within(peerRow('pc-pedro')).getByText('10.8.0.9')).toBeInTheDocument();
    const info = screen.getByRole('region', { name: 'Clan Norte' });
    expect(within(info).getByText('Administrada por', { selector: 'dt' }).nextSibling).toHaveTextContent(
      'pedro',
    );
  });

  it("leaves the room: 'Haz salido de una sala' and back to the list", async () => {
    const { api, app } = await openRooms({
      routes: { 'PATCH /api/client/network/partys/31': { body: { message: 'Haz salido de una sala' } } },
    });
    await openRoom('Clan Norte');
    await userEvent.click(screen.getByRole('button', { name: 'Sacar mi peer tablet de la sala' }));
    expect(await screen.findByRole('alertdialog')).toHaveTextContent(
      'Tu peer tablet saldrá de la sala Clan Norte.',
    );
    await confirmWith('Abandonar');
    expect(await toast('Haz salido de una sala')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/client/network/partys/31')[0]!.body).toEqual({
      operation: 'leave',
      peer: 14,
    });
    await waitFor(() => expect(app.router.state.location.search).toBe(''));
    expect(screen.queryByRole('article', { name: 'Clan Norte' })).not.toBeInTheDocument();
  });

  it('stays in the room when another of my peers is still in it', async () => {
    const two = guestRoom({
      peers: [...guestRoom().peers, { id: 13, name: 'consola', user: ALIAS, private_ip: '10.8.0.4' }],
    });
    await openRooms({
      lists: lists([], [two]),
      routes: { 'PATCH /api/client/network/partys/31': { body: guestRoom() } },
    });
    await openRoom('Clan Norte');
    await userEvent.click(screen.getByRole('button', { name: 'Sacar mi peer consola de la sala' }));
    await confirmWith('Abandonar');
    expect(await toast('Peer removido de la sala')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('rowheader', { name: /consola/ })).not.toBeInTheDocument());
    expect(screen.getByRole('heading', { name: 'Clan Norte', level: 2 })).toBeInTheDocument();
  });

  it("falls back to 'Error al abandonar la sala'", async () => {
    await openRooms({ routes: { 'PATCH /api/client/network/partys/31': { status: 500, body: {} } } });
    await openRoom('Clan Norte');
    await userEvent.click(screen.getByRole('button', { name: 'Sacar mi peer tablet de la sala' }));
    await confirmWith('Abandonar');
    expect(await toast('Error al abandonar la sala')).toBeInTheDocument();
  });
});

describe('Salas: push messages', () => {
  it('marks a room in progress on new_party_operation and clears it on stop_party_operation', async () => {
    const { socket } = await openRooms();
    socket.push({ type: 'new_party_operation', party_id: 31 });
    expect(await within(card('Clan Norte')).findByRole('status')).toHaveTextContent('Aplicando cambios...');
    expect(card('Clan Norte')).toHaveAttribute('aria-busy', 'true');
    expect(within(card('LAN Viernes')).queryByRole('status')).not.toBeInTheDocument();
    socket.push({ type: 'stop_party_operation', party_id: 31 });
    await waitFor(() => expect(within(card('Clan Norte')).queryByRole('status')).not.toBeInTheDocument());
  });

  it('shows the in-progress state in the open room too', async () => {
    const { socket } = await openRooms();
    await openRoom('LAN Viernes');
    socket.push({ type: 'new_party_operation', party_id: 21 });
    expect(await screen.findByText('Aplicando cambios en los servidores...')).toBeInTheDocument();
    socket.push({ type: 'stop_party_operation', party_id: 21 });
    await waitFor(() =>
      expect(screen.queryByText('Aplicando cambios en los servidores...')).not.toBeInTheDocument(),
    );
  });

  it("shows a guest's peer live in the open room on updated_owner_party, and reloads the free peers", async () => {
    const { socket, api } = await openRooms();
    await openRoom('LAN Viernes');
    const peersBefore = api.callsTo(PEERS).length;
    socket.push({
      type: 'updated_owner_party',
      party: ownedRoom({
        peers: [...ownedRoom().peers, { id: 77, name: 'pc-ana', user: 'ana', private_ip: '10.8.0.30' }],
      }),
    });
    await screen.findByRole('rowheader', { name: /^pc-ana/ });
    expect(within(peerRow('pc-ana')).getByText('10.8.0.30')).toBeInTheDocument();
    expect(within(peerRow('pc-ana')).getAllByRole('cell')[0]).toHaveTextContent('ana');
    await waitFor(() => expect(api.callsTo(PEERS).length).toBeGreaterThan(peersBefore));
  });

  it('adds a room I was just let into on updated_guest_party', async () => {
    const { socket } = await openRooms({ lists: lists([ownedRoom()]) });
    socket.push({ type: 'updated_guest_party', party: guestRoom({ id: 32, name: 'Amigos' }) });
    expect(
      within(await screen.findByRole('article', { name: 'Amigos' })).getByText('Invitado'),
    ).toBeInTheDocument();
  });

  it('ignores a room push that is not a room', async () => {
    const { socket } = await openRooms();
    socket.push({ type: 'updated_owner_party', party: { id: 21 } });
    expect(within(card('LAN Viernes')).getByText('1 peer')).toBeInTheDocument();
  });

  it("on deleted_owner_party toasts 'Party eliminada' and returns from the room to the list", async () => {
    const { socket, app } = await openRooms({ path: '/dashboard/partys?sala=21' });
    expect(screen.getByRole('heading', { name: 'LAN Viernes', level: 2 })).toBeInTheDocument();
    socket.push({ type: 'deleted_owner_party', party_id: 21 });
    expect(await toast('Party eliminada')).toBeInTheDocument();
    await waitFor(() => expect(app.router.state.location.search).toBe(''));
    expect(await screen.findByRole('article', { name: 'Clan Norte' })).toBeInTheDocument();
    expect(screen.queryByRole('article', { name: 'LAN Viernes' })).not.toBeInTheDocument();
  });

  it("on deleted_guest_party toasts 'Haz salido de una sala' and drops the room", async () => {
    const { socket, api } = await openRooms();
    const peersBefore = api.callsTo(PEERS).length;
    socket.push({ type: 'deleted_guest_party', party_id: 31 });
    expect(await toast('Haz salido de una sala')).toBeInTheDocument();
    expect(screen.queryByRole('article', { name: 'Clan Norte' })).not.toBeInTheDocument();
    await waitFor(() => expect(api.callsTo(PEERS).length).toBeGreaterThan(peersBefore));
  });

  it('reads the rooms again when the socket is (re)accepted', async () => {
    const { api } = await openRooms();
    await waitFor(() => expect(api.callsTo(ROOMS).length).toBeGreaterThanOrEqual(2));
  });

  it('opens a room named in the address, and sends an unknown one back to the list', async () => {
    const { app } = await openRooms({ path: '/dashboard/partys?sala=999' });
    await waitFor(() => expect(app.router.state.location.search).toBe(''));
    expect(card('LAN Viernes')).toBeInTheDocument();
  });
});

describe('Salas: playing in a room', () => {
  const ROOM_CONF = '[Interface]\nAddress = 10.8.0.5/32\n\n[Peer]\nAllowedIPs = 10.64.0.0/10\n';

  it('tells how games find each other, the games it was checked with and how, and the Windows firewall step', async () => {
    await openRooms();
    await openRoom('Clan Norte');
    const play = screen.getByRole('region', { name: 'Jugar en la Sala' });
    expect(play).toHaveTextContent(
      'Los juegos de la Sala se encuentran solos: cuando un miembro abre una partida en red local (LAN), los demás la ven aparecer en la lista del juego, sin escribir ninguna IP.',
    );
    expect(play).not.toHaveTextContent('En esta Sala los juegos no se encuentran solos');
    const games = within(play)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(games).toEqual([
      'Minecraft: Java Edition: los mundos «Abrir en LAN» aparecen en «Multijugador» (aviso multicast 224.0.2.60, puerto 4445).',
      'Minecraft: Bedrock Edition: las partidas aparecen en la pestaña «Amigos» (búsqueda por broadcast, puerto 19132).',
      'Counter-Strike: el buscador de servidores LAN encuentra las partidas (búsqueda por broadcast, puerto 27015).',
      'Warcraft III: las partidas aparecen en «Red de área local» (búsqueda por broadcast, puerto 6112).',
    ]);
    expect(play).toHaveTextContent(/únete por IP: escribe en el juego la IP privada del anfitrión/);
    expect(play).toHaveTextContent(/red «Pública».*permítelo también en redes «Públicas»/);
    // Each member's tunnel address stays in the table above.
    expect(within(peerRow('pc-pedro')).getByText('10.8.0.9')).toBeInTheDocument();
  });

  it('says games do not find each other, and to join by IP, where the operator turned discovery off', async () => {
    await openRooms({ lists: lists([ownedRoom()], [guestRoom({ discovery: false })]) });
    await openRoom('Clan Norte');
    const play = screen.getByRole('region', { name: 'Jugar en la Sala' });
    expect(play).toHaveTextContent(
      'En esta Sala los juegos no se encuentran solos: la búsqueda automática de partidas en red local (LAN) está desactivada en el servicio. Para jugar, únete por IP: escribe en el juego la IP privada del anfitrión (la de la tabla de arriba).',
    );
    expect(play).not.toHaveTextContent('Los juegos de la Sala se encuentran solos');
    expect(within(play).queryAllByRole('listitem')).toEqual([]);
    expect(play).toHaveTextContent(/permítelo también en redes «Públicas»/);
  });

  it('offers the room-only configuration of my peers only, explained in one sentence', async () => {
    await openRooms();
    await openRoom('Clan Norte');
    const section = screen.getByRole('region', { name: 'Configuración solo para la Sala' });
    expect(section).toHaveTextContent(
      'A diferencia de la configuración normal, que lleva todo tu tráfico por la VPN, esta solo lleva el de la Sala',
    );
    expect(
      within(section).getByRole('button', {
        name: 'Descargar la configuración solo para la Sala del peer tablet',
      }),
    ).toBeInTheDocument();
    expect(within(section).queryByText('pc-pedro')).toBeNull();
    // Nothing fetched, and no QR encoder loaded, until asked.
    expect(fetchedUrls().filter((u) => u.includes('/api/client/accounts/peers/'))).toEqual([]);
  });

  it('downloads it as {peer}-sala.conf from ?scope=room', async () => {
    const saved = captureDownloads();
    await openRooms({ routes: { 'GET /api/client/accounts/peers/14': { text: ROOM_CONF } } });
    await openRoom('Clan Norte');
    await userEvent.click(
      screen.getByRole('button', { name: 'Descargar la configuración solo para la Sala del peer tablet' }),
    );
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]?.name).toBe('tablet-sala.conf');
    expect(await readBlob(saved[0]!.blob)).toBe(ROOM_CONF);
    expect(fetchedUrls()).toContain('/api/client/accounts/peers/14?scope=room');
  });

  it('shows it as a QR code', async () => {
    await openRooms({ routes: { 'GET /api/client/accounts/peers/14': { text: ROOM_CONF } } });
    await openRoom('Clan Norte');
    await userEvent.click(
      screen.getByRole('button', {
        name: 'Mostrar el código QR de la configuración solo para la Sala del peer tablet',
      }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Configuración solo para la Sala: tablet' });
    const qr = await within(dialog).findByRole('img', {
      name: 'Código QR de la configuración solo para la Sala del peer tablet',
    });
    expect(Number(qr.getAttribute('data-modules'))).toBeGreaterThanOrEqual(21);
    expect(fetchedUrls()).toContain('/api/client/accounts/peers/14?scope=room');
  });
});
