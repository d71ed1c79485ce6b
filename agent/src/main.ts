/**
 * `npm run agent -- --url <control plane> --token <agent token>`: the node agent's entry point.
 * See README.md for installation and the systemd unit.
 *
 * SIGTERM/SIGINT close the control-plane connection and exit, leaving the WireGuard interface (and
 * its wireguard-go daemon) up so customers' tunnels keep working across agent restarts; the next
 * agent adopts the interface and reconciles it. `--down` removes the interface and its firewall.
 *
 * After a self-upgrade (the control plane's `upgrade`) the agent restarts into the new file the same
 * way: under systemd (INVOCATION_ID set) it exits and `Restart=always` starts the new file;
 * otherwise it starts the new file itself (same node, flags and environment) and exits.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from './agent.ts';
import { ForeignLinkError, removeInterface } from './backend.ts';
import { ConfigError, USAGE, parseCli } from './config.ts';
import { createRunner } from './exec.ts';
import { removeFirewall } from './firewall.ts';
import { removeRelay } from './relay.ts';
import { createLogger, errorMessage } from './log.ts';
import { AGENT_VERSION } from './version.ts';

/** Exit status when a link that is not WireGuard holds the interface's name (2: bad arguments). */
const FOREIGN_LINK_EXIT = 3;

async function main(): Promise<number> {
  let cmd;
  try {
    cmd = parseCli(process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}\n\nUse --help para ver las opciones.\n`);
      return 2;
    }
    throw err;
  }
  if (cmd.kind === 'help') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if (cmd.kind === 'version') {
    process.stdout.write(`${AGENT_VERSION}\n`);
    return 0;
  }
  const log = createLogger(cmd.kind === 'run' ? cmd.config.logLevel : cmd.logLevel);

  if (cmd.kind === 'down') {
    const runner = createRunner(cmd.netns ?? null);
    // Deleting the link also ends a wireguard-go daemon: it exits when its TUN disappears.
    try {
      await removeInterface(runner, cmd.interfaceName, cmd.replaceForeignLink);
    } catch (err) {
      if (err instanceof ForeignLinkError) {
        process.stderr.write(`error: ${err.message}\n`);
        return FOREIGN_LINK_EXIT;
      }
      log.warn('no se pudo borrar la interfaz', { error: errorMessage(err) });
    }
    await removeFirewall(runner, cmd.interfaceName);
    await removeRelay(runner, cmd.interfaceName);
    log.info('interfaz y tabla de nftables retiradas', { interface: cmd.interfaceName });
    return 0;
  }

  let code = 0;
  let finish = () => {};
  let restart = false;
  const { pidFile } = cmd.config;
  if (pidFile) writeFileSync(pidFile, `${process.pid}\n`);
  const agent = new Agent({
    ...cmd.config,
    log,
    onRestart: () => {
      restart = true;
      finish();
    },
    // A foreign link in the interface's way: retrying cannot help; stop with a code of its own so
    // systemd (RestartPreventExitStatus) and the one-box launcher do not loop.
    onFatal: (err) => {
      if (err instanceof ForeignLinkError) code = FOREIGN_LINK_EXIT;
      else code = 1;
      finish();
    },
  });
  agent.start();
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info('señal recibida: se cierra la conexión y se deja la interfaz funcionando', { signal });
      finish();
    };
    finish = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await agent.stop();
  if (restart) restartIntoNewFile(log);
  else if (pidFile) {
    // Only our own pid: a newer agent may own the file by now.
    const owner = (() => {
      try {
        return readFileSync(pidFile, 'utf8').trim();
      } catch {
        return '';
      }
    })();
    if (owner === String(process.pid)) rmSync(pidFile, { force: true });
  }
  return code;
}

/**
 * The upgrade replaced this file: start it again. Under systemd only exiting is right (a child
 * would stay in the unit while systemd starts another agent).
 */
function restartIntoNewFile(log: ReturnType<typeof createLogger>): void {
  if (process.env.INVOCATION_ID) {
    log.info('se sale para que systemd arranque el archivo nuevo');
    return;
  }
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: 'inherit',
    env: process.env,
  });
  child.unref();
  log.info('archivo nuevo arrancado', { pid: child.pid ?? 0 });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
