/**
 * The console's fixtures, one of each: a server as `GET /api/admin/servers` lists it (online, in
 * step with its agent) and the site's switches as `GET /api/admin/settings` answers them. Tests
 * spread and override what they are about.
 */
import type { SiteSettings } from '../api/admin';
import type { AdminServer } from '../api/adminFleet';

export const MADRID: AdminServer = {
  id: 3,
  name: 'Madrid',
  host: 'mad.vpn.example.com',
  port: 51820,
  endpoint: 'mad.vpn.example.com:51820',
  ubication: 'Madrid, España',
  active: true,
  allow_partys: true,
  allow_discovery: true,
  relay: { active: true, relayed: 0, dropped: 0, reported_at: null, error: null },
  dns: '1.1.1.1',
  mtu: 1420,
  interface_name: 'wg0',
  public_key: 'pk',
  agent_online: true,
  agent_version: '1.2.0',
  agent_node_version: '18.19.1',
  agent_outdated: false,
  agent_upgrade: null,
  last_seen_at: '2025-03-05T10:00:00.000Z',
  offline_since: null,
  health: null,
  revision: 7,
  acked_revision: 7,
  peers: 0,
};

export const SETTINGS: SiteSettings = {
  maintenance: false,
  allow_registration: true,
  allow_password_recovery: true,
  show_landing: true,
  allow_payments_qvapay: false,
  allow_email: true,
  allow_partys: false,
  allow_payments_remesita: false,
  allow_discovery: true,
  room_member_limit: 16,
};
