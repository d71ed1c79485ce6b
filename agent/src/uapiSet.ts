/**
 * Writing UAPI `set=1` transactions (https://www.wireguard.com/xplatform/): checked whole, then
 * produced in ~64 KiB parts so a 50,000-peer transaction (~12 MB) is never one string. Keys are
 * base64 for callers and hex on the wire.
 */
import { canonicalEndpoint } from './endpoint.ts';
import { ZERO_KEY_HEX, isBase64Key, keyToHex } from './keys.ts';

/** One peer inside a `set` transaction. */
export type UapiPeerOp =
  | { publicKey: string; remove: true }
  | {
      publicKey: string;
      remove?: false;
      presharedKey?: string | null;
      /** When true, the peer's allowed IPs become exactly `allowedIps`. */
      replaceAllowedIps?: boolean;
      allowedIps?: readonly string[];
      /** `address:port` or `[v6]:port` (a host name must be resolved first). */
      endpoint?: string;
      /** Seconds; 0 = off. */
      persistentKeepalive?: number;
    };

/** A `set` transaction. There is deliberately no `replace_peers`: it would drop every session. */
export interface UapiSetRequest {
  privateKey?: string;
  listenPort?: number;
  peers?: readonly UapiPeerOp[];
}

/** An endpoint as UAPI takes it (`address:port`, canonical), or an error: never raw text. */
export function checkEndpoint(endpoint: string): string {
  const canonical = canonicalEndpoint(endpoint);
  if (canonical === null) throw new Error(`endpoint no válido: ${JSON.stringify(endpoint.slice(0, 80))}`);
  return canonical;
}

export function checkKeepalive(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 65535)
    throw new Error(`keepalive no válido: ${seconds}`);
  return seconds;
}

/** The lines of one peer inside a `set` transaction (each ending in a newline). */
function peerLines(p: UapiPeerOp): string {
  let text = `public_key=${keyToHex(p.publicKey)}\n`;
  if (p.remove === true) return text + 'remove=true\n';
  if (p.presharedKey !== undefined)
    text += `preshared_key=${p.presharedKey === null ? ZERO_KEY_HEX : keyToHex(p.presharedKey)}\n`;
  if (p.endpoint !== undefined) text += `endpoint=${checkEndpoint(p.endpoint)}\n`;
  if (p.persistentKeepalive !== undefined)
    text += `persistent_keepalive_interval=${checkKeepalive(p.persistentKeepalive)}\n`;
  if (p.replaceAllowedIps) text += 'replace_allowed_ips=true\n';
  for (const ip of p.allowedIps ?? []) text += `allowed_ip=${ip}\n`;
  return text;
}

/**
 * Throws on anything `peerLines` would refuse, without writing text: a transaction is streamed to
 * the daemon part by part, and a refusal half-way would leave half of it applied.
 */
function checkSet(req: UapiSetRequest): void {
  if (req.privateKey !== undefined) keyToHex(req.privateKey);
  for (const p of req.peers ?? []) {
    if (!isBase64Key(p.publicKey)) keyToHex(p.publicKey);
    if (p.remove === true) continue;
    if (p.presharedKey && !isBase64Key(p.presharedKey)) keyToHex(p.presharedKey);
    if (p.endpoint !== undefined) checkEndpoint(p.endpoint);
    if (p.persistentKeepalive !== undefined) checkKeepalive(p.persistentKeepalive);
    for (const ip of p.allowedIps ?? [])
      // A newline inside a value would inject UAPI commands; CIDRs never contain one.
      if (/[\s=]/.test(ip)) throw new Error(`allowed IP no válida: ${JSON.stringify(ip)}`);
  }
}

/** Text handed to the socket at a time while streaming a `set` (a 50,000-peer one is ~12 MB). */
const SET_PART_CHARS = 64 * 1024;

/**
 * A whole `set` request (`set=1`, its lines, the closing empty line) in parts of about 64 KiB, after
 * checking all of it (throws before yielding anything). Keys are converted to hex. Iterable more
 * than once (a request cut by a daemon restart is sent again).
 */
export function setRequestParts(req: UapiSetRequest): Iterable<string> {
  checkSet(req);
  return { [Symbol.iterator]: () => uncheckedParts(req) };
}

function* uncheckedParts(req: UapiSetRequest): Generator<string> {
  let part = 'set=1\n';
  if (req.privateKey !== undefined) part += `private_key=${keyToHex(req.privateKey)}\n`;
  if (req.listenPort !== undefined) part += `listen_port=${req.listenPort}\n`;
  for (const p of req.peers ?? []) {
    part += peerLines(p);
    if (part.length >= SET_PART_CHARS) {
      yield part;
      part = '';
    }
  }
  yield part + '\n';
}

/** Builds the full request text of a `set` transaction. */
export function setRequestText(req: UapiSetRequest): string {
  let text = '';
  for (const part of setRequestParts(req)) text += part;
  return text;
}

/** Serialises a `set` transaction (without the `set=1` header line and the closing empty line). */
export function serializeSet(req: UapiSetRequest): string {
  return setRequestText(req).slice('set=1\n'.length, -1);
}
