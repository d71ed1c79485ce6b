import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { servers, settings } from '../../db/schema.ts';
import { createServer, rotateAgentToken } from './servers.ts';

const LOCAL_SERVER_KEY = 'local_server_id';
/** Compiled (`npm start`: server/dist) → the compiled agent under node; from sources (dev, tests) → tsx. */
const COMPILED = import.meta.url.endsWith('.js');
const AGENT_MAIN = fileURLToPath(
  new URL(COMPILED ? '../../../../agent/dist/main.js' : '../../../../agent/src/main.ts', import.meta.url),
);
const RUNNER = COMPILED
  ? process.execPath
  : fileURLToPath(new URL('../../../../node_modules/.bin/tsx', import.meta.url));

/** Why this machine cannot run a WireGuard interface, or null when it can. */
export function localAgentBlocker(): string | null {
  if (process.getuid?.() !== 0) return 'hace falta ejecutar como root';
  const has = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
  if (!has('ip')) return 'falta iproute2';
  if (!has('wireguard-go') && !existsSync('/sys/module/wireguard'))
    return 'no hay módulo WireGuard del kernel ni wireguard-go';
  if (!has('nft')) return 'falta nftables';
  return null;
}

/**
 * One box: `LOCAL_AGENT=true npm start` also runs an agent for a server on this machine. The
 * server row is created once (remembered in settings); its token is rotated at every start and
 * handed to the agent through the environment, never the command line. The agent is restarted
 * if it dies; on shutdown it gets SIGTERM and leaves the interface up.
 */
export async function startLocalAgent(deps: {
  db: Db;
  config: Config;
  encryptionKey: Buffer;
  log: FastifyBaseLogger;
}): Promise<() => Promise<void>> {
  const { db, config, log } = deps;
  const blocker = localAgentBlocker();
  if (blocker) {
    log.warn(`LOCAL_AGENT: no se inicia el agente local (${blocker})`);
    return async () => {};
  }
  const [remembered] = await db.select().from(settings).where(eq(settings.key, LOCAL_SERVER_KEY));
  let serverId = typeof remembered?.value === 'number' ? remembered.value : null;
  if (
    serverId !== null &&
    (await db.select({ id: servers.id }).from(servers).where(eq(servers.id, serverId))).length === 0
  )
    serverId = null;
  let token: string;
  if (serverId === null) {
    const host =
      config.localAgent.endpoint ??
      `${config.publicUrl ? new URL(config.publicUrl).hostname : hostname()}:51820`;
    const created = await createServer(db, deps.encryptionKey, {
      name: 'Local',
      endpoint: host,
      ubication: 'Este servidor',
      allow_partys: true,
      interface_name: config.localAgent.interfaceName,
    });
    serverId = created.server.id;
    token = created.agentToken;
    await db
      .insert(settings)
      .values({ key: LOCAL_SERVER_KEY, value: serverId })
      .onConflictDoUpdate({ target: settings.key, set: { value: serverId } });
  } else {
    token = await rotateAgentToken(db, serverId);
  }

  const url = `http://127.0.0.1:${config.port}`;
  // Compiled, the agent runs as agent/deploy/vpn-agent.service runs it (its memory settings).
  const args = [
    ...(COMPILED ? ['--max-semi-space-size=1'] : []),
    AGENT_MAIN,
    '--url',
    url,
    '--state-dir',
    `${config.dataDir}/agent`,
  ];
  if (config.localAgent.uplink) args.push('--uplink', config.localAgent.uplink);
  // The agent's firewall shuts this host to tunnel clients, but full-tunnel customers reach the
  // panel on this very host through their tunnel: open its ports (this one and PUBLIC_URL's) to them.
  const panelPorts = new Set([config.port]);
  if (config.publicUrl) {
    const pub = new URL(config.publicUrl);
    panelPorts.add(Number(pub.port || (pub.protocol === 'https:' ? 443 : 80)));
  }
  args.push('--host-tcp-ports', [...panelPorts].join(','));
  let child: ChildProcess | undefined;
  let stopping = false;
  let delay = 1000;
  const launch = () => {
    const started = Date.now();
    child = spawn(RUNNER, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { MALLOC_MMAP_THRESHOLD_: '131072', ...process.env, AGENT_TOKEN: token },
    });
    child.on('exit', (code, signal) => {
      if (stopping) return;
      // Quick deaths back off (up to a minute); a long healthy run resets the delay.
      delay = Date.now() - started > 60_000 ? 1000 : Math.min(delay * 2, 60_000);
      log.warn({ code, signal, retry_ms: delay }, 'el agente local terminó; se reinicia');
      setTimeout(() => !stopping && launch(), delay).unref();
    });
  };
  launch();
  log.info({ serverId }, 'agente local iniciado');
  return async () => {
    stopping = true;
    const c = child;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
      setTimeout(() => c.kill('SIGKILL'), 5000).unref();
    });
  };
}
