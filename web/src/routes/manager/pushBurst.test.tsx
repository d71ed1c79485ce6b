/**
 * Issue 33 (its console part): an `admin_server` push made every open console re-read the fleet
 * (GET /api/admin/servers and /api/admin/metrics with its series, each counting peers per server)
 * at once, so 50 agents reconnecting after a panel restart were 50 recounts per console. A burst
 * now is one re-read; the red state still shows within seconds, without a reload.
 */
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { AdminServer } from '../../api/adminFleet';
import { fakeApi } from '../../test/api';
import { MADRID } from '../../test/console';
import { renderApp } from '../../test/render';
import { FakeWebSocket } from '../../test/websocket';

vi.mock('uplot', () => {
  class FakePlot {
    static tzDate = (d: Date) => d;
    static paths = { bars: () => () => null };
    setSize() {}
    destroy() {}
  }
  return { default: FakePlot };
});

const server = (id: number, online: boolean): AdminServer => ({
  ...MADRID,
  id,
  name: `Nodo ${id}`,
  host: `n${id}.vpn.example.com`,
  endpoint: `n${id}.vpn.example.com:51820`,
  ubication: 'Miami',
  agent_online: online,
  last_seen_at: online ? new Date().toISOString() : null,
  offline_since: online ? null : new Date(Date.now() - 60_000).toISOString(),
  revision: 1,
  acked_revision: 1,
  peers: 10,
});

describe('a burst of admin_server pushes', { timeout: 30_000 }, () => {
  it('re-reads the fleet once on Resumen, and the offline server turns red', async () => {
    localStorage.setItem('manager_access', 'm-a');
    let online = true;
    const api = fakeApi({
      'GET /api/admin/verify-token': { body: { id: 1, username: 'admin', role: 'owner' } },
      'GET /api/admin/servers': () => ({
        body: { count: 50, results: Array.from({ length: 50 }, (_, i) => server(i + 1, i > 0 || online)) },
      }),
      'GET /api/admin/metrics': {
        body: { customers: 1, peers: 500, active_peers: 500, servers: 50, servers_online: 50 },
      },
      'GET /api/admin/metrics/series': {
        body: {
          from: '2026-01-10',
          to: '2026-01-10',
          days: ['2026-01-10'],
          new_customers: [0],
          active_peers: [0],
          servers: [],
        },
      },
    });
    renderApp('/manager/dashboard');
    expect(await screen.findByText('Nodo 1')).toBeInTheDocument();
    await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(0));
    const socket = FakeWebSocket.latest()!;
    socket.accept();
    await waitFor(() => expect(api.callsTo('GET /api/admin/metrics/series')).toHaveLength(1));
    const before = {
      servers: api.callsTo('GET /api/admin/servers').length,
      metrics: api.callsTo('GET /api/admin/metrics').length,
      series: api.callsTo('GET /api/admin/metrics/series').length,
    };
    // Node 1's agent leaves; 49 others reconnect around it: 50 pushes in a row.
    online = false;
    for (let id = 1; id <= 50; id++) socket.push({ type: 'admin_server', server_id: id });
    const red = await screen.findByText(/Sin conexión desde hace/);
    expect(red.closest('li')).toHaveAttribute('data-server', 'Nodo 1');
    // Give any late re-read its chance to show up before counting.
    await new Promise((r) => setTimeout(r, 2500));
    expect({
      servers: api.callsTo('GET /api/admin/servers').length - before.servers,
      metrics: api.callsTo('GET /api/admin/metrics').length - before.metrics,
      series: api.callsTo('GET /api/admin/metrics/series').length - before.series,
    }).toEqual({ servers: 1, metrics: 1, series: 1 });
  });
});
