/**
 * "Actualizar agente" (issue 16): the state of the last upgrade asked of a server's agent, kept on
 * its row so every instance and console sees it (migration 0017).
 *
 *   pending     asked; the instance holding the agent's socket sends `upgrade` (again at the agent's
 *               next hello if it reconnected before answering)
 *   restarting  the agent replaced its file and is restarting
 *   failed      the agent kept its old file; agent_upgrade_error says why
 *   (null)      nothing asked, or the agent came back with the target version
 */
import { and, eq } from 'drizzle-orm';
import { agentMsg, compareVersions, type ServerUpgrade } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { servers } from '../../db/schema.ts';
import type { AgentRelease } from './agentRelease.ts';

export type UpgradeStatus = 'pending' | 'restarting' | 'failed';

export async function setUpgradeState(
  db: Db,
  serverId: number,
  status: UpgradeStatus | null,
  fields: { version?: string; error?: string | null; onlyIf?: UpgradeStatus } = {},
): Promise<void> {
  await db
    .update(servers)
    .set({
      agentUpgradeStatus: status,
      agentUpgradeError: fields.error ?? null,
      ...(fields.version !== undefined ? { agentUpgradeVersion: fields.version } : {}),
      ...(status === 'pending' ? { agentUpgradeAt: new Date() } : {}),
    })
    .where(
      and(
        eq(servers.id, serverId),
        fields.onlyIf ? eq(servers.agentUpgradeStatus, fields.onlyIf) : undefined,
      ),
    );
}

/** The `upgrade` message for the panel's current agent file, or null when it is not built. */
export function upgradeMessage(release: AgentRelease | undefined): ServerUpgrade | null {
  const file = release?.current();
  return file ? { type: 'upgrade', version: file.version, sha256: file.sha256 } : null;
}

/**
 * What an agent's hello means for a pending upgrade: `done` (it runs the target or newer), `resend`
 * (it reconnected before answering), or a failure sentence (it came back old after restarting, or
 * it cannot upgrade itself).
 */
export function upgradeOnHello(
  row: { agentUpgradeStatus: string | null; agentUpgradeVersion: string | null },
  agentVersion: string,
  canUpgrade: boolean,
): 'done' | 'resend' | { failed: string } | null {
  const status = row.agentUpgradeStatus;
  if (status === null) return null;
  const target = row.agentUpgradeVersion ?? '';
  // Also after a failure: the operator may have upgraded it another way (the install line again).
  if (compareVersions(agentVersion, target) >= 0) return 'done';
  if (status === 'failed') return null;
  if (status === 'restarting') return { failed: agentMsg.cameBackOld(agentVersion, target) };
  if (!canUpgrade) return { failed: agentMsg.oldAgent(agentVersion) };
  return 'resend';
}
