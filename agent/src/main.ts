/**
 * `npm run agent -- --url <control plane> --token <agent token>`: the node agent's entry point.
 * See README.md for installation and the systemd unit.
 *
 * SIGTERM/SIGINT close the control-plane connection and exit, leaving the WireGuard interface (and
 * its wireguard-go daemon) up so customers' tunnels keep working across agent restarts; the next
 * agent adopts the interface and reconciles it. `--down` removes the interface and its firewall.
 */
import { Agent } from './agent.ts';
import { ForeignLinkError, removeInterface } from './backend.ts';
import { ConfigError, USAGE, parseCli } from './config.ts';
import { createRunner } from './exec.ts';
import { removeFirewall } from './firewall.ts';
import { createLogger, errorMessage } from './log.ts';

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
    log.info('interfaz y tabla de nftables retiradas', { interface: cmd.interfaceName });
    return 0;
  }

  let code = 0;
  let finish = () => {};
  const agent = new Agent({
    ...cmd.config,
    log,
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
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
