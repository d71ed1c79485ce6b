import { AgentRelease } from './agentRelease.ts';

/**
 * The fleet domain's entry point: the agent release this panel serves. Servers, their desired
 * state and addresses are functions over the database; the server console and drains are built
 * by their routes with the peers they move (PeerMover, PeerPresenter).
 */
export interface FleetDeps {
  /** The agent file served to VPN servers (default agent/dist/vpn-agent.mjs; tests). */
  agentFile?: string;
}

export interface Fleet {
  agentRelease: AgentRelease;
}

export function createFleet(deps: FleetDeps): Fleet {
  return { agentRelease: new AgentRelease(deps.agentFile) };
}
