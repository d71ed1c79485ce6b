/**
 * Command line and environment of the agent. Flags win over environment variables. Errors are
 * Spanish sentences an operator can act on, like the control plane's configuration errors.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { agentWsUrl } from './connection.ts';
import { LOG_LEVELS, type LogLevel } from './log.ts';
import type { BackendPreference } from './backend.ts';

export interface AgentConfig {
  url: string;
  token: string;
  interfaceName?: string;
  uplink?: string;
  netns?: string;
  stateDir?: string;
  logLevel: LogLevel;
  backend: BackendPreference;
  wireguardGo: string;
  /** Periodic drift repair, ms (0 = off). */
  repairIntervalMs: number;
  /** Longest wait between two tries to reach the control plane, ms (the back-off's ceiling). */
  reconnectMaxMs?: number;
  firewall: boolean;
  /** TCP ports of this host that tunnel clients may open (the panel on a one-box install). */
  hostTcpPorts?: number[];
  /** Delete a non-WireGuard link that has the interface's name (default: refuse and stop). */
  replaceForeignLink?: boolean;
  /** File that holds the running agent's pid (started without systemd: follows a re-exec). */
  pidFile?: string;
}

export type CliCommand =
  | { kind: 'run'; config: AgentConfig }
  | { kind: 'down'; interfaceName: string; netns?: string; logLevel: LogLevel; replaceForeignLink: boolean }
  | { kind: 'help' }
  | { kind: 'version' };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const USAGE = `Uso: npm run agent -- --url <URL del plano de control> --token <token del agente> [opciones]

  --url URL               URL base del plano de control (https; http solo en 127.0.0.1/localhost)
                                                                            [AGENT_URL]
  --allow-insecure-http   aceptar una URL http:// fuera de este equipo (sin cifrar: el canal lleva
                          la clave privada del servidor; solo para redes de prueba) [AGENT_ALLOW_HTTP=true]
  --token TOKEN           token del agente (mejor por entorno o archivo)    [AGENT_TOKEN]
  --token-file RUTA       archivo con el token                              [AGENT_TOKEN_FILE]
  --interface NOMBRE      nombre de la interfaz WireGuard (por defecto, el que envía el plano de control)
                                                                            [AGENT_INTERFACE]
  --uplink NOMBRE         interfaz de salida a internet (por defecto, la de la ruta por defecto)
                                                                            [AGENT_UPLINK]
  --netns NOMBRE          gestionar la interfaz dentro de ese espacio de red [AGENT_NETNS]
  --state-dir RUTA        directorio de estado (última revisión aplicada)   [AGENT_STATE_DIR]
  --log-level NIVEL       error | warn | info | debug (por defecto info)     [AGENT_LOG_LEVEL]
  --backend TIPO          auto | kernel | wireguard-go (por defecto auto)    [AGENT_BACKEND]
  --wireguard-go RUTA     binario de wireguard-go (por defecto wireguard-go) [AGENT_WIREGUARD_GO]
  --repair-interval SEG   cada cuánto se relee la interfaz para corregir derivas (por defecto 300; 0 = nunca)
                                                                            [AGENT_REPAIR_INTERVAL]
  --reconnect-max SEG     espera máxima entre dos intentos de conectar con el plano de control
                          (por defecto 30; cada intento fallido dobla la espera desde 1 s hasta ella)
                                                                            [AGENT_RECONNECT_MAX]
  --no-firewall           no gestionar la tabla de nftables                 [AGENT_FIREWALL=false]
  --host-tcp-ports LISTA  puertos TCP de este equipo que los clientes del túnel pueden abrir, p. ej. 443
                          (por defecto ninguno: desde el túnel solo se responde al ping)
                                                                            [AGENT_HOST_TCP_PORTS]
  --replace-foreign-link  borrar una interfaz con el mismo nombre que no sea de WireGuard
                          (por defecto el agente se niega y termina con código 3)
                                                                            [AGENT_REPLACE_FOREIGN_LINK=true]
  --pid-file RUTA         escribir ahí el pid del agente (sin systemd; sigue al proceso tras una
                          actualización)                                    [AGENT_PID_FILE]
  --down                  retirar la interfaz y su tabla de nftables y salir (requiere --interface)
  --version               mostrar la versión y salir
  --help                  esta ayuda

Al recibir SIGTERM el agente cierra la conexión y deja la interfaz funcionando.
Códigos de salida: 2 argumentos no válidos, 3 una interfaz ajena ocupa el nombre.`;

/** Hosts a plain-http URL may name without --allow-insecure-http: this machine (one box, tests). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

const IFACE = /^[A-Za-z0-9_=+.-]{1,15}$/;
const NETNS = /^[A-Za-z0-9_.-]{1,64}$/;

/** Parses argv (without node and script) and env into a command, or throws ConfigError. */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliCommand {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        interface: { type: 'string' },
        uplink: { type: 'string' },
        netns: { type: 'string' },
        'state-dir': { type: 'string' },
        'log-level': { type: 'string' },
        backend: { type: 'string' },
        'wireguard-go': { type: 'string' },
        'repair-interval': { type: 'string' },
        'reconnect-max': { type: 'string' },
        'no-firewall': { type: 'boolean' },
        'host-tcp-ports': { type: 'string' },
        'allow-insecure-http': { type: 'boolean' },
        'replace-foreign-link': { type: 'boolean' },
        'pid-file': { type: 'string' },
        down: { type: 'boolean' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const unknown = /Unknown option '([^']+)'/.exec(msg);
    const missing = /Option '([^']+?)(?: <value>)?' argument missing/.exec(msg);
    if (unknown) throw new ConfigError(`opción desconocida: ${unknown[1]}`);
    if (missing) throw new ConfigError(`falta el valor de ${missing[1]}`);
    throw new ConfigError(`argumentos no válidos: ${msg}`);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const pick = (flag: string | undefined, name: string): string | undefined => {
    const v = flag ?? env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  const logLevel = (pick(values['log-level'], 'AGENT_LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`--log-level debe ser uno de: ${LOG_LEVELS.join(', ')} (recibido "${logLevel}")`);

  const interfaceName = pick(values.interface, 'AGENT_INTERFACE');
  if (interfaceName !== undefined && !IFACE.test(interfaceName))
    throw new ConfigError(`--interface no válida: "${interfaceName}" (1 a 15 letras, dígitos o _=+.-)`);
  const uplink = pick(values.uplink, 'AGENT_UPLINK');
  if (uplink !== undefined && !IFACE.test(uplink)) throw new ConfigError(`--uplink no válida: "${uplink}"`);
  const netns = pick(values.netns, 'AGENT_NETNS');
  if (netns !== undefined && !NETNS.test(netns)) throw new ConfigError(`--netns no válido: "${netns}"`);

  const flag = (value: boolean | undefined, name: string): boolean => {
    if (value) return true;
    const v = pick(undefined, name)?.toLowerCase();
    if (v === undefined || ['false', '0', 'no', 'off'].includes(v)) return false;
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    throw new ConfigError(`${name} debe ser true o false (recibido "${v}")`);
  };
  const replaceForeignLink = flag(values['replace-foreign-link'], 'AGENT_REPLACE_FOREIGN_LINK');

  if (values.down) {
    if (!interfaceName) throw new ConfigError('--down necesita --interface');
    return { kind: 'down', interfaceName, netns, logLevel, replaceForeignLink };
  }

  const url = pick(values.url, 'AGENT_URL');
  if (!url) throw new ConfigError('falta la URL del plano de control: use --url o AGENT_URL');
  let wsUrl: URL;
  try {
    wsUrl = new URL(agentWsUrl(url));
  } catch (err) {
    throw new ConfigError(`--url: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The channel carries the server's private key and the agent token: cleartext only on this machine.
  if (
    wsUrl.protocol === 'ws:' &&
    !isLoopbackHost(wsUrl.hostname) &&
    !flag(values['allow-insecure-http'], 'AGENT_ALLOW_HTTP')
  )
    throw new ConfigError(
      `--url: ${url} no está cifrada (http://) y el canal lleva la clave privada del servidor y el token ` +
        'del agente. Use https://; http:// solo se acepta hacia 127.0.0.1 o localhost, o con ' +
        '--allow-insecure-http (AGENT_ALLOW_HTTP=true) en una red de prueba',
    );

  let token = pick(values.token, 'AGENT_TOKEN');
  const tokenFile = pick(values['token-file'], 'AGENT_TOKEN_FILE');
  if (!token && tokenFile) {
    try {
      token = readFileSync(tokenFile, 'utf8').trim();
    } catch {
      throw new ConfigError(`no se puede leer el archivo del token: ${tokenFile}`);
    }
  }
  if (!token) throw new ConfigError('falta el token del agente: use --token, AGENT_TOKEN o AGENT_TOKEN_FILE');
  if (/\s/.test(token)) throw new ConfigError('el token del agente no puede contener espacios');

  const backend = (pick(values.backend, 'AGENT_BACKEND') ?? 'auto') as BackendPreference;
  if (!['auto', 'kernel', 'wireguard-go'].includes(backend))
    throw new ConfigError(`--backend debe ser auto, kernel o wireguard-go (recibido "${backend}")`);

  const repairText = pick(values['repair-interval'], 'AGENT_REPAIR_INTERVAL') ?? '300';
  const repair = Number(repairText);
  if (!/^\d+$/.test(repairText) || (repair !== 0 && repair < 10))
    throw new ConfigError(
      `--repair-interval debe ser 0 o un número entero de segundos >= 10 (recibido "${repairText}")`,
    );

  const reconnectText = pick(values['reconnect-max'], 'AGENT_RECONNECT_MAX') ?? '30';
  const reconnect = Number(reconnectText);
  if (!/^\d+$/.test(reconnectText) || reconnect < 1 || reconnect > 3600)
    throw new ConfigError(
      `--reconnect-max debe ser un número entero de segundos entre 1 y 3600 (recibido "${reconnectText}")`,
    );

  const firewallEnv = pick(undefined, 'AGENT_FIREWALL');
  const firewall =
    !values['no-firewall'] && !(firewallEnv && ['false', '0', 'no', 'off'].includes(firewallEnv));

  const portsText = pick(values['host-tcp-ports'], 'AGENT_HOST_TCP_PORTS');
  const hostTcpPorts: number[] = [];
  for (const part of portsText ? portsText.split(',') : []) {
    const port = Number(part.trim());
    if (!/^\d+$/.test(part.trim()) || port < 1 || port > 65535)
      throw new ConfigError(
        `--host-tcp-ports debe ser una lista de puertos entre 1 y 65535 separados por comas (recibido "${portsText}")`,
      );
    hostTcpPorts.push(port);
  }

  return {
    kind: 'run',
    config: {
      url,
      token,
      interfaceName,
      uplink,
      netns,
      stateDir: pick(values['state-dir'], 'AGENT_STATE_DIR'),
      logLevel,
      backend,
      wireguardGo: pick(values['wireguard-go'], 'AGENT_WIREGUARD_GO') ?? 'wireguard-go',
      repairIntervalMs: repair * 1000,
      reconnectMaxMs: reconnect * 1000,
      firewall,
      hostTcpPorts,
      replaceForeignLink,
      pidFile: pick(values['pid-file'], 'AGENT_PID_FILE'),
    },
  };
}
