import { z } from './zod.ts';
import { CurrentUser } from './auth.ts';
import { noControlChars } from './common.ts';

const text = z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string().max(1024));

/** GET /api/client/advertisements */
export const Advertisement = z.object({
  id: z.number().int(),
  name: z.string(),
  message: z.string(),
  created: z.string(),
});
export type Advertisement = z.infer<typeof Advertisement>;
export const AdvertisementList = z.array(Advertisement);

/** GET /api/client/agent: the newest client-app release (nulls when none was published). */
export const ClientVersion = z.object({ version: z.string().nullable(), url: z.string().nullable() });
export type ClientVersion = z.infer<typeof ClientVersion>;

/** PATCH /api/client/settings: exactly one of e-mail, alias, or a password change. */
export const SettingsPatchBody = z.union([
  /** The current password confirms an e-mail change (a stolen session must not redirect recovery). */
  z.object({ email: text, password: text }).strict(),
  z
    .object({
      alias: z.preprocess(
        (v) => (v === undefined || v === null ? '' : v),
        noControlChars(z.string().max(1024)),
      ),
    })
    .strict(),
  z.object({ old_password: text, new_password: text }).strict(),
]);
export type SettingsPatchBody = z.infer<typeof SettingsPatchBody>;

/**
 * The answer to a settings change: a message for the toast and the updated user. A password change
 * also returns a fresh token pair: every other session of the customer is closed, this one goes on.
 */
export const SettingsAnswer = z.object({
  message: z.string(),
  user: CurrentUser,
  access: z.string().optional(),
  refresh: z.string().optional(),
});
export type SettingsAnswer = z.infer<typeof SettingsAnswer>;

/** POST /api/client/password-recovery */
export const RecoveryBody = z.object({
  username: text,
  /** Needed past the per-username limit (answer code `captcha_required`). */
  captcha_token: z.string().max(10_000).optional(),
});
/** POST /api/client/reset-password (the token comes from the e-mailed link's fragment). */
export const ResetPasswordBody = z.object({ token: text, password: text });
/** POST /api/client/verify-email */
export const VerifyEmailBody = z.object({ token: text });

export const ALIAS_RE = /^[\p{L}\p{N}_. -]{3,24}$/u;
