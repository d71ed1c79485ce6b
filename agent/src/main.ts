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
 *
 * The new file's first minute is a trial (rollback.ts): if it crashes in it, FILE.previous is put
 * back and started the same way, and the next hello tells the control plane.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from './agent.ts';
import { ForeignLinkError, removeInterface } from './backend.ts';
import { ConfigError, USAGE, parseCli } from './config.ts';
import { createRunner } from './exec.ts';
import { removeFirewall } from './firewall.ts';
import { removeRelay } from './relay/relay.ts';
import { createLogger, errorMessage } from './log.ts';
import { pendingReport, rollBack, startTrial, type TrialStart } from './rollback.ts';
import { AGENT_FILE, AGENT_VERSION } from './version.ts';

/** Exit status when a link that is not WireGuard holds the interface's name (2: bad arguments). */
const FOREIGN_LINK_EXIT = 3;

/** This run's trial after an upgrade (rollback.ts); `none` outside one. */
let trial: TrialStart = { kind: 'none' };

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

  if (AGENT_FILE) {
    try {
      trial = startTrial(AGENT_FILE, AGENT_VERSION);
    } catch (err) {
      log.warn('no se pudo leer la marca de la actualización', { error: errorMessage(err) });
    }
    // A run of this upgraded file died in its first minute: the previous file takes over.
    if (trial.kind === 'rollback') {
      const report = rollBack(AGENT_FILE, trial.reason);
      trial = { kind: 'none' };
      if (report) {
        log.error('el agente actualizado falló en su primer minuto: se vuelve al archivo anterior', {
          from: report.from,
          to: report.to,
          reason: report.reason,
        });
        restartIntoNewFile(log);
        return 1;
      }
    }
  }
  const rolledBack = AGENT_FILE ? pendingReport(AGENT_FILE) : null;
  if (rolledBack)
    log.warn('funciona otra vez el archivo anterior: la actualización falló en su primer minuto', {
      from: rolledBack.from,
      reason: rolledBack.reason,
    });

  let code = 0;
  let finish = () => {};
  let restart = false;
  const { pidFile } = cmd.config;
  if (pidFile) writeFileSync(pidFile, `${process.pid}\n`);
  const agent = new Agent({
    ...cmd.config,
    log,
    rolledBack,
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
  // Code 1: a fatal error of this file (in its trial: put back); 0 and 3 are no fault of the file.
  if (trial.kind === 'trial' && code === 1 && trial.crashed('el agente se detuvo por un error'))
    restart = true;
  else if (trial.kind === 'trial') trial.cleanExit();
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

/**
 * An error nothing caught: in the trial after an upgrade the previous file is put back and started
 * (under systemd: by Restart= after this exit); then the process ends as Node's default would.
 */
function crash(err: unknown): never {
  process.stderr.write(`error: ${err instanceof Error && err.stack ? err.stack : errorMessage(err)}\n`);
  if (trial.kind === 'trial' && trial.crashed(errorMessage(err))) {
    const log = createLogger('info');
    log.error('el agente actualizado falló en su primer minuto: se vuelve al archivo anterior', {
      error: errorMessage(err),
    });
    restartIntoNewFile(log);
  }
  process.exit(1);
}
process.on('uncaughtException', crash);

main().then((code) => process.exit(code), crash);
