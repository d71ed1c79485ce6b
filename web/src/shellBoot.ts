/**
 * The first script of the pages rendered in the browser only (the dashboard; issue 32, point 11),
 * put before the application's entry in `ssr/pages/shell.html` by `scripts/prerender.ts`. It imports
 * nothing, so it runs as soon as it arrives, while the application (~170 KiB) is still downloading:
 *
 * - the chunks of the page at this path go on the wire now (`modulepreload`), in the same wave as
 *   the entry's, instead of after the entry has run and asked for them (a second wave of ~14 small
 *   files, 300 ms round trips each on Cuban mobile data);
 * - with a customer's session in this browser, the session check and the page's data are asked for
 *   now: the application takes those answers instead of asking again (`takeEarlyAnswer` in
 *   `api/session.ts`, as after /login's early send in `boot.ts`), so "Verificando acceso" is
 *   answered by the time the code has arrived. A refused or failed answer is not taken: the app asks
 *   the server as before (and renews an expired token there).
 *
 * Its tag says what to load: `data-chunks` (every dashboard page's: the layout and the live
 * connection) and `data-routes` (JSON: a path's own chunks).
 */
import type { EarlyAnswer } from './boot';

/** What each dashboard page asks for first (its queries in `api/queries.ts`). */
const SESSION = '/api/client/verify-token';
const PAGE_DATA: Record<string, string[]> = {
  '/dashboard': [SESSION, '/api/client/advertisements', '/api/client/agent', '/api/client/accounts/peers'],
  '/dashboard/home': [
    SESSION,
    '/api/client/advertisements',
    '/api/client/agent',
    '/api/client/accounts/peers',
  ],
  '/dashboard/peers': [SESSION, '/api/client/accounts/peers'],
};

// (A module script has no `document.currentScript`.)
const tag = document.querySelector<HTMLScriptElement>('script[data-routes]');
const path = location.pathname.replace(/\/+$/, '') || '/';

function preload(href: string) {
  const el = document.createElement('link');
  el.rel = 'modulepreload';
  el.href = href;
  el.crossOrigin = '';
  document.head.append(el);
}

/** The access token as `api/session.ts` reads it (localStorage first); null without a session. */
function accessToken(): string | null {
  try {
    return localStorage.getItem('access') ?? sessionStorage.getItem('access');
  } catch {
    return null;
  }
}

if (tag instanceof HTMLScriptElement && (path === '/dashboard' || path.startsWith('/dashboard/'))) {
  let routes: Record<string, string> = {};
  try {
    routes = JSON.parse(tag.dataset.routes ?? '{}') as Record<string, string>;
  } catch {
    /* a broken tag: the application loads its chunks itself */
  }
  const token = accessToken();
  // Without a session the layout sends the visitor to /login: nothing of the page is needed.
  if (token) {
    const own = routes[path === '/dashboard' ? '/dashboard/home' : path] ?? '';
    for (const href of `${tag.dataset.chunks ?? ''} ${own}`.split(' ').filter(Boolean)) preload(href);
    const headers = {
      'X-Requested-With': 'XMLHttpRequest',
      Accept: 'application/json',
      Authorization: `Bearer ${token}`,
    };
    const early = (window.__vpnEarly ??= new Map<string, Promise<EarlyAnswer | null>>());
    for (const api of PAGE_DATA[path] ?? [SESSION]) {
      const answer = fetch(api, { headers, credentials: 'same-origin' })
        .then(async (res) => ({ status: res.status, text: await res.text() }))
        .catch(() => null);
      early.set(`GET ${api} ${token}`, answer);
    }
  }
}
