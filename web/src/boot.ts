/**
 * The one script of a pre-rendered public page (issue 28, docs/performance.md). The page is already
 * painted, styled by the CSS it uses (inline) and its links work as plain links; the application
 * (React, the router, the pages: ~130 KiB) is downloaded only when the visitor starts using the page:
 * a touch, a click, a key, text put into a field (typed, pasted or autofilled) or the pointer over it. A visitor who only reads pays for the
 * page alone. On /login the dashboard's code is fetched along with it, while the customer types.
 * Focus is not a sign of use: /login and /password-recovery focus their first field themselves
 * (autofocus), and counting that made every cold visit of those pages download the whole app.
 *
 * It imports nothing (it is its own build entry) and reads what to load from its own tag:
 * `data-app` (the entry module), `data-css` (the whole stylesheet, for what the app draws later),
 * `data-preload` (the page's chunks) and `data-prefetch` (the next page's chunks).
 *
 * A form sent before the application took over is held (not sent by the browser as a plain form,
 * which would put the password in the URL) and sent again by the app once it has (`main.tsx`).
 */
export {};

declare global {
  interface Window {
    /** Set by `main.tsx` once React has taken the page over. */
    __vpnHydrated?: boolean;
    /** The form the visitor sent before that. */
    __vpnPendingSubmit?: HTMLFormElement | null;
  }
}

const tag = document.querySelector<HTMLScriptElement>('script[data-app]');
const INTENT = ['pointerdown', 'touchstart', 'keydown', 'input', 'mouseover'] as const;

function link(rel: string, href: string) {
  const el = document.createElement('link');
  el.rel = rel;
  el.href = href;
  if (rel === 'modulepreload') el.crossOrigin = '';
  document.head.append(el);
}

let started = false;
function start() {
  if (started || !tag) return;
  started = true;
  for (const type of INTENT) window.removeEventListener(type, start, true);
  const { app, css, preload = '', prefetch = '' } = tag.dataset;
  if (css) link('stylesheet', css);
  for (const href of `${preload} ${prefetch}`.split(' ').filter(Boolean)) link('modulepreload', href);
  if (app) void import(/* @vite-ignore */ app);
}

for (const type of INTENT) window.addEventListener(type, start, { capture: true, passive: true });
window.addEventListener(
  'submit',
  (event) => {
    if (window.__vpnHydrated) return;
    event.preventDefault();
    window.__vpnPendingSubmit = event.target as HTMLFormElement;
    start();
  },
  true,
);

// Until React has taken the page over, this document is the page the server chose for the path it
// was served at, past its gate (maintenance, landing off): a history step to another path (back,
// forward, a script's pushState and popstate) would leave it on screen under the wrong address.
// The browser loads that path then, as it would a plain page, and the server gates it.
const servedPath = location.pathname;
window.addEventListener('popstate', () => {
  if (!window.__vpnHydrated && location.pathname !== servedPath) location.reload();
});

// A signed-in customer or manager (a session in this browser) goes on at once: the app decides
// where (the login pages send them to their dashboard).
try {
  if (['access', 'manager_access'].some((k) => localStorage.getItem(k) ?? sessionStorage.getItem(k))) start();
} catch {
  /* storage unavailable: wait for the visitor */
}
