import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Peer } from '@vpn/contracts';
import { describe, expect, it } from 'vitest';
import { fakeApi, sampleUser } from '../../../test/api';
import { laptop, samplePeer } from '../../../test/peers';
import { renderApp } from '../../../test/render';
import { setViewportWidth } from '../../../test/viewport';
import { FakeWebSocket } from '../../../test/websocket';

const flagged = samplePeer({ concurrent_use: { detected_at: '2025-03-10T10:00:00.000Z', endpoints: 2 } });

async function openPeers(peers: Peer[], width = 1280) {
  localStorage.setItem('access', 'a1');
  localStorage.setItem('refresh', 'r1');
  setViewportWidth(width);
  const api = fakeApi({
    'GET /api/client/verify-token': { body: sampleUser },
    'GET /api/client/accounts/peers': { body: peers },
  });
  const app = renderApp('/dashboard/peers');
  await screen.findAllByText(peers[0]!.name);
  await waitFor(() => expect(FakeWebSocket.latest()).toBeDefined());
  const socket = FakeWebSocket.latest()!;
  socket.accept();
  // The accepted socket reads the list again (pushes may have been missed): let that read land first.
  await waitFor(() => expect(api.callsTo('GET /api/client/accounts/peers')).toHaveLength(2));
  await act(async () => {});
  return { app, socket };
}

describe('Peers page: a peer in use on more than one device (issue 19)', () => {
  it('explains why both connections are unstable and that each device needs its own peer', async () => {
    await openPeers([flagged, laptop()]);
    const notice = screen.getByRole('alert', {
      name: 'El peer movil parece estar en uso en más de un dispositivo',
    });
    expect(notice).toHaveTextContent('las dos conexiones se vuelven inestables');
    expect(notice).toHaveTextContent('Cada dispositivo necesita su propio peer.');
    // Only the flagged peer: one notice, one badge.
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(screen.getAllByText('En varios dispositivos')).toHaveLength(1);
  });

  it('links to buying a new peer', async () => {
    const { app } = await openPeers([flagged], 600);
    const notice = screen.getByRole('alert');
    await userEvent.click(within(notice).getByRole('link', { name: 'Comprar un peer nuevo' }));
    await waitFor(() => expect(app.path()).toBe('/dashboard/plans'));
  });

  it('offers regenerating this peer through the usual confirmation', async () => {
    await openPeers([flagged]);
    await userEvent.click(screen.getByRole('button', { name: 'Regenerar este peer' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog).toHaveTextContent('¿Regenerar el peer movil?');
  });

  it('goes away when the control plane clears the flag (push)', async () => {
    const { socket } = await openPeers([flagged]);
    expect(screen.getByRole('alert')).toBeInTheDocument();
    act(() => socket.push({ type: 'updated_peer', peer: { ...flagged, concurrent_use: null } }));
    await waitFor(() => expect(screen.queryByRole('alert')).not.toBeInTheDocument());
    expect(screen.queryByText('En varios dispositivos')).not.toBeInTheDocument();
  });

  it('keeps the regenerate button disabled while the peer is busy', async () => {
    await openPeers([{ ...flagged, processing: 'regenerate' }]);
    expect(screen.getByRole('button', { name: 'Regenerar este peer' })).toBeDisabled();
  });
});
