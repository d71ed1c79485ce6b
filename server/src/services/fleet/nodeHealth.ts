/**
 * Node health in the console (issue 34): what a server's agent reports after each stats pass
 * (contracts' AgentNodeHealth: interface totals, throughput, load, CPU, memory) is kept on the
 * server's row, for any instance to present, and pushed to the consoles as it comes.
 */
import { eq } from 'drizzle-orm';
import type { AgentNodeHealth, NodeHealth } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { servers } from '../../db/schema.ts';
import type { Bus } from '../../realtime/bus.ts';
import { agentOnline, type ServerRow } from './servers.ts';

/** Stores a report and tells the consoles that read servers. */
export async function recordNodeHealth(
  db: Db,
  bus: Bus,
  serverId: number,
  report: AgentNodeHealth,
  now = new Date(),
): Promise<void> {
  const { type: _type, ...health } = report;
  await db.update(servers).set({ health, healthAt: now }).where(eq(servers.id, serverId));
  await bus.publish({
    kind: 'managers',
    permission: 'servers.read',
    message: { type: 'admin_server_health', server_id: serverId, health: presentHealth(health, now)! },
  });
}

/** The report as the console shows it; `at` is when the control plane received it. */
export function presentHealth(health: ServerRow['health'], at: Date | null): NodeHealth | null {
  if (!health || !at) return null;
  return {
    at: at.toISOString(),
    peers: health.peers,
    handshakes_3m: health.handshakes_3m,
    rx_bytes: health.rx_bytes,
    tx_bytes: health.tx_bytes,
    rx_rate: health.rx_rate,
    tx_rate: health.tx_rate,
    load: health.load,
    cpu: health.cpu,
    memory: health.memory,
  };
}

/**
 * Since when an offline agent has been away: its connection's close, or the last time it was heard
 * of when it vanished without one (an instance that held it stopped). Null while online, and for an
 * agent that never connected.
 */
export function offlineSince(s: Pick<ServerRow, 'lastSeenAt' | 'disconnectedAt'>, now = Date.now()) {
  if (agentOnline(s, now)) return null;
  return (s.lastSeenAt ?? s.disconnectedAt)?.toISOString() ?? null;
}
