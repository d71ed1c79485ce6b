/**
 * What the reconciler needs from WireGuard: read the device, apply one transaction. Two
 * implementations: the UAPI socket (wireguard-go, src/uapi.ts) and the `wg` tool (kernel module,
 * src/wgtool.ts), which speaks netlink for us.
 */
import type { UapiDeviceState, UapiSetRequest } from './uapi.ts';

export interface WgDriver {
  get(): Promise<UapiDeviceState>;
  set(req: UapiSetRequest): Promise<void>;
  close(): void;
}
