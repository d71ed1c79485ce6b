/** Servers as the consoles show them (the server console, the metrics): online window, upgrade state. */
import { sql } from 'drizzle-orm';
import { agentMsg, compareVersions, type AdminServer } from '@vpn/contracts';
import { agentOnline, endpointOf, type ServerRow } from './servers.ts';
import { offlineSince, presentHealth } from './nodeHealth.ts';

/** A peer whose last handshake is this recent counts as online (issue 9's definition). */
export const ONLINE_WINDOW = sql`interval '3 minutes'`;

/**
 * A server as consoles see it. `latest`: the agent version this panel serves, against which the
 * agent is "desactualizado" (older; unknown versions count as older, no agent yet as not).
 */
export function presentAdminServer(s: ServerRow, peerCount = 0, latest: string | null = null): AdminServer {
  return {
    id: s.id,
    name: s.name,
    host: s.host,
    port: s.port,
    endpoint: endpointOf(s),
    ubication: s.ubication,
    active: s.active,
    allow_partys: s.allowRooms,
    allow_discovery: s.allowDiscovery,
    relay: {
      active: s.relayActive,
      relayed: s.relayRelayed,
      dropped: s.relayDropped,
      reported_at: s.relayReportedAt?.toISOString() ?? null,
      error: s.relayError,
    },
    dns: s.dns,
    mtu: s.mtu,
    interface_name: s.interfaceName,
    public_key: s.publicKey,
    agent_online: agentOnline(s),
    agent_version: s.agentVersion,
    agent_node_version: s.agentNodeVersion,
    agent_outdated: latest !== null && s.agentVersion !== null && compareVersions(s.agentVersion, latest) < 0,
    agent_upgrade: presentUpgrade(s),
    last_seen_at: s.lastSeenAt?.toISOString() ?? null,
    offline_since: offlineSince(s),
    health: presentHealth(s.health, s.healthAt),
    revision: s.revision,
    acked_revision: s.ackedRevision,
    peers: peerCount,
  };
}

/** An upgrade still unanswered after this long is shown as failed (the agent went away meanwhile). */
export const UPGRADE_STALE_MS = 5 * 60_000;

function presentUpgrade(s: ServerRow): AdminServer['agent_upgrade'] {
  const status = s.agentUpgradeStatus as 'pending' | 'restarting' | 'failed' | null;
  if (!status) return null;
  const at = s.agentUpgradeAt;
  const stale = status !== 'failed' && at !== null && Date.now() - at.getTime() > UPGRADE_STALE_MS;
  return {
    status: stale ? 'failed' : status,
    version: s.agentUpgradeVersion,
    error: stale ? agentMsg.upgradeLost : s.agentUpgradeError,
    at: at?.toISOString() ?? null,
  };
}
