export declare const UAPI_SOCKET_DIR = '/var/run/wireguard';
/** The UAPI socket of an interface. Global to the machine, whatever network namespace the TUN is in. */
export declare function uapiSocketPath(iface: string): string;
/** One peer as `get` reports it (keys in base64). */
export interface UapiPeerState {
  publicKey: string;
  /** null when the peer has no preshared key (UAPI reports all zeros). */
  presharedKey: string | null;
  allowedIps: string[];
  endpoint: string | null;
  /** Unix seconds; 0 = never. */
  lastHandshakeSec: number;
  rxBytes: number;
  txBytes: number;
  persistentKeepalive: number;
}
/** The device as `get` reports it. */
export interface UapiDeviceState {
  privateKey: string | null;
  listenPort: number;
  fwmark: number;
  peers: UapiPeerState[];
}
/** One peer inside a `set` transaction. */
export type UapiPeerOp =
  | {
      publicKey: string;
      remove: true;
    }
  | {
      publicKey: string;
      remove?: false;
      presharedKey?: string | null;
      /** When true, the peer's allowed IPs become exactly `allowedIps`. */
      replaceAllowedIps?: boolean;
      allowedIps?: readonly string[];
      endpoint?: string;
      persistentKeepalive?: number;
    };
/** A `set` transaction. There is deliberately no `replace_peers`: it would drop every session. */
export interface UapiSetRequest {
  privateKey?: string;
  listenPort?: number;
  peers?: readonly UapiPeerOp[];
}
/** UAPI answered with a non-zero errno (e.g. 22 = EINVAL for a malformed line). */
export declare class UapiError extends Error {
  readonly errno: number;
  constructor(errno: number);
}
/** The socket is missing or nobody listens: the WireGuard daemon is not running. */
export declare class UapiUnavailableError extends Error {
  readonly socketPath: string;
  readonly code: string | undefined;
  constructor(socketPath: string, code: string | undefined);
}
export declare class UapiTimeoutError extends Error {
  constructor(ms: number);
}
/** Serialises a `set` transaction (without the `set=1` header line). Keys are converted to hex. */
export declare function serializeSet(req: UapiSetRequest): string;
/** Builds the full request text of a `set` transaction. */
export declare function setRequestText(req: UapiSetRequest): string;
/**
 * Parses the answer to `get=1` (including its `errno=` line). Written as one pass over the text
 * without splitting it: at 50,000 peers the answer is ~15 MB and ~500,000 lines.
 */
export declare function parseGet(text: string): UapiDeviceState;
export interface UapiClientOptions {
  /** Keep one connection open and reuse it (default true). */
  keepAlive?: boolean;
  /** Give up on one request after this long (default 120 s: a 200,000-peer set takes a while). */
  timeoutMs?: number;
}
/**
 * A UAPI client for one interface. Requests are queued and run one at a time, in order: the order
 * of `set`s is the order of the desired-state changes.
 */
export declare class UapiClient {
  readonly socketPath: string;
  private socket;
  private tail;
  private readonly keepAlive;
  private readonly timeoutMs;
  constructor(socketPath: string, options?: UapiClientOptions);
  /** Reads the whole device (costly with many peers: ~150 ms at 50,000 in wireguard-go). */
  get(): Promise<UapiDeviceState>;
  /** Applies one transaction; resolves when the daemon answered errno=0. */
  set(req: UapiSetRequest): Promise<void>;
  /** Sends a raw request and returns the raw answer (ending in `errno=N\n\n`). */
  request(text: string): Promise<string>;
  /** Closes the kept connection, if any. Queued requests still run (on a new connection). */
  close(): void;
  private openSocket;
  private exchange;
  private keep;
  private roundTrip;
}
