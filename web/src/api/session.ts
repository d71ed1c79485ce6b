/**
 * The session module: the only place that reads or writes tokens, refreshes them and ends sessions.
 *
 * Two realms never share tokens: customers (`/api/client`, keys `access`/`refresh`) and managers
 * (`/api/admin`, keys `manager_access`/`manager_refresh`).
 *
 * Storage decision. Login stores the access token always and the refresh token only when
 * "Recordarme" is checked (spec §4):
 *  - remembered: access and refresh go to localStorage, so the session survives closing the browser
 *    and a 401 can be healed with one refresh;
 *  - not remembered: only the access token is kept, in sessionStorage, so it dies with the tab and is
 *    never left behind on a shared computer. Without a refresh token the first 401 ends the session.
 *
 * Authenticated calls (see {@link authRequest}): on a 401 or 403 the module refreshes once with the
 * stored refresh token (concurrent failures share one refresh in flight), retries the call once, and
 * otherwise clears the realm's tokens and navigates to its login page.
 */
import type { LoginBody, TokenPair } from '@vpn/contracts';
import { ApiError, parse, publicRequest, send } from './http';
import type { HttpMethod, Schema } from './http';
// The answers are checked without zod (`shape.ts`): this module is on the login's path.
import { MessageBodyShape, TokenPairShape } from './shape';

export type Realm = 'client' | 'manager';

const KEYS: Record<Realm, { access: string; refresh: string }> = {
  client: { access: 'access', refresh: 'refresh' },
  manager: { access: 'manager_access', refresh: 'manager_refresh' },
};

/** Where each realm logs in. */
export const LOGIN_PATH: Record<Realm, string> = { client: '/login', manager: '/manager/login' };

const LOGIN_ENDPOINT: Record<Realm, string> = {
  client: '/api/client/login',
  manager: '/api/admin/login',
};

export const REFRESH_ENDPOINT = '/api/refresh-token';
export const LOGOUT_ENDPOINT = '/api/logout';

// ---------------------------------------------------------------------------------------------
// Storage

function storages(): Storage[] {
  const list: Storage[] = [];
  // Storage access can throw (privacy modes, sandboxed iframes); a missing store just holds nothing.
  try {
    list.push(window.localStorage);
  } catch {
    /* unavailable */
  }
  try {
    list.push(window.sessionStorage);
  } catch {
    /* unavailable */
  }
  return list;
}

function read(key: string): string | null {
  for (const store of storages()) {
    const value = store.getItem(key);
    if (value) return value;
  }
  return null;
}

export function getAccessToken(realm: Realm): string | null {
  return read(KEYS[realm].access);
}

export function getRefreshToken(realm: Realm): string | null {
  return read(KEYS[realm].refresh);
}

export function hasSession(realm: Realm): boolean {
  return getAccessToken(realm) !== null;
}

/**
 * Stores a fresh token pair. `remember` decides the storage (see the module comment): with it, both
 * tokens go to localStorage; without it, only the access token, in sessionStorage.
 */
export function storeTokens(realm: Realm, pair: TokenPair, remember: boolean): void {
  const keys = KEYS[realm];
  // New values overwrite the old ones in place: another tab reading between a clear and a write
  // would see no session and end it.
  const [keep, drop] = remember
    ? [window.localStorage, window.sessionStorage]
    : [window.sessionStorage, window.localStorage];
  drop.removeItem(keys.access);
  drop.removeItem(keys.refresh);
  keep.setItem(keys.access, pair.access);
  if (remember) keep.setItem(keys.refresh, pair.refresh);
  else keep.removeItem(keys.refresh);
}

/** Whether this session was opened with "Recordarme" (only those keep a refresh token). */
export function isRemembered(realm: Realm): boolean {
  return getRefreshToken(realm) !== null;
}

/**
 * Replaces the tokens of a running session with a pair the server issued mid-session (a password
 * change closes every session and hands this device a new pair). The session's remember-me choice
 * is kept: the refresh token is stored only if the session already had one.
 */
export function renewTokens(realm: Realm, pair: { access: string; refresh?: string }): void {
  const remember = isRemembered(realm) && Boolean(pair.refresh);
  storeTokens(realm, { access: pair.access, refresh: pair.refresh ?? '' }, remember);
}

type SessionListener = (realm: Realm) => void;
const endListeners = new Set<SessionListener>();

/** Called whenever a realm's tokens are cleared (logout, failed refresh): drop cached user data. */
export function onSessionEnd(listener: SessionListener): () => void {
  endListeners.add(listener);
  return () => endListeners.delete(listener);
}

export function clearTokens(realm: Realm, { notify = true }: { notify?: boolean } = {}): void {
  const keys = KEYS[realm];
  for (const store of storages()) {
    store.removeItem(keys.access);
    store.removeItem(keys.refresh);
  }
  if (notify) endListeners.forEach((listener) => listener(realm));
}

// ---------------------------------------------------------------------------------------------
// Navigation (the router registers itself; before that, or in a bare page, a full load is used)

type Navigate = (to: string) => void;
let navigator: Navigate = (to) => window.location.assign(to);

/** Lets the app's router perform the session's redirects without a full page load. */
export function setSessionNavigator(navigate: Navigate): void {
  navigator = navigate;
}

function goToLogin(realm: Realm): void {
  navigator(LOGIN_PATH[realm]);
}

/** Clears the realm's tokens and sends the user to its login page. */
export function endSession(realm: Realm): void {
  clearTokens(realm);
  goToLogin(realm);
}

// ---------------------------------------------------------------------------------------------
// Refresh (one in flight per realm)

const refreshing = new Map<Realm, Promise<boolean>>();

async function spend(realm: Realm, refresh: string): Promise<boolean> {
  try {
    const pair = await publicRequest(REFRESH_ENDPOINT, { method: 'POST', body: { refresh } }, TokenPairShape);
    // Refresh tokens rotate on every use: the old one is now dead, always keep the new one.
    // A refresh token only exists for remembered sessions, so the pair goes back to localStorage.
    storeTokens(realm, pair, true);
    return true;
  } catch (error) {
    // No answer (the link dropped) or a server error: the session is not over, the tokens stay and
    // the caller sees a connection error. If the server did rotate and only its answer was lost,
    // presenting the same token again later is accepted within a grace (SessionService.rotate).
    if (error instanceof ApiError && (error.status === 0 || error.status >= 500)) throw error;
    return false;
  }
}

/**
 * How long a tab keeps the refresh lock after storing a new pair. Each tab reads its own copy of
 * localStorage, which learns other tabs' writes asynchronously; a tab granted the lock before its
 * copy has the new token would spend the old one again (the server's reuse grace then saves the
 * session, but it costs a second refresh). The tab that refreshed goes on at once; only the lock
 * waits.
 */
export const REFRESH_LOCK_HOLD_MS = 250;

/**
 * Tabs of one remembered session share the refresh token (localStorage), and it is single-use:
 * two tabs spending it at once look like a stolen token to the server, which ends the session
 * everywhere. So tabs take turns through a Web Lock, and a tab that waited finds the token already
 * rotated by another and simply uses the new pair. Browsers without Web Locks refresh directly.
 */
function doRefresh(realm: Realm): Promise<boolean> {
  const seen = getRefreshToken(realm);
  if (!seen) return Promise.resolve(false);
  const locks = globalThis.navigator?.locks as LockManager | undefined;
  if (!locks) return spend(realm, seen);
  return new Promise<boolean>((resolve, reject) => {
    void locks
      .request(`vpn-refresh-${realm}`, async () => {
        const current = getRefreshToken(realm);
        if (!current) return resolve(false);
        if (current !== seen) return resolve(true);
        const spent = await spend(realm, current);
        resolve(spent);
        if (spent) await new Promise((done) => setTimeout(done, REFRESH_LOCK_HOLD_MS));
      })
      .catch(reject);
  });
}

/**
 * Refreshes the realm's tokens. Concurrent callers share the same refresh in flight, so a burst of
 * 401s spends the (single-use) refresh token once. Resolves to whether a new access token exists;
 * rejects with the {@link ApiError} when no answer came (network down, 5xx): the session goes on.
 */
export function refreshTokens(realm: Realm): Promise<boolean> {
  let inFlight = refreshing.get(realm);
  if (!inFlight) {
    inFlight = doRefresh(realm).finally(() => refreshing.delete(realm));
    refreshing.set(realm, inFlight);
  }
  return inFlight;
}

// ---------------------------------------------------------------------------------------------
// Authenticated calls

export interface AuthRequestOptions {
  method?: HttpMethod;
  body?: unknown;
  signal?: AbortSignal;
}

// ---------------------------------------------------------------------------------------------
// Fresh confirmation of a manager's sensitive operations (server: plugins/reauth.ts)

/** Asks the manager for the password (and code) again; resolves the confirmation, or null if cancelled. */
export type ReauthPrompt = () => Promise<string | null>;
let reauthPrompt: ReauthPrompt | null = null;
/** The last confirmation and until when it holds (the server's is good for five minutes). */
let reauthProof: { token: string; until: number } | null = null;

/** The console's dialog registers itself here (ReauthDialog); returns the unregister function. */
export function setReauthPrompt(prompt: ReauthPrompt | null): () => void {
  reauthPrompt = prompt;
  return () => {
    if (reauthPrompt === prompt) reauthPrompt = null;
  };
}

/** Keeps a confirmation for the next sensitive calls of this page (a little less than its life). */
export function rememberReauth(token: string, expiresInSeconds: number): void {
  reauthProof = { token, until: Date.now() + Math.max(0, expiresInSeconds - 15) * 1000 };
}

async function isReauthRefusal(res: Response): Promise<boolean> {
  if (res.status !== 403) return false;
  try {
    const body = (await res.clone().json()) as { code?: unknown };
    return body.code === 'reauth_required';
  } catch {
    return false;
  }
}

/**
 * A sensitive manager call refused for want of a fresh confirmation (403 `reauth_required`) goes
 * again with the one this page holds, or, failing that, with one the manager gives in the dialog.
 */
async function withReauth(path: string, options: AuthRequestOptions, token: string, refused: Response) {
  if (reauthProof && reauthProof.until > Date.now()) {
    const again = await send(path, { ...options, token, headers: { 'X-Reauth': reauthProof.token } });
    if (!(await isReauthRefusal(again))) return again;
    reauthProof = null;
  }
  const proof = reauthPrompt ? await reauthPrompt() : null;
  if (!proof) return refused;
  return send(path, { ...options, token, headers: { 'X-Reauth': proof } });
}

/**
 * Sends an authenticated call and returns the raw response (for downloads). 401/403 → one refresh
 * and one retry; when that is impossible or fails, the session ends (tokens cleared, login page) and
 * the call rejects with the refusal.
 */
export async function authFetch(
  realm: Realm,
  path: string,
  options: AuthRequestOptions = {},
): Promise<Response> {
  const token = getAccessToken(realm);
  if (!token) {
    endSession(realm);
    throw new ApiError(401, null);
  }
  const early = (options.method ?? 'GET') === 'GET' ? await takeEarlyAnswer(`GET ${path} ${token}`) : null;
  const first = early?.ok ? early : await send(path, { ...options, token });
  if (first.status !== 401 && first.status !== 403) return first;
  if (realm === 'manager' && (await isReauthRefusal(first))) return withReauth(path, options, token, first);

  // Another call may already have rotated the tokens while this one was in flight: retry with the
  // current access token instead of spending the refresh token a second time.
  const current = getAccessToken(realm);
  const healed = current !== null && current !== token ? true : await refreshTokens(realm);
  const retryToken = getAccessToken(realm);
  if (!healed || !retryToken) {
    endSession(realm);
    return first;
  }
  const second = await send(path, { ...options, token: retryToken });
  if (second.status === 401) endSession(realm);
  return second;
}

/** An authenticated JSON call: {@link authFetch} + parsing (and contract validation with `schema`). */
export async function authRequest<T>(
  realm: Realm,
  path: string,
  options: AuthRequestOptions = {},
  schema?: Schema<T>,
): Promise<T> {
  return parse(await authFetch(realm, path, options), schema);
}

// ---------------------------------------------------------------------------------------------
// Answers the boot script already asked for

/**
 * The answer to `key` (`METHOD path body-or-token`) that the pre-rendered page's boot script asked
 * for before the application arrived (`src/boot.ts`: /login's form, then the home's data), taken
 * once; null when there is none or its request failed.
 */
async function takeEarlyAnswer(key: string): Promise<Response | null> {
  const pending = window.__vpnEarly?.get(key);
  if (!pending) return null;
  window.__vpnEarly!.delete(key);
  const answer = await pending;
  if (!answer) return null;
  return new Response(answer.text || null, {
    status: answer.status,
    headers: { 'Content-Type': 'application/json' },
  });
}

// ---------------------------------------------------------------------------------------------
// Login and logout

/** Logs in and stores the tokens (refresh only when `remember`). Throws {@link ApiError}. */
export async function login(realm: Realm, body: LoginBody & { totp?: string }): Promise<void> {
  // The same form already sent by the boot script: its answer, not a second attempt. Named by the
  // username and the switch only (no password in a global's key, issue 31); the boot script drops
  // the answer when the form is edited after it was sent.
  const early = await takeEarlyAnswer(
    `POST ${LOGIN_ENDPOINT[realm]} ${JSON.stringify({ username: body.username, remember: body.remember === true })}`,
  );
  const pair = early
    ? await parse(early, TokenPairShape)
    : await publicRequest(LOGIN_ENDPOINT[realm], { method: 'POST', body }, TokenPairShape);
  storeTokens(realm, pair, body.remember === true);
}

/**
 * Logs out: sends the refresh token (when the session has one) so the server revokes it, then clears
 * the tokens and goes to the login page whatever the answer. Resolves to `false` when the server call
 * failed, so the caller can tell the user (the session is ended locally anyway).
 */
export async function logout(realm: Realm): Promise<boolean> {
  const refresh = getRefreshToken(realm);
  let ok = true;
  // The refresh token identifies the session to revoke; the (maybe expired) access token is not
  // needed. A session that was not remembered has no refresh token and nothing to revoke.
  if (refresh) {
    try {
      await publicRequest(LOGOUT_ENDPOINT, { method: 'POST', body: { refresh } }, MessageBodyShape);
    } catch {
      ok = false;
    }
  }
  endSession(realm);
  return ok;
}
