import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Peer } from '@vpn/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, fakeApi, sampleUser } from '../../../test/api';
import type { Handler, Reply } from '../../../test/api';
import { laptop, samplePeer, sampleServers, settled } from '../../../test/peers';
import { renderApp } from '../../../test/render';
import { captureDownloads, fetchedUrls, readBlob } from '../../../test/downloads';
import { setViewportWidth } from '../../../test/viewport';
import { FakeWebSocket } from '../../../test/websocket';

const PEERS = 'GET /api/client/accounts/peers';
const PATCH_MOVIL = 'PATCH /api/client/accounts/peers/11';

interface OpenOptions {
  width?: number;
  allowRooms?: boolean;
  routes?: Record<string, Handler>;
}

/** Signs in, opens /dashboard/peers with `peers`, waits for the list and accepts the push socket. */
async function openPeers(peers: Peer[], { width = 1280, allowRooms = true, routes = {} }: OpenOptions = {}) {
  localStorage.setItem('access', 'a1');
  localStorage.setItem('refresh', 'r1');
  const viewport = setViewportWidth(width);
  const user = { ...sampleUser, web_settings: { ...sampleUser.web_settings, allow_partys: allowRooms } };
  const api = fakeApi({
    'GET /api/client/verify-token': { body: user },
    [PEERS]: { body: peers },
    ...routes,
  });
  const app = renderApp('/dashboard/peers');
  await screen.findByRole('heading', { name: 'Peers Wireguard' });
  if (peers.length > 0) await screen.findAllByText(peers[0]!.name);
  await waitFor(() => expect(FakeWebSocket.latest()).toBeDefined());
  const socket = FakeWebSocket.latest()!;
  socket.accept();
  return { api, app, socket, viewport };
}

/** The table row (desktop) of a peer. */
function rowOf(name: string): HTMLElement {
  const row = screen.getByRole('rowheader', { name: new RegExp(`^${name}`) }).closest('tr');
  if (!row) throw new Error(`no row for ${name}`);
  return row;
}

async function openMenu(name: string) {
  await userEvent.click(screen.getByRole('button', { name: `Acciones del peer ${name}` }));
  return screen.findByRole('menu');
}

async function choose(name: string, item: string) {
  const menu = await openMenu(name);
  await userEvent.click(within(menu).getByRole('menuitem', { name: item }));
}

function downloadButton(name: string) {
  return screen.getByRole('button', { name: `Descargar la configuración del peer ${name}` });
}

/** Toasts are rendered in a live region; the text is what a user reads. */
const toastWith = (text: string | RegExp) => screen.findByText(text);

describe('Peers page: states', () => {
  it("shows 'Cargando información...' while the list loads", async () => {
    localStorage.setItem('access', 'a1');
    const pending = deferred<Reply>();
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser }, [PEERS]: () => pending.promise });
    renderApp('/dashboard/peers');
    expect(await screen.findByText('Cargando información...')).toBeInTheDocument();
    pending.resolve({ body: [samplePeer()] });
    expect(await screen.findByText('movil')).toBeInTheDocument();
  });

  it('shows an error panel with retry when the list fails, and the list after retrying', async () => {
    localStorage.setItem('access', 'a1');
    let calls = 0;
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      [PEERS]: () => (++calls === 1 ? { status: 500, body: {} } : { body: [samplePeer()] }),
    });
    renderApp('/dashboard/peers');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Hubo un error al intentar cargar los datos.');
    await userEvent.click(within(alert).getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByText('movil')).toBeInTheDocument();
  });

  it('explains that a plan must be bought when there are no peers, linking to the plans', async () => {
    const { app } = await openPeers([]);
    expect(await screen.findByText('Aún no tienes peers.')).toBeInTheDocument();
    expect(screen.getByText(/necesitas adquirir un plan/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Ver planes' }));
    await waitFor(() => expect(app.path()).toBe('/dashboard/plans'));
  });
});

describe('Peers page: layout', () => {
  it('shows a table from 768 px and cards below, switching when the window is resized', async () => {
    const { viewport } = await openPeers([samplePeer(), laptop()], { width: 1024 });
    const table = screen.getByRole('table', { name: 'Tus peers' });
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(screen.queryByRole('article')).not.toBeInTheDocument();

    viewport.resizeTo(767);
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const cards = within(screen.getByRole('list', { name: 'Tus peers' })).getAllByRole('article');
    expect(cards).toHaveLength(2);
    expect(within(cards[0]!).getByRole('heading', { name: 'movil' })).toBeInTheDocument();
    expect(within(cards[0]!).getByText('mad1.vpn.example.com:51820')).toBeInTheDocument();

    viewport.resizeTo(768);
    expect(screen.getByRole('table')).toBeInTheDocument();
  });

  it('leads with state, expiry, data, QR and Descargar; then server, server state, location, rooms, mirror link and the menu', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, now: new Date('2025-03-26T09:00:00.000Z') });
    await openPeers([
      samplePeer({ data: { used: 1_500_000_000, allowance: 10_000_000_000 } }),
      laptop({ active: false, expiration_date: '2025-03-20T10:00:00.000Z' }),
    ]);
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual([
      'Peer',
      'Estado',
      'Vigencia',
      'Datos',
      'Instalar',
      'Servidor',
      'Estado del servidor',
      'Ubicación',
      'Salas',
      'Mirror link',
      'Acciones',
    ]);
    const cells = (name: string) =>
      within(rowOf(name))
        .getAllByRole('cell')
        .map((c) => c.textContent);
    expect(cells('movil').slice(0, 3)).toEqual([
      'Activo',
      'Activo hasta el 5 de abril de 2025 · quedan 10 días',
      '1,5 GB de 10 GB',
    ]);
    expect(cells('movil').slice(4, 8)).toEqual([
      'mad1.vpn.example.com:51820',
      'Activo',
      'Madrid, España',
      'Sí',
    ]);
    // Its server's agent is silent: the console's words, and the way out one tap away.
    expect(cells('portatil').slice(0, 3)).toEqual([
      'Deshabilitado',
      'Venció el 20 de marzo de 2025',
      'Sin límite de datos',
    ]);
    expect(cells('portatil').slice(4, 8)).toEqual([
      'mia1.vpn.example.com:51820',
      'Sin conexiónCambiar servidor',
      'Miami, EE. UU.',
      'No',
    ]);
    expect(within(rowOf('movil')).getByRole('button', { name: 'Ver QR del peer movil' })).toBeEnabled();
    expect(screen.getByText(/La app oficial de WireGuard no puede usarlo/)).toBeInTheDocument();
    expect(within(rowOf('movil')).getByRole('button', { name: 'Copiar el mirror link del peer movil' }));
    expect(downloadButton('movil')).toBeEnabled();
  });

  it('says a peer was switched off by a manager, in its row, its card and its details', async () => {
    await openPeers([samplePeer(), laptop({ active: false, manager_disabled: true })]);
    const state = within(rowOf('portatil')).getAllByRole('cell')[0]!;
    expect(state).toHaveTextContent('DeshabilitadoPor un administrador');
    expect(within(rowOf('movil')).getAllByRole('cell')[0]).toHaveTextContent(/^Activo$/);
    await choose('portatil', 'Detalles');
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('note')).toHaveTextContent(
      'Un administrador deshabilitó este peer. Contacta con soporte para reactivarlo.',
    );
  });

  it('says a peer is online at reduced speed and why, in its row and its details (issue 35)', async () => {
    await openPeers([
      samplePeer({
        speed: {
          down_mbit: 2,
          up_mbit: 2,
          reduced: { reason: 'data', kbit: 256, since: '2025-03-20T10:00:00.000Z', until: null },
        },
      }),
      laptop({ speed: { down_mbit: 10, up_mbit: 2, reduced: null } }),
    ]);
    expect(within(rowOf('movil')).getAllByRole('cell')[0]).toHaveTextContent('ActivoVelocidad reducida');
    expect(within(rowOf('portatil')).getAllByRole('cell')[0]).toHaveTextContent(/^Activo$/);
    await choose('movil', 'Detalles');
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('note')).toHaveTextContent(
      'Velocidad reducida. Agotaste los datos de tu plan: sigues conectado a 256 kbit/s hasta que añadas un plan',
    );
    expect(within(dialog).getByText('Velocidad reducida: 256 kbit/s')).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await choose('portatil', 'Detalles');
    expect(
      await within(await screen.findByRole('dialog')).findByText(
        'Hasta 10 Mbit/s de bajada y 2 Mbit/s de subida',
      ),
    ).toBeInTheDocument();
  });

  it('hides the rooms column when rooms are not allowed', async () => {
    await openPeers([samplePeer()], { allowRooms: false });
    expect(screen.queryByRole('columnheader', { name: 'Salas' })).not.toBeInTheDocument();
    expect(within(rowOf('movil')).getAllByRole('cell')).toHaveLength(9);
  });

  it('hides the rooms line of the cards too when rooms are not allowed', async () => {
    await openPeers([samplePeer()], { width: 390, allowRooms: false });
    expect(within(screen.getByRole('article')).queryByText('Salas')).not.toBeInTheDocument();
  });
});

describe('Peers page: mirror link copy', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("copies the link, shows 'Copiado' for 2000 ms and a success toast", async () => {
    await openPeers([samplePeer()]);
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    vi.useFakeTimers();

    fireEvent.click(screen.getByRole('button', { name: 'Copiar el mirror link del peer movil' }));
    await act(async () => {});
    expect(writeText).toHaveBeenCalledWith(samplePeer().mirror_link);
    const copied = screen.getByRole('button', { name: 'Mirror link del peer movil copiado' });
    expect(copied).toHaveTextContent('Copiado');
    expect(screen.getByText('Mirror link copiado al portapapeles')).toBeInTheDocument();

    act(() => vi.advanceTimersByTime(1999));
    expect(copied).toHaveTextContent('Copiado');
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByRole('button', { name: 'Copiar el mirror link del peer movil' })).toHaveTextContent(
      'Copiar',
    );
  });

  it('copies a bare mirror path (as some pushes carry it) as a full URL of this site', async () => {
    await openPeers([samplePeer({ mirror_link: '/api/mirror/relativo' })]);
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    fireEvent.click(screen.getByRole('button', { name: 'Copiar el mirror link del peer movil' }));
    await waitFor(() =>
      expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/api/mirror/relativo`),
    );
  });

  it('says so when the clipboard refuses', async () => {
    await openPeers([samplePeer()]);
    const writeText = vi.fn().mockRejectedValue(new Error('denied'));
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    fireEvent.click(screen.getByRole('button', { name: 'Copiar el mirror link del peer movil' }));
    expect(await toastWith(/No se pudo copiar el mirror link/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copiar el mirror link del peer movil' })).toBeInTheDocument();
  });
});

describe('Peers page: regenerate mirror link', () => {
  it('asks first, and does nothing when cancelled', async () => {
    const { api } = await openPeers([samplePeer()]);
    await choose('movil', 'Regenerar Mirror Link');
    const dialog = await screen.findByRole('alertdialog', { name: 'Regenerar Mirror Link' });
    expect(dialog).toHaveTextContent('¿Regenerar el mirror link del peer movil?');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(api.callsTo(PATCH_MOVIL)).toHaveLength(0);
  });

  it('regenerates on confirm, toasts success and copies the new link from then on', async () => {
    const fresh = settled(samplePeer(), { mirror_link: 'https://vpn.example.com/api/mirror/nuevo' });
    const { api } = await openPeers([samplePeer()], { routes: { [PATCH_MOVIL]: { body: fresh } } });
    await choose('movil', 'Regenerar Mirror Link');
    const dialog = await screen.findByRole('alertdialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Regenerar' }));

    expect(await toastWith('Mirror link regenerado correctamente')).toBeInTheDocument();
    expect(api.callsTo(PATCH_MOVIL)[0]?.body).toEqual({ operation: 'regenerate_token' });
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    fireEvent.click(screen.getByRole('button', { name: 'Copiar el mirror link del peer movil' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('https://vpn.example.com/api/mirror/nuevo'));
  });

  it("toasts the server's message, or the spec's fallback naming the peer", async () => {
    const { api } = await openPeers([samplePeer()], {
      routes: { [PATCH_MOVIL]: { status: 400, body: { message: 'Peer no activo' } } },
    });
    await choose('movil', 'Regenerar Mirror Link');
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Regenerar' }),
    );
    expect(await toastWith('Peer no activo')).toBeInTheDocument();

    api.on(PATCH_MOVIL, { status: 500, body: {} });
    await choose('movil', 'Regenerar Mirror Link');
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Regenerar' }),
    );
    expect(
      await toastWith('Hubo un error al intentar regenerar el mirror link del peer movil'),
    ).toBeInTheDocument();
  });
});

describe('Peers page: regenerate peer and the busy state', () => {
  async function confirmRegenerate() {
    await choose('movil', 'Regenerar Peer');
    const dialog = await screen.findByRole('alertdialog', { name: 'Regenerar Peer' });
    expect(dialog).toHaveTextContent('¿Regenerar el peer movil?');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Regenerar' }));
  }

  async function expectBusy(busy: boolean) {
    const row = rowOf('movil');
    if (busy) {
      expect(row).toHaveAttribute('aria-busy', 'true');
      expect(within(row).getByRole('status')).toHaveTextContent('Regenerando peer...');
      expect(downloadButton('movil')).toBeDisabled();
      expect(within(row).getByRole('button', { name: 'Ver QR del peer movil' })).toBeDisabled();
      const menu = await openMenu('movil');
      for (const item of ['Regenerar Mirror Link', 'Regenerar Peer', 'Cambiar Servidor']) {
        expect(within(menu).getByRole('menuitem', { name: item })).toHaveAttribute('aria-disabled', 'true');
      }
      expect(within(menu).getByRole('menuitem', { name: 'Detalles' })).not.toHaveAttribute('aria-disabled');
      await userEvent.keyboard('{Escape}');
    } else {
      expect(row).toHaveAttribute('aria-busy', 'false');
      expect(within(row).queryByRole('status')).not.toBeInTheDocument();
      expect(downloadButton('movil')).toBeEnabled();
    }
  }

  it('disables the row from the click until the push reports the outcome', async () => {
    const answer = deferred<Reply>();
    const { api, socket } = await openPeers([samplePeer()], {
      routes: { [PATCH_MOVIL]: () => answer.promise },
    });
    await confirmRegenerate();
    await expectBusy(true); // before the server has even answered
    answer.resolve({ body: samplePeer({ processing: 'regenerate' }) });
    await waitFor(() => expect(api.callsTo(PATCH_MOVIL)).toHaveLength(1));
    expect(api.callsTo(PATCH_MOVIL)[0]?.body).toEqual({ operation: 'regenerate' });
    await act(async () => {});
    await expectBusy(true); // answered, but the agents have not applied it yet

    socket.push({ type: 'updated_peer', peer: settled(samplePeer()) });
    socket.push({ type: 'success', peer_id: 11, message: 'Peer movil regenerado correctamente' });
    expect(await toastWith('Peer movil regenerado correctamente')).toBeInTheDocument();
    await expectBusy(false);
  });

  it('stays busy when the answer says done until the queued-change info arrives (offline server)', async () => {
    const { socket } = await openPeers([samplePeer()], {
      routes: { [PATCH_MOVIL]: { body: settled(samplePeer()) } },
    });
    await confirmRegenerate();
    await act(async () => {});
    await expectBusy(true);
    const info =
      'El servidor Madrid 1 está desconectado: el cambio del peer movil se aplicará en cuanto vuelva a estar en línea.';
    socket.push({ type: 'info', peer_id: 11, message: info });
    expect(await toastWith(info)).toBeInTheDocument();
    await expectBusy(false);
  });

  it('ends the busy state on an error push, toasting it', async () => {
    const { socket } = await openPeers([samplePeer()], {
      routes: { [PATCH_MOVIL]: { body: samplePeer({ processing: 'regenerate' }) } },
    });
    await confirmRegenerate();
    await act(async () => {});
    socket.push({ type: 'error', peer_id: 11, message: 'No se pudo aplicar el cambio del peer movil.' });
    expect(await toastWith('No se pudo aplicar el cambio del peer movil.')).toBeInTheDocument();
    await expectBusy(false);
  });

  it('does not become busy again when the push outran the HTTP answer', async () => {
    const answer = deferred<Reply>();
    const { socket } = await openPeers([samplePeer()], { routes: { [PATCH_MOVIL]: () => answer.promise } });
    await confirmRegenerate();
    socket.push({ type: 'updated_peer', peer: settled(samplePeer()) });
    answer.resolve({ body: samplePeer({ processing: 'regenerate' }) });
    await act(async () => {});
    await expectBusy(false);
  });

  it('takes the answer as it is when no socket is open (no push could end the busy state)', async () => {
    const { socket } = await openPeers([samplePeer()], {
      routes: { [PATCH_MOVIL]: { body: settled(samplePeer()) } },
    });
    socket.drop(1000);
    await confirmRegenerate();
    await waitFor(() => expect(downloadButton('movil')).toBeEnabled());
  });

  it('shows a peer the server reports as processing as busy from the start', async () => {
    await openPeers([samplePeer({ processing: 'change_server' })]);
    expect(within(rowOf('movil')).getByRole('status')).toHaveTextContent('Cambiando de servidor...');
    expect(downloadButton('movil')).toBeDisabled();
  });

  it("toasts the server's message or the fallback, and frees the row at once", async () => {
    const { api } = await openPeers([samplePeer()], {
      routes: {
        [PATCH_MOVIL]: {
          status: 409,
          body: { message: 'El peer tiene una operación en curso. Espera a que termine.' },
        },
      },
    });
    await confirmRegenerate();
    expect(
      await toastWith('El peer tiene una operación en curso. Espera a que termine.'),
    ).toBeInTheDocument();
    await waitFor(() => expect(downloadButton('movil')).toBeEnabled());

    api.on(PATCH_MOVIL, { status: 502, body: 'no json' });
    await confirmRegenerate();
    expect(await toastWith('Hubo un error al intentar regenerar el peer movil')).toBeInTheDocument();
    await waitFor(() => expect(downloadButton('movil')).toBeEnabled());
  });
});

describe('Peers page: change server', () => {
  const NETWORK = 'GET /api/client/network/11';

  it('lists the available servers with address, state, location and rooms, and goes back', async () => {
    await openPeers([samplePeer()], { routes: { [NETWORK]: { body: sampleServers } } });
    await choose('movil', 'Cambiar Servidor');
    expect(
      await screen.findByRole('heading', { name: 'Cambiar el servidor del peer movil' }),
    ).toBeInTheDocument();
    const list = await screen.findByRole('list', { name: 'Servidores disponibles' });
    const [miami, toronto] = within(list).getAllByRole('article');
    expect(miami).toHaveTextContent('mia1.vpn.example.com:51820');
    expect(miami).toHaveTextContent('Activo');
    expect(miami).toHaveTextContent('Miami, EE. UU.');
    expect(within(miami!).getByText('No')).toBeInTheDocument();
    // Its agent silent: the console's "Sin conexión", never "Activo".
    expect(toronto).toHaveTextContent('Sin conexión');
    expect(within(toronto!).getByText('Sí')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Volver a Peers' }));
    expect(screen.getByRole('table', { name: 'Tus peers' })).toBeInTheDocument();
  });

  it('warns before the tap that a peer in a room cannot go to a server without Salas (issue 32)', async () => {
    await openPeers([samplePeer({ party: { id: 21, name: 'LAN Viernes' } })], {
      routes: { [NETWORK]: { body: sampleServers } },
    });
    await choose('movil', 'Cambiar Servidor');
    const list = await screen.findByRole('list', { name: 'Servidores disponibles' });
    const [miami, toronto] = within(list).getAllByRole('article');
    expect(miami).toHaveTextContent(
      'Este servidor no admite Salas y tu peer está en la sala LAN Viernes: para moverlo aquí, sácalo antes de la sala.',
    );
    expect(within(miami!).getByRole('button', { name: 'Seleccionar el servidor Miami 1' })).toBeDisabled();
    expect(within(toronto!).getByRole('button', { name: 'Seleccionar el servidor Toronto 1' })).toBeEnabled();
  });

  it('leaves out the rooms line when rooms are not allowed', async () => {
    await openPeers([samplePeer()], { allowRooms: false, routes: { [NETWORK]: { body: sampleServers } } });
    await choose('movil', 'Cambiar Servidor');
    const list = await screen.findByRole('list', { name: 'Servidores disponibles' });
    expect(within(list).queryByText('Salas')).not.toBeInTheDocument();
  });

  it("says 'No hay servidores disponibles temporalmente.' when there is none", async () => {
    await openPeers([samplePeer()], { routes: { [NETWORK]: { body: [] } } });
    await choose('movil', 'Cambiar Servidor');
    expect(await screen.findByText('No hay servidores disponibles temporalmente.')).toBeInTheDocument();
  });

  it('shows the fallback error with a retry when the servers cannot be read', async () => {
    await openPeers([samplePeer()], { routes: { [NETWORK]: { status: 500, body: {} } } });
    await choose('movil', 'Cambiar Servidor');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Hubo un error al intentar obtener los servidores disponibles.',
    );
  });

  it('asks, moves the peer and keeps it busy until the push with its new server', async () => {
    const { api, socket } = await openPeers([samplePeer()], {
      routes: {
        [NETWORK]: { body: sampleServers },
        [PATCH_MOVIL]: { body: samplePeer({ processing: 'change_server' }) },
      },
    });
    await choose('movil', 'Cambiar Servidor');
    await userEvent.click(await screen.findByRole('button', { name: 'Seleccionar el servidor Toronto 1' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Cambiar Servidor' });
    expect(dialog).toHaveTextContent('¿Mover el peer movil al servidor Toronto 1?');
    expect(dialog).toHaveTextContent('Este servidor está inactivo en este momento');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cambiar' }));

    expect(await screen.findByRole('table', { name: 'Tus peers' })).toBeInTheDocument();
    await waitFor(() =>
      expect(api.callsTo(PATCH_MOVIL)[0]?.body).toEqual({ operation: 'change_server', server: 3 }),
    );
    expect(within(rowOf('movil')).getByRole('status')).toHaveTextContent('Cambiando de servidor...');

    const moved = settled(samplePeer(), {
      server: { ...sampleServers[1]!, active: false },
    });
    socket.push({ type: 'updated_peer', peer: moved });
    socket.push({ type: 'success', peer_id: 11, message: 'Peer movil movido al servidor Toronto 1' });
    expect(await toastWith('Peer movil movido al servidor Toronto 1')).toBeInTheDocument();
    expect(within(rowOf('movil')).getByText('tor1.vpn.example.com:51820')).toBeInTheDocument();
    expect(within(rowOf('movil')).queryByRole('status')).not.toBeInTheDocument();
  });

  it("toasts the server's message or the spec's fallback when the move fails", async () => {
    const { api } = await openPeers([samplePeer()], {
      routes: {
        [NETWORK]: { body: sampleServers },
        [PATCH_MOVIL]: { status: 400, body: { message: 'El servidor seleccionado no está disponible' } },
      },
    });
    await choose('movil', 'Cambiar Servidor');
    await userEvent.click(await screen.findByRole('button', { name: 'Seleccionar el servidor Miami 1' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog).not.toHaveTextContent('inactivo en este momento');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cambiar' }));
    expect(await toastWith('El servidor seleccionado no está disponible')).toBeInTheDocument();

    api.on(PATCH_MOVIL, { status: 500, body: {} });
    await choose('movil', 'Cambiar Servidor');
    await userEvent.click(await screen.findByRole('button', { name: 'Seleccionar el servidor Miami 1' }));
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Cambiar' }),
    );
    expect(await toastWith('Hubo un error al intentar cambiar el servidor del peer.')).toBeInTheDocument();
  });
});

describe('Peers page: details', () => {
  it('shows creation and expiry dates in Spanish, the private IP and the plan history', async () => {
    const peer = samplePeer({
      plans_history: [
        { plan_name: 'Trimestral', plan_price: 12.5, created: '2025-06-20T12:00:00.000Z' },
        { plan_name: 'Básico', plan_price: 5, created: '2025-03-05T10:00:00.000Z' },
      ],
    });
    await openPeers([peer]);
    await choose('movil', 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    expect(dialog).toHaveTextContent('Fecha de creación5 de marzo de 2025');
    expect(dialog).toHaveTextContent('Fecha de expiración5 de abril de 2025');
    expect(dialog).toHaveTextContent('IP privada10.8.0.2');
    const rows = within(within(dialog).getByRole('table')).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual([
      'PlanPrecioFecha',
      'Trimestral12,50 US$20 de junio de 2025',
      'Básico5,00 US$5 de marzo de 2025',
    ]);
    await userEvent.click(within(dialog).getAllByRole('button', { name: 'Cerrar' })[0]!);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("marks a refunded plan 'Reembolsado' in the history", async () => {
    const peer = samplePeer({
      plans_history: [
        {
          plan_name: 'Trimestral',
          plan_price: 12.5,
          created: '2025-06-20T12:00:00.000Z',
          refunded: '2025-06-22T09:00:00.000Z',
        },
        { plan_name: 'Básico', plan_price: 5, created: '2025-03-05T10:00:00.000Z', refunded: null },
      ],
    });
    await openPeers([peer]);
    await choose('movil', 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    const rows = within(within(dialog).getByRole('table')).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual([
      'PlanPrecioFecha',
      'Trimestral Reembolsado12,50 US$20 de junio de 2025',
      'Básico5,00 US$5 de marzo de 2025',
    ]);
    expect(within(rows[1]!).getByText('Reembolsado')).toHaveAttribute(
      'title',
      'Reembolsado el 22 de junio de 2025: su periodo se retiró del peer',
    );
  });

  it('shows the usage: online, last handshake, the period’s traffic and a 30-day chart; the list marks it online', async () => {
    const download = Array.from({ length: 30 }, (_, i) => (i === 29 ? 3 * 1024 * 1024 : 0));
    const upload = Array.from({ length: 30 }, (_, i) => (i === 29 ? 512 * 1024 : 0));
    await openPeers([samplePeer({ online: true })], {
      routes: {
        'GET /api/client/accounts/peers/11/usage': {
          body: {
            online: true,
            last_handshake: '2025-03-20T10:00:00.000Z',
            period: {
              since: '2025-03-05T10:00:00.000Z',
              upload: 2048,
              download: 5 * 1024 * 1024,
              allowance: null,
              used: 0,
            },
            days_from: '2025-02-19',
            upload,
            download,
          },
        },
      },
    });
    expect(rowOf('movil')).toHaveTextContent('movil(En línea)');
    await choose('movil', 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    await within(dialog).findByText('En línea');
    expect(dialog).toHaveTextContent('Último handshake20 de marzo de 2025');
    expect(dialog).toHaveTextContent(
      'Tráfico del periodo actual (desde 5 de marzo de 2025)Bajada 5 MB · Subida 2 KB',
    );
    const chart = within(dialog).getByRole('img', { name: /últimos 30 días: 3,5 MB en total/ });
    expect(within(chart).getAllByTestId('usage-bar')).toHaveLength(30);
    expect(chart.querySelectorAll('title')[29]?.textContent).toBe('20 mar: 3 MB de bajada, 512 KB de subida');
  });

  it("shows 'Indeterminado' for a peer without expiry, and opens for an inactive peer too", async () => {
    await openPeers([samplePeer({ expiration_date: null, active: false })]);
    await choose('movil', 'Detalles');
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Fecha de expiraciónIndeterminado');
  });
});

describe('Peers page: inactive peers', () => {
  it('disables download and every operation, leaving the details', async () => {
    await openPeers([samplePeer({ active: false })]);
    expect(within(rowOf('movil')).getAllByRole('cell')[0]).toHaveTextContent('Deshabilitado');
    expect(downloadButton('movil')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Ver QR del peer movil' })).toBeDisabled();
    const menu = await openMenu('movil');
    for (const item of ['Regenerar Mirror Link', 'Regenerar Peer', 'Cambiar Servidor', 'Script MikroTik']) {
      expect(within(menu).getByRole('menuitem', { name: item })).toHaveAttribute('aria-disabled', 'true');
    }
    expect(within(menu).getByRole('menuitem', { name: 'Detalles' })).not.toHaveAttribute('aria-disabled');
  });
});

describe('Peers page: config download, QR and MikroTik', () => {
  const CONF = '[Interface]\nPrivateKey = c2VjcmV0\nAddress = 10.8.0.2/32\n\n[Peer]\nEndpoint = mad1:51820\n';

  const textRoute = (text: string): Reply => ({ text });

  it('downloads the .conf with the bearer token and saves it as {peer name}.conf', async () => {
    const saved = captureDownloads();
    const { api } = await openPeers([samplePeer()], {
      routes: { 'GET /api/client/accounts/peers/11': textRoute(CONF) },
    });
    await userEvent.click(downloadButton('movil'));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]?.name).toBe('movil.conf');
    expect(await readBlob(saved[0]!.blob)).toBe(CONF);
    expect(api.callsTo('GET /api/client/accounts/peers/11')[0]?.headers.authorization).toBe('Bearer a1');
  });

  it('refreshes the token once on a 401 and retries the download', async () => {
    const saved = captureDownloads();
    const { api } = await openPeers([samplePeer()], {
      routes: {
        'GET /api/client/accounts/peers/11': (call) =>
          call.headers.authorization === 'Bearer a2' ? { text: CONF } : { status: 401, body: {} },
        'POST /api/refresh-token': { body: { access: 'a2', refresh: 'r2' } },
      },
    });
    await userEvent.click(downloadButton('movil'));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1);
    expect(api.callsTo('GET /api/client/accounts/peers/11')).toHaveLength(2);
  });

  it("toasts the server's refusal of a download", async () => {
    captureDownloads();
    await openPeers([samplePeer()], {
      routes: {
        'GET /api/client/accounts/peers/11': {
          status: 400,
          body: { message: 'No se puede descargar la configuración de un peer inactivo' },
        },
      },
    });
    await userEvent.click(downloadButton('movil'));
    expect(await toastWith('No se puede descargar la configuración de un peer inactivo')).toBeInTheDocument();
  });

  it('names a file after a peer with spaces and accents in the alphabet the WireGuard apps accept', async () => {
    const saved = captureDownloads();
    await openPeers([samplePeer({ name: 'Móvil de Ana' })], {
      routes: { 'GET /api/client/accounts/peers/11': textRoute(CONF) },
    });
    await userEvent.click(downloadButton('Móvil de Ana'));
    await waitFor(() => expect(saved[0]?.name).toBe('Movil-de-Ana.conf'));
  });

  it('exports the MikroTik script as {peer name}.rsc', async () => {
    const saved = captureDownloads();
    const { api } = await openPeers([samplePeer()], {
      routes: { 'GET /api/client/accounts/peers/11': textRoute('/interface wireguard add name=wg-movil') },
    });
    await choose('movil', 'Script MikroTik');
    await waitFor(() => expect(saved[0]?.name).toBe('movil.rsc'));
    const call = api.calls.find((c) => c.path === '/api/client/accounts/peers/11');
    expect(call).toBeDefined();
    expect(fetchedUrls()).toContain('/api/client/accounts/peers/11?format=mikrotik');
  });

  it('shows the config as a QR code with a private-key warning', async () => {
    await openPeers([samplePeer()], { routes: { 'GET /api/client/accounts/peers/11': textRoute(CONF) } });
    // One tap, beside Descargar (issue 32: it was behind ⋮).
    await userEvent.click(screen.getByRole('button', { name: 'Ver QR del peer movil' }));
    const dialog = await screen.findByRole('dialog', { name: 'Código QR del peer movil' });
    expect(dialog).toHaveTextContent('contiene la clave privada');
    const qr = await within(dialog).findByRole('img', {
      name: 'Código QR de la configuración del peer movil',
    });
    expect(Number(qr.getAttribute('data-modules'))).toBeGreaterThanOrEqual(21);
  });
});

describe('Peers page: configuration only for the room', () => {
  const ROOM_CONF =
    '[Interface]\nPrivateKey = c2VjcmV0\nAddress = 10.8.0.2/32\n\n[Peer]\nAllowedIPs = 10.64.0.0/10, 255.255.255.255/32, 224.0.0.0/4\n';
  const inRoom = () => samplePeer({ party: { id: 21, name: 'LAN Viernes' } });
  const roomRoute = { 'GET /api/client/accounts/peers/11': { text: ROOM_CONF } };

  it('is offered in the menu only for a peer in a room', async () => {
    await openPeers([inRoom(), laptop()]);
    let menu = await openMenu('movil');
    expect(
      within(menu).getByRole('menuitem', { name: 'Configuración solo para la Sala' }),
    ).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    menu = await openMenu('portatil');
    expect(within(menu).queryByRole('menuitem', { name: 'Configuración solo para la Sala' })).toBeNull();
  });

  it('explains the difference in one sentence and fetches nothing until asked', async () => {
    await openPeers([inRoom()], { routes: roomRoute });
    await choose('movil', 'Configuración solo para la Sala');
    const dialog = await screen.findByRole('dialog', { name: 'Configuración solo para la Sala: movil' });
    expect(dialog).toHaveTextContent(
      'A diferencia de la configuración normal, que lleva todo tu tráfico por la VPN, esta solo lleva el de la Sala (tus compañeros y la búsqueda de partidas): todo lo demás sigue por tu propia conexión.',
    );
    expect(fetchedUrls().filter((u) => u.startsWith('/api/client/accounts/peers/11'))).toEqual([]);
    expect(within(dialog).queryByRole('img')).toBeNull();
  });

  it('downloads it from ?scope=room as {peer name}-sala.conf', async () => {
    const saved = captureDownloads();
    await openPeers([inRoom()], { routes: roomRoute });
    await choose('movil', 'Configuración solo para la Sala');
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(
      within(dialog).getByRole('button', {
        name: 'Descargar la configuración solo para la Sala del peer movil',
      }),
    );
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]?.name).toBe('movil-sala.conf');
    expect(await readBlob(saved[0]!.blob)).toBe(ROOM_CONF);
    expect(fetchedUrls()).toContain('/api/client/accounts/peers/11?scope=room');
  });

  it('shows it as a QR code with the private-key warning once asked', async () => {
    await openPeers([inRoom()], { routes: roomRoute });
    await choose('movil', 'Configuración solo para la Sala');
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Código QR' }));
    const qr = await within(dialog).findByRole('img', {
      name: 'Código QR de la configuración solo para la Sala del peer movil',
    });
    expect(Number(qr.getAttribute('data-modules'))).toBeGreaterThanOrEqual(21);
    expect(dialog).toHaveTextContent('contiene la clave privada');
    expect(fetchedUrls()).toContain('/api/client/accounts/peers/11?scope=room');
  });

  it("toasts the server's refusal (the peer left its room meanwhile)", async () => {
    captureDownloads();
    const message =
      'Este peer no está en ninguna sala: la configuración solo para la Sala existe mientras el peer esté en una.';
    await openPeers([inRoom()], {
      routes: { 'GET /api/client/accounts/peers/11': { status: 409, body: { message } } },
    });
    await choose('movil', 'Configuración solo para la Sala');
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: /^Descargar la configuración solo/ }));
    expect(await toastWith(message)).toBeInTheDocument();
  });
});

describe('Peers page: live updates', () => {
  it('adds, changes and removes rows as the pushes arrive, without reloading', async () => {
    const { api, socket } = await openPeers([samplePeer()]);
    await waitFor(() => expect(api.callsTo(PEERS).length).toBeGreaterThan(0));
    const reads = api.callsTo(PEERS).length;

    socket.push({ type: 'created_peer', peer: laptop() });
    expect(rowOf('portatil')).toBeInTheDocument();
    socket.push({ type: 'updated_peer', peer: settled(laptop(), { active: false }) });
    expect(within(rowOf('portatil')).getAllByRole('cell')[0]).toHaveTextContent('Deshabilitado');
    socket.push({ type: 'deleted_peer', peer_id: 11 });
    expect(screen.queryByRole('rowheader', { name: /^movil/ })).not.toBeInTheDocument();
    expect(api.callsTo(PEERS)).toHaveLength(reads);
  });

  it('ignores messages that are not valid push messages', async () => {
    const { socket } = await openPeers([samplePeer()]);
    socket.push('no es json');
    socket.push({ type: 'updated_peer', peer: { id: 11 } } as { type: string });
    socket.push({ type: 'desconocido' });
    expect(within(rowOf('movil')).getAllByRole('cell')[0]).toHaveTextContent('Activo');
  });
});
