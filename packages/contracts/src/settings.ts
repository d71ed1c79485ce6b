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
  /** Issue 32: the landing and /plans name the payment methods the operator enabled. */
  allow_payments_remesita: z.boolean(),
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
  /**
   * Where a customer gets the Android app (issue 32): the operator's link and the APK the panel
   * serves itself, with its size in bytes (absent: neither).
   */
  android: z
    .object({
      app_url: z.string().nullable(),
      apk: z.object({ url: z.string(), size: z.number().int() }).nullable(),
    })
    .optional(),
});
export type RuntimeConfig = z.infer<typeof RuntimeConfig>;

/** Settings that are not public: payments gateways, rooms. Stored as key/value rows. */
export const SiteSettings = PublicSettings.extend({
  allow_partys: z.boolean(),
  /**
   * Game discovery across rooms (issue 25): broadcasts and multicast of a room member are relayed
   * to its room mates. Off: no server relays, whatever its own switch says.
   */
  allow_discovery: z.boolean(),
  /** Peers one room admits (issue 31); a full room refuses a join or an added peer. */
  room_member_limit: z.number().int().min(ROOM_MEMBER_LIMIT.min).max(ROOM_MEMBER_LIMIT.max),
});
export type SiteSettings = z.infer<typeof SiteSettings>;

/**
 * A support link a customer can open from a phone in Cuba (issue 32): a web page (`https://`,
 * t.me and wa.me links included) or the Telegram and WhatsApp apps' own schemes.
 */
export const SUPPORT_URL_SCHEMES = ['https:', 'tg:', 'whatsapp:'] as const;

/** Checks a support link; returns the trimmed link, or null when it is not one the panel accepts. */
export function supportUrlOf(raw: string): string | null {
  const value = raw.trim();
  if (value.length > 500) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!(SUPPORT_URL_SCHEMES as readonly string[]).includes(url.protocol)) return null;
  if (url.protocol === 'https:' && !url.hostname.includes('.')) return null;
  return value;
}

/** Checks an https link (the Android app's download page or file). */
export function httpsUrlOf(raw: string): string | null {
  const value = raw.trim();
  if (value.length > 500) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.includes('.') ? value : null;
  } catch {
    return null;
  }
}

/**
 * The links customers are given (Ajustes → Enlaces para clientes): the support link (wins over
 * SUPPORT_URL) and where the Android app is downloaded (a page or file the operator chooses).
 */
export const CustomerLinksPatch = z
  .object({
    support_url: z.string().max(1000).nullable(),
    android_app_url: z.string().max(1000).nullable(),
  })
  .partial();
export type CustomerLinksPatch = z.infer<typeof CustomerLinksPatch>;

/** GET/PATCH /api/admin/settings/links: the links, where they come from, and what recovery can use. */
export const CustomerLinks = z.object({
  support_url: z.string().nullable(),
  /** SUPPORT_URL, used while the console sets none. */
  support_url_env: z.string().nullable(),
  android_app_url: z.string().nullable(),
  /** The APK the panel serves (ANDROID_APK_FILE), with its size; null when none is set. */
  android_apk: z.object({ url: z.string(), size: z.number().int() }).nullable(),
  /**
   * How a customer can recover a password: by e-mail (allow_email, SMTP_URL and PUBLIC_URL) or by
   * the Telegram chat linked to the account (a bot token and PUBLIC_URL). With neither, the
   * recovery switch has no effect and customers see no recovery.
   */
  recovery: z.object({ email: z.boolean(), telegram: z.boolean() }),
});
export type CustomerLinks = z.infer<typeof CustomerLinks>;

/** Refusals of PATCH /api/admin/settings/links. */
export const linksMsg = {
  supportUrl:
    'El enlace de soporte debe empezar por https://, tg:// o whatsapp:// (por ejemplo https://t.me/tu_soporte o https://wa.me/5355555555)',
  androidUrl: 'El enlace de la app de Android debe empezar por https://',
} as const;
