/** The console's side of issue 19: Peers (badge, filter), the peer's page, Resumen and Ajustes. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdminPeer, AdminPeerDetail } from '../../api/adminCatalog';
import { fakeApi, type Handler } from '../../test/api';
import { SETTINGS } from '../../test/console';
import { renderApp } from '../../test/render';
import { setViewportWidth } from '../../test/viewport';

vi.setConfig({ testTimeout: 20_000 });
beforeEach(() => setViewportWidth(1280));
afterEach(() => localStorage.clear());

function signedIn(routes: Record<string, Handler>, role = 'owner') {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({ 'GET /api/admin/verify-token': { body: { id: 1, username: 'admin', role } }, ...routes });
}

const flagged: AdminPeer = {
  id: 9,
  name: 'Móvil de Ana',
  owner: { id: 5, username: 'ana', disabled: false },
  server: { id: 3, name: 'Madrid' },
  address: '10.64.0.9',
  public_key: 'pk9=',
  active: true,
  enabled: true,
  expires_at: null,
  manual_payment: false,
  party: null,
  processing: null,
  created: '2025-03-05T10:00:00.000Z',
  concurrent_use: {
    detected_at: '2025-03-06T10:00:00.000Z',
    endpoints: 2,
    last_seen: '2025-03-06T12:00:00.000Z',
    recent: ['192.0.2.0/24', '198.51.100.0/24'],
    detections_24h: 3,
  },
  speed: { down_mbit: null, up_mbit: null, reduced: null },
};
const quiet: AdminPeer = { ...flagged, id: 10, name: 'Portátil de Luis', concurrent_use: null };

const detail: AdminPeerDetail = {
  ...flagged,
  plans_history: [],
  usage: {
    rx_bytes: 0,
    tx_bytes: 0,
    rx_bytes_30d: 0,
    tx_bytes_30d: 0,
    last_handshake: null,
    endpoint: null,
    online: false,
    period: { since: '2025-03-05T10:00:00.000Z', upload: 0, download: 0, allowance: null, used: 0 },
    days_from: '2025-02-05',
    upload: [],
    download: [],
  },
};

describe('Peers: uso simultáneo', () => {
  it('marks the flagged peer, filters by "Uso simultáneo" and shows the detection on its page', async () => {
    signedIn({
      'GET /api/admin/peers': { body: { count: 2, results: [flagged, quiet] } },
      'GET /api/admin/servers': { body: { count: 0, results: [] } },
      'GET /api/admin/peers/9': { body: detail },
    });
    const { router } = renderApp('/manager/dashboard/peers');
    const table = await screen.findByRole('table', { name: 'Peers' });
    const rows = within(table).getAllByRole('row');
    expect(rows.find((r) => r.textContent?.includes('Móvil de Ana'))).toHaveTextContent('Uso simultáneo');
    expect(rows.find((r) => r.textContent?.includes('Portátil de Luis'))).not.toHaveTextContent(
      'Uso simultáneo',
    );

    await userEvent.selectOptions(screen.getByLabelText('Estado'), 'Uso simultáneo');
    await waitFor(() => expect(router.state.location.search).toBe('?state=concurrent_use'));

    await userEvent.click(screen.getByText('Móvil de Ana'));
    const panel = await screen.findByRole('dialog', { name: 'Peer Móvil de Ana' });
    expect(await within(panel).findByText(/^En 2 direcciones a la vez desde el /)).toBeInTheDocument();
    expect(within(panel).getByText('Últimas redes: 192.0.2.0/24, 198.51.100.0/24')).toBeInTheDocument();
    expect(within(panel).getByText(/^3 detecciones en 24 h; la última el /)).toBeInTheDocument();
  });
});

describe('Resumen and Ajustes', () => {
  it('counts the peers in use on more than one device on Resumen', async () => {
    signedIn({
      'GET /api/admin/metrics': {
        body: {
          customers: 1,
          peers: 2,
          active_peers: 2,
          servers: 1,
          servers_online: 1,
          concurrent_use_peers: 4,
        },
      },
      'GET /api/admin/metrics/series': { status: 500, body: {} },
    });
    renderApp('/manager/dashboard');
    const term = await screen.findByText('Peers en uso simultáneo');
    expect(term.nextElementSibling).toHaveTextContent('4');
  });

  const settings = SETTINGS;

  it('sets the policy: notify and regenerate after N detections in 24 h', async () => {
    const api = signedIn({
      'GET /api/admin/settings': { body: settings },
      'GET /api/admin/settings/concurrent-use': { body: { action: 'notify', regenerate_after: 3 } },
      'PATCH /api/admin/settings/concurrent-use': (call) => ({
        body: { action: 'notify', regenerate_after: 3, ...(call.body as object) },
      }),
    });
    renderApp('/manager/dashboard/settings');
    const section = await screen.findByRole('region', { name: 'Uso simultáneo' });
    const policy = await within(section).findByLabelText('Política');
    expect(policy).toHaveValue('notify');
    const after = within(section).getByLabelText('Regenerar tras esta cantidad de detecciones en 24 h');
    expect(after).toBeDisabled();
    await userEvent.selectOptions(policy, 'Avisar y regenerar las claves');
    expect(after).toBeEnabled();
    await userEvent.clear(after);
    await userEvent.type(after, '5');
    await userEvent.click(within(section).getByRole('button', { name: 'Guardar' }));
    expect(await screen.findByText('Política de uso simultáneo guardada')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/settings/concurrent-use')[0]?.body).toEqual({
      action: 'regenerate',
      regenerate_after: 5,
    });
  });
});
