/**
 * Account calls: settings changes (`PATCH`/`DELETE /api/client/settings`), password recovery and
 * the two pages reached from e-mailed links (reset password, verify e-mail).
 *
 * A settings answer carries the updated user, which replaces the cached current user at once (no
 * second round trip); a password change also carries a fresh token pair for this device — every
 * other session of the customer was closed by the server — stored through the session module.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { SettingsAnswer } from '@vpn/contracts';

/** The zod schemas, loaded on the first call that needs them (see `queries.ts`). */
const schemas = () => import('@vpn/contracts');
import type { SettingsPatchBody } from '@vpn/contracts';
import { publicRequest } from './http';
import { queryKeys } from './queries';
import { authRequest, renewTokens } from './session';

export type { SettingsAnswer, SettingsPatchBody } from '@vpn/contracts';

/** `PATCH /api/client/settings` with exactly one of `{email}`, `{alias}`, `{old_password, new_password}`. */
export async function patchSettings(body: SettingsPatchBody): Promise<SettingsAnswer> {
  return authRequest(
    'client',
    '/api/client/settings',
    { method: 'PATCH', body },
    (await schemas()).SettingsAnswer,
  );
}

/** `DELETE /api/client/settings`: removes the account's e-mail. */
export async function deleteEmail(): Promise<SettingsAnswer> {
  return authRequest(
    'client',
    '/api/client/settings',
    { method: 'DELETE' },
    (await schemas()).SettingsAnswer,
  );
}

/**
 * Applies a settings answer: the cached current user becomes the answer's, and a new token pair (a
 * password change) replaces the old one, keeping the session's remember-me choice.
 */
export function applySettingsAnswer(queryClient: QueryClient, answer: SettingsAnswer): void {
  if (answer.access) renewTokens('client', { access: answer.access, refresh: answer.refresh });
  queryClient.setQueryData(queryKeys.currentUser, answer.user);
}

/** `POST /api/client/password-recovery`: answers the same sentence whether or not a mail is sent. */
export async function requestPasswordRecovery(username: string, captchaToken?: string): Promise<string> {
  const { message } = await publicRequest(
    '/api/client/password-recovery',
    { method: 'POST', body: { username, ...(captchaToken ? { captcha_token: captchaToken } : {}) } },
    (await schemas()).MessageBody,
  );
  return message;
}

/** `POST /api/client/reset-password` with the token of an e-mailed link. */
export async function resetPassword(token: string, password: string): Promise<string> {
  const { message } = await publicRequest(
    '/api/client/reset-password',
    { method: 'POST', body: { token, password } },
    (await schemas()).MessageBody,
  );
  return message;
}

/** `POST /api/client/verify-email` with the token of an e-mailed link. */
export async function verifyEmail(token: string): Promise<string> {
  const { message } = await publicRequest(
    '/api/client/verify-email',
    { method: 'POST', body: { token } },
    (await schemas()).MessageBody,
  );
  return message;
}

/**
 * The one-time token of an e-mailed link, which travels in the URL fragment (`#token=…`) so that it
 * never reaches a server or an access log. Null when the fragment has none.
 */
export function tokenFromHash(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const token = params.get('token')?.trim();
  return token ? token : null;
}
