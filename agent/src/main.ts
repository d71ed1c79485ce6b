/**
 * `npm run agent -- --url <control plane> --token <agent token>`: the node agent's entry point.
 * See README.md for installation and the systemd unit.
 *
 * SIGTERM/SIGINT close the control-plane connection and exit, leaving the WireGuard interface (and
 * its wireguard-go daemon) up so customers' tunnels keep working across agent restarts; the next
 * agent adopts the interface and reconciles it. `--down` removes the interface and its firewall.
 */
import { Agent } from './agent.ts';
import { ConfigError, USAGE, parseCli } from './config.ts';
import { createRunner } from './exec.ts';
import { removeFirewall } from './firewall.ts';
import { createLogger, errorMessage } from './log.ts';

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
    await runner.run('ip', ['link', 'del', cmd.interfaceName]).catch((err: unknown) => {
      log.warn('no se pudo borrar la interfaz', { error: errorMessage(err) });
    });
    await removeFirewall(runner, cmd.interfaceName);
    log.info('interfaz y tabla de nftables retiradas', { interface: cmd.interfaceName });
    return 0;
  }

  const agent = new Agent({ ...cmd.config, log });
  agent.start();
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info('señal recibida: se cierra la conexión y se deja la interfaz funcionando', { signal });
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await agent.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
