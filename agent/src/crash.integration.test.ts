/**
 * The compiled agent killed with SIGKILL in the middle of writing a large snapshot's peers to
 * wireguard-go (20,000 peers in one UAPI set request, on real wireguard-go, in network namespaces
 * made here), then started again: the dead one left a partial peer list on the interface; the new
 * process adopts it and converges to exactly the desired peers, then acks the revision. Skipped when not root or without wireguard-go / wg / nft / ip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentPeer, ServerSnapshot } from '@vpn/contracts/agent';
import { startFakeControlPlane, type FakeControlPlane } from './testing/fakeControlPlane.ts';
import { genKeyPair, randomKey } from './testing/keys.ts';
import { TestNet, sh, uniqueName, wireguardSkipReason } from './testing/netns.ts';

const skip = wireguardSkipReason();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PEERS = 20_000;

/** 10.64.0.0/10 from .2 on: one /32 per peer. */
const address = (n: number) => `10.${64 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}/32`;

const peersOn = (iface: string): string[] => {
  const r = spawnSync('wg', ['show', iface, 'peers'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean) : [];
};

describe.skipIf(skip !== null)(`agent killed mid-apply${skip ? ` — omitido: ${skip}` : ''}`, () => {
  const net = new TestNet();
  const stateDir = mkdtempSync(join(tmpdir(), 'vpn-agent-crash-'));
  const agents: ChildProcess[] = [];
  let cp: FakeControlPlane | undefined;
  let iface = '';
  afterAll(async () => {
    for (const a of agents) if (a.exitCode === null && a.signalCode === null) a.kill('SIGKILL');
    // The daemon the agents left running (the interface outlives them by design).
    const daemons = iface
      ? spawnSync('pgrep', ['-f', `wireguard-go -f ${iface}`], { encoding: 'utf8' })
          .stdout.split('\n')
          .filter(Boolean)
          .map(Number)
      : [];
    await cp?.close();
    await net.cleanup(daemons);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it(
    'a new agent adopts the half-applied interface and converges to exactly the desired peers',
    { timeout: 300_000 },
    async () => {
      expect(
        spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale', 'agent']).status,
      ).toBe(0);
      const srv = net.addNamespace('vcsh');
      const inet = net.addNamespace('vcin');
      const uplink = net.link(srv, '192.0.2.2/24', inet, '192.0.2.1/24').ifA;
      iface = net.track(uniqueName('wgk'));
      const server = genKeyPair();
      const desired: AgentPeer[] = Array.from({ length: PEERS }, (_, i) => ({
        public_key: genKeyPair().publicKey,
        preshared_key: randomKey(),
        allowed_ips: [address(i + 2)],
      }));
      const snapshot: ServerSnapshot = {
        type: 'snapshot',
        revision: 7,
        interface: {
          name: iface,
          private_key: server.privateKey,
          listen_port: 51820,
          address: '10.64.0.1/10',
          mtu: 1380,
          nat: true,
        },
        peers: desired,
      };
      const token = randomKey();
      cp = await startFakeControlPlane({
        token,
        onConnect: (send) => {
          send({ type: 'welcome', protocol: 1, server_id: 1, stats_interval_ms: 60_000 });
          send(snapshot);
        },
      });
      const start = () => {
        const child = spawn(
          process.execPath,
          [
            join(ROOT, 'agent/dist/main.js'),
            '--url',
            cp!.url,
            '--netns',
            srv,
            '--uplink',
            uplink,
            '--state-dir',
            stateDir,
            '--log-level',
            'error',
          ],
          { stdio: 'ignore', env: { ...process.env, AGENT_TOKEN: token } },
        );
        agents.push(child);
        return child;
      };

      // Killed in the middle of writing the peers to wireguard-go: the 20,000 peers go in one UAPI
      // set request of ~4.5 MB, which wireguard-go reads and applies line by line as the agent
      // writes it (its socket backs the writer up). The agent process's written bytes
      // (/proc/PID/io wchar: sockets included; before the set it writes a few kB) tell how far the
      // request got: the kill lands once a quarter of it is written, well before the end.
      const first = start();
      const written = () => {
        try {
          return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${first.pid}/io`, 'utf8'))?.[1] ?? 0);
        } catch {
          return 0;
        }
      };
      const requestBytes = desired.length * 220;
      for (let i = 0; i < 60_000 && written() < requestBytes / 4; i++) {
        if (first.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 2));
      }
      const writtenAtKill = written();
      first.kill('SIGKILL');
      await new Promise((r) =>
        first.exitCode !== null || first.signalCode ? r(null) : first.once('exit', r),
      );
      expect(writtenAtKill).toBeGreaterThanOrEqual(requestBytes / 4);
      // Half a peer list for real: some peers made it to the interface, not all, and no ack.
      const left = peersOn(iface).length;
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(PEERS);
      expect(cp.received.some((r) => r.message.type === 'ack')).toBe(false);

      // A new process converges: exactly the desired peers, then the ack.
      const from = cp.received.length;
      start();
      const startedAt = Date.now();
      await cp.waitFor((m) => m.type === 'ack' && m.revision === 7, { from, timeoutMs: 240_000 });
      const seconds = (Date.now() - startedAt) / 1000;
      const live = new Set(peersOn(iface));
      expect(live.size).toBe(PEERS);
      expect(desired.every((p) => live.has(p.public_key))).toBe(true);
      console.log(
        `agente matado a mitad de aplicar: ${left} de ${PEERS} peers en la interfaz; el nuevo proceso convergió en ${seconds.toFixed(1)} s`,
      );
      expect(sh('ip', ['-n', srv, '-o', 'addr', 'show', 'dev', iface])).toContain('10.64.0.1/10');
    },
  );
});
