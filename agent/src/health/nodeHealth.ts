/**
 * The `node_health` report (issue 34): the interface's totals from the stats pass that just ran
 * (Reconciler.interfaceTotals) and the host's figures from /proc, with rates since the previous
 * report. One instance per agent; it only keeps the previous reading.
 */
import type { AgentNodeHealth } from '@vpn/contracts/agent';
import { cpuPercent, readHost, type CpuTimes } from './proc.ts';

/** What the stats pass knows of the interface (see Reconciler.interfaceTotals). */
export interface InterfaceTotals {
  peers: number;
  handshakes3m: number;
  rx: number;
  tx: number;
}

export type NodeHealthReport = Omit<AgentNodeHealth, 'type' | 'at'>;

export class NodeHealth {
  private last: { at: number; rx: number; tx: number; cpu: CpuTimes | null } | null = null;

  constructor(private readonly procDir = '/proc') {}

  /**
   * The report for a pass at `at` (Unix ms). Rates are the growth of the summed counters per
   * second; a sum that fell (peers left the interface, or it was recreated) gives 0 for that pass
   * rather than a negative or a spike.
   */
  async sample(totals: InterfaceTotals | null, at: number): Promise<NodeHealthReport | null> {
    if (!totals) return null;
    const host = await readHost(this.procDir);
    const prev = this.last;
    const seconds = prev ? (at - prev.at) / 1000 : 0;
    const rate = (now: number, before: number) =>
      seconds > 0 ? Math.round(Math.max(0, now - before) / seconds) : null;
    this.last = { at, rx: totals.rx, tx: totals.tx, cpu: host.cpu };
    return {
      peers: totals.peers,
      handshakes_3m: totals.handshakes3m,
      rx_bytes: totals.rx,
      tx_bytes: totals.tx,
      rx_rate: prev ? rate(totals.rx, prev.rx) : null,
      tx_rate: prev ? rate(totals.tx, prev.tx) : null,
      load: host.load,
      cpu: prev?.cpu && host.cpu ? cpuPercent(prev.cpu, host.cpu) : null,
      memory: host.memory,
    };
  }
}
