import { z } from './zod.ts';
import { noControlChars } from './common.ts';

/**
 * Request bodies are parsed leniently (missing → '') so that the handler can answer with the
 * spec's own Spanish message instead of a generic schema error.
 */
const text = z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string().max(1024));

export const LoginBody = z.object({
  username: text,
  password: text,
  remember: z.boolean().optional(),
  /** Required only after repeated wrong passwords for the account (answer code `captcha_required`). */
  captcha_token: z.string().max(10_000).optional(),
});
export type LoginBody = z.infer<typeof LoginBody>;

export const TokenPair = z.object({ access: z.string(), refresh: z.string() });
export type TokenPair = z.infer<typeof TokenPair>;

export const RegisterBody = z.object({
  username: z.preprocess(
    (v) => (v === undefined || v === null ? '' : v),
    noControlChars(z.string().max(1024)),
  ),
  password: text,
  captcha_token: text,
  email: z.preprocess((v) => (v === null ? undefined : v), z.string().max(254).optional()),
});
export type RegisterBody = z.infer<typeof RegisterBody>;

/**
 * PUT /api/client/register's answer: the spec's message, and a session for the new account (issue
 * 32: "Registro Completado" leads into the dashboard without typing the credentials again). The
 * session is not remembered (as a login without "Recordarme").
 */
export const RegisterAnswer = z.object({ message: z.string(), access: z.string(), refresh: z.string() });
export type RegisterAnswer = z.infer<typeof RegisterAnswer>;

export const RefreshBody = z.object({ refresh: text });
export type RefreshBody = z.infer<typeof RefreshBody>;

export const WebSettings = z.object({ allow_partys: z.boolean(), allow_email: z.boolean() });
export type WebSettings = z.infer<typeof WebSettings>;

/** GET /api/client/verify-token — the current customer. */
export const CurrentUser = z.object({
  id: z.number().int(),
  username: z.string(),
  alias: z.string().nullable(),
  email: z.string().nullable(),
  email_verified: z.boolean(),
  web_settings: WebSettings,
});
export type CurrentUser = z.infer<typeof CurrentUser>;

/** GET /api/admin/verify-token — the current manager. */
export const CurrentManager = z.object({
  id: z.number().int(),
  username: z.string(),
  role: z.string(),
});
export type CurrentManager = z.infer<typeof CurrentManager>;

export { USERNAME_RE, PASSWORD_MIN, PASSWORD_MAX } from './limits.ts';
