/**
 * Enforces each peer's speed on the node (issue 35) with Linux traffic control, through Debian's
 * iproute2 only (`tc`, `ip`): the layout is in model.ts and docs/decisions.md ("Per-peer speed").
 *
 * - `converge` (snapshot, repair, restart): reads back qdiscs, classes and filters of both
 *   directions, diffs them against the desired shaping and applies the difference in one
 *   `tc -batch -` fed on stdin (10,000 peers are ~60,000 lines, one process). With nothing to shape
 *   and nothing of ours on the interface it costs one `tc qdisc show`; with nothing to shape it
 *   removes what is there.
 * - `update` (deltas): applies only the changed peers' lines against the state the last apply left,
 *   without reading anything back: one peer's change is one short batch.
 *
 * Works the same on wireguard-go's tun device and the kernel module's interface: both are plain
 * IP devices to traffic control.
 */
import { createHash } from 'node:crypto';
import type { CommandRunner } from '../exec.ts';
import type { Logger } from '../log.ts';
import {
  DIRECTIONS,
  DirectionState,
  planDirection,
  wantOf,
  type DesiredShaping,
  type Direction,
  type LeafKind,
  type LiveDirection,
  type PeerRate,
} from './model.ts';
import { ingressRedirects, parseDirection, type TcFilter, type TcQdisc } from './tcRead.ts';

/** The ifb device that carries a WireGuard interface's incoming traffic (what peers send). */
export function ifbName(iface: string): string {
  if (iface.length <= 11) return `${iface}-ifb`;
  const hash = createHash('sha256').update(iface).digest('hex').slice(0, 4);
  return `${iface.slice(0, 7)}${hash}-ifb`;
}

/** What one apply did (logs, tests, the benchmark). */
export interface ShapeResult {
  /** Shaped peer-directions live after it. */
  shaped: number;
  /** tc batch lines it ran. */
  lines: number;
  /** It rebuilt a direction's tree (cold start, a device recreated, a foreign qdisc). */
  rebuilt: boolean;
}

interface Model {
  iface: string;
  ifb: string;
  dirs: Record<Direction, DirectionState>;
  /** The trees are in place (false while nobody is shaped: nothing is installed then). */
  installed: boolean;
}

export class Shaper {
  private leaf: LeafKind | null = null;
  /** What the last successful apply left; null = unknown: the next delta converges instead. */
  private model: Model | null = null;

  constructor(
    private readonly runner: CommandRunner,
    private readonly log: Logger,
  ) {}

  /** Shaped peer-directions as last applied (0 when unknown). */
  get shapedCount(): number {
    return this.model ? this.model.dirs.down.entries.size + this.model.dirs.up.entries.size : 0;
  }

  /** Makes traffic control match `desired` on `iface` (read back, diff, apply). */
  async converge(iface: string, desired: DesiredShaping): Promise<ShapeResult> {
    this.model = null;
    const ifb = ifbName(iface);
    const wgQdiscs = await this.qdiscs(iface);
    const wgRoot = wgQdiscs.find((q) => q.root);
    const hasIngress = wgQdiscs.some((q) => q.kind === 'ingress');
    if (desired.size === 0) {
      const ours = wgRoot?.kind === 'htb' && wgRoot.handle === '1:';
      if (ours || hasIngress) await this.teardown(iface, ifb, ours, hasIngress);
      this.model = {
        iface,
        ifb,
        dirs: {
          down: new DirectionState(new Map()),
          up: new DirectionState(new Map()),
        },
        installed: false,
      };
      return { shaped: 0, lines: 0, rebuilt: false };
    }
    await this.ensureIfb(ifb);
    const live: Record<Direction, LiveDirection> = {
      down: await this.readDirection(iface, 'down', wgQdiscs),
      up: await this.readDirection(ifb, 'up'),
    };
    const leaf = await this.leafKind(ifb, live);
    const lines: string[] = [];
    const dirs = {} as Record<Direction, DirectionState>;
    let rebuilt = false;
    for (const dir of ['up', 'down'] as const) {
      const dev = dir === 'down' ? iface : ifb;
      const plan = planDirection(dev, dir, wantOf(desired, dir), live[dir], leaf);
      if (!live[dir].skeleton) rebuilt = true;
      if (plan.collisions.length > 0)
        this.log.warn('direcciones sin limitar: su filtro coincide con el de otra', {
          first: plan.collisions[0],
          count: plan.collisions.length,
        });
      lines.push(...plan.lines);
      dirs[dir] = new DirectionState(plan.entries);
      // Incoming traffic reaches the ifb only once its tree is there.
      if (dir === 'up' && !(await this.redirecting(iface, ifb, hasIngress))) {
        if (hasIngress) lines.push(`qdisc del dev ${iface} ingress`);
        lines.push(
          `qdisc add dev ${iface} handle ffff: ingress`,
          `filter add dev ${iface} parent ffff: protocol all prio 1 u32 match u32 0 0 action mirred egress redirect dev ${ifb}`,
        );
      }
    }
    await this.batch(lines);
    this.model = { iface, ifb, dirs, installed: true };
    const result = { shaped: this.shapedCount, lines: lines.length, rebuilt };
    if (lines.length > 0) this.log.info('velocidades aplicadas', { interface: iface, ...result });
    return result;
  }

  /**
   * A delta's changes (address → rate, null = unlimited): only those peers' classes and filters.
   * Answers 'converge' when the state is unknown or a first shaped peer needs the trees built.
   */
  async update(
    iface: string,
    changes: ReadonlyMap<string, PeerRate | null>,
  ): Promise<ShapeResult | 'converge'> {
    const model = this.model;
    if (changes.size === 0) return { shaped: this.shapedCount, lines: 0, rebuilt: false };
    if (!model || model.iface !== iface) return 'converge';
    if (!model.installed || this.leaf === null) {
      // Nothing installed while nobody is shaped: unlimited peers cost nothing, a first speed builds it.
      for (const rate of changes.values()) if (rate !== null) return 'converge';
      return { shaped: 0, lines: 0, rebuilt: false };
    }
    const lines: string[] = [];
    try {
      for (const dir of DIRECTIONS) {
        const dev = dir === 'down' ? iface : model.ifb;
        const plan = model.dirs[dir].plan(dev, dir, changes, this.leaf);
        if (plan.collisions.length > 0)
          this.log.warn('direcciones sin limitar: su filtro coincide con el de otra', {
            first: plan.collisions[0],
          });
        lines.push(...plan.lines);
      }
      await this.batch(lines);
    } catch (err) {
      this.model = null;
      throw err;
    }
    return { shaped: this.shapedCount, lines: lines.length, rebuilt: false };
  }

  /** Removes everything of ours from the interface and the ifb device (no error when already gone). */
  async remove(iface: string): Promise<void> {
    this.model = null;
    await this.teardown(iface, ifbName(iface), true, true);
  }

  private async teardown(iface: string, ifb: string, root: boolean, ingress: boolean): Promise<void> {
    const quiet = (file: string, args: string[]) => this.runner.run(file, args).catch(() => undefined);
    if (root) await quiet('tc', ['qdisc', 'del', 'dev', iface, 'root']);
    if (ingress) await quiet('tc', ['qdisc', 'del', 'dev', iface, 'ingress']);
    await quiet('ip', ['link', 'del', ifb]);
    this.log.info('velocidades retiradas: ningún peer las limita', {
      interface: iface,
    });
  }

  private async qdiscs(dev: string): Promise<TcQdisc[]> {
    const { stdout } = await this.runner.run('tc', ['-j', 'qdisc', 'show', 'dev', dev]);
    return JSON.parse(stdout || '[]') as TcQdisc[];
  }

  private async readDirection(dev: string, dir: Direction, known?: TcQdisc[]): Promise<LiveDirection> {
    const qdiscs = known ?? (await this.qdiscs(dev));
    const root = qdiscs.find((q) => q.root);
    if (root?.kind !== 'htb') return parseDirection(dir, qdiscs, '', []);
    const classes = await this.runner.run('tc', ['class', 'show', 'dev', dev]);
    const filters = await this.runner.run('tc', ['-j', 'filter', 'show', 'dev', dev, 'parent', '1:']);
    return parseDirection(dir, qdiscs, classes.stdout, JSON.parse(filters.stdout || '[]') as TcFilter[]);
  }

  private async redirecting(iface: string, ifb: string, hasIngress: boolean): Promise<boolean> {
    if (!hasIngress) return false;
    const { stdout } = await this.runner.run('tc', ['-j', 'filter', 'show', 'dev', iface, 'parent', 'ffff:']);
    return ingressRedirects(
      [{ kind: 'ingress', handle: 'ffff:' }],
      JSON.parse(stdout || '[]') as TcFilter[],
      ifb,
    );
  }

  private async ensureIfb(ifb: string): Promise<void> {
    const shown = await this.runner.run('ip', ['-j', 'link', 'show', 'dev', ifb]).catch(() => null);
    const link = shown ? ((JSON.parse(shown.stdout || '[]') as { flags?: string[] }[])[0] ?? null) : null;
    if (!link) await this.runner.run('ip', ['link', 'add', ifb, 'type', 'ifb']);
    if (!link?.flags?.includes('UP')) await this.runner.run('ip', ['link', 'set', ifb, 'up']);
  }

  /**
   * The leaf queue: fq_codel where the kernel has it (Debian's does), else bfifo (model.ts leafArgs). Known from the
   * leaves already there, else probed once on the ifb device before its tree is built, or on a
   * throwaway class when the tree is there without leaves.
   */
  private async leafKind(ifb: string, live: Record<Direction, LiveDirection>): Promise<LeafKind> {
    if (this.leaf) return this.leaf;
    const tryRun = (args: string[]) =>
      this.runner.run('tc', args).then(
        () => true,
        () => false,
      );
    if (!live.up.skeleton) {
      this.leaf = (await tryRun([
        'qdisc',
        'replace',
        'dev',
        ifb,
        'root',
        'handle',
        '9:',
        'fq_codel',
        'flows',
        '32',
      ]))
        ? 'fq_codel'
        : 'bfifo';
    } else {
      const probe = ['dev', ifb, 'parent', '1:', 'classid', '1:ffff'];
      await tryRun(['class', 'add', ...probe, 'htb', 'rate', '1mbit']);
      this.leaf = (await tryRun([
        'qdisc',
        'add',
        'dev',
        ifb,
        'parent',
        '1:ffff',
        'handle',
        'ffff:',
        'fq_codel',
      ]))
        ? 'fq_codel'
        : 'bfifo';
      await tryRun(['class', 'del', 'dev', ifb, 'parent', '1:', 'classid', '1:ffff']);
    }
    if (this.leaf === 'bfifo')
      this.log.warn('el núcleo no tiene fq_codel: las colas de cada peer serán bfifo');
    return this.leaf;
  }

  private async batch(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    await this.runner.run('tc', ['-batch', '-'], {
      input: `${lines.join('\n')}\n`,
      timeoutMs: 300_000,
    });
  }
}
