/**
 * What the reconciler needs from WireGuard: read the device, apply one transaction. Two
 * implementations: the UAPI socket (wireguard-go, src/uapi.ts) and the `wg` tool (kernel module,
 * src/wgtool.ts), which speaks netlink for us.
 */
import type {
  PeerCountersVisitor,
  UapiDeviceHeader,
  UapiDeviceState,
  UapiPeerState,
  UapiSetRequest,
} from './uapi.ts';

export interface WgDriver {
  get(): Promise<UapiDeviceState>;
  /** The device, each peer handed to `onPeer` as it is read (streamed where the driver can). */
  scan(onPeer: (peer: UapiPeerState) => void): Promise<UapiDeviceHeader>;
  /** Every peer's counters, for the stats pass (streamed where the driver can). */
  readStats(visit: PeerCountersVisitor): Promise<void>;
  set(req: UapiSetRequest): Promise<void>;
  close(): void;
}
