import { ROOM_MEMBER_LIMIT } from './limits.ts';
import { z } from './zod.ts';

/** GET /api/client — the public settings every page reads first. */
export const PublicSettings = z.object({
  maintenance: z.boolean(),
  allow_registration: z.boolean(),
  allow_password_recovery: z.boolean(),
  show_landing: z.boolean(),
  allow_payments_qvapay: z.boolean(),
  allow_email: z.boolean(),
});
export type PublicSettings = z.infer<typeof PublicSettings>;

/** GET /api/client/status */
export const ServiceStatus = z.object({ maintenance: z.boolean() });
export type ServiceStatus = z.infer<typeof ServiceStatus>;

/** Runtime configuration the SPA loads from /config.json (never baked into the build). */
export const RuntimeConfig = z.object({
  company_name: z.string(),
  support_url: z.string().nullable(),
  public_url: z.string().nullable(),
  captcha: z.discriminatedUnion('provider', [
    z.object({ provider: z.literal('altcha'), challenge_url: z.string() }),
    z.object({ provider: z.literal('turnstile'), site_key: z.string() }),
  ]),
});
export type RuntimeConfig = z.infer<typeof RuntimeConfig>;

/** Settings that are not public: payments gateways, rooms. Stored as key/value rows. */
export const SiteSettings = PublicSettings.extend({
  allow_partys: z.boolean(),
  allow_payments_remesita: z.boolean(),
  /**
   * Game discovery across rooms (issue 25): broadcasts and multicast of a room member are relayed
   * to its room mates. Off: no server relays, whatever its own switch says.
   */
  allow_discovery: z.boolean(),
  /** Peers one room admits (issue 31); a full room refuses a join or an added peer. */
  room_member_limit: z.number().int().min(ROOM_MEMBER_LIMIT.min).max(ROOM_MEMBER_LIMIT.max),
});
export type SiteSettings = z.infer<typeof SiteSettings>;
