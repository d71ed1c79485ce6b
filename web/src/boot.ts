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
 * `data-preload` (the page's chunks), `data-prefetch` (the next page's chunks) and `data-warm`
 * (/login only: the chunks fetched, not run, once the page has loaded and is idle, within the
 * page's 100 KiB: `LOGIN_WARM_KIB` in `web/size-budget.ts`). A customer whose password manager fills
 * the form and sends it at once then waits only for the rest of the application.
 *
 * A form sent before the application took over is held (not sent by the browser as a plain form,
 * which would put the password in the URL) and sent again by the app once it has (`main.tsx`). The
 * login form is also sent from here at once, and with the tokens it answers the home's data is
 * asked for, while the application downloads: the app takes those answers instead of asking again
 * (`takeEarlyAnswer` in `api/session.ts`), so the round trips overlap the download (issue 28).
 *
 * A tap or a form sent before this file itself has arrived (it is a request of its own, a round trip
 * or more after the first paint on a slow link) is kept by the page's inline capture
 * (`scripts/tapCapture.ts`) and served here once, when it arrives (issue 32, point 8).
 */
export {};

/** An answer fetched here before the application arrived (null: the network failed). */
export interface EarlyAnswer {
  status: number;
  text: string;
}

declare global {
  interface Window {
    /** Set by `main.tsx` once React has taken the page over. */
    __vpnHydrated?: boolean;
    /** The form the visitor sent before that. */
    __vpnPendingSubmit?: HTMLFormElement | null;
    /** A button that needs the app, tapped before that: tapped again once it has taken over. */
    __vpnPendingClick?: HTMLElement | null;
    /**
     * Clicks and submits before this script arrived, kept by the page's inline tap capture
     * (`scripts/tapCapture.ts`); null once taken here, which stops the recording.
     */
    __vpnTaps?: Event[] | null;
    /** Answers asked for here, by `METHOD path key`; the app takes each once. */
    __vpnEarly?: Map<string, Promise<EarlyAnswer | null>>;
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

/** The home's data, as `routes/public/Login.tsx` asks for it on success. */
const HOME_DATA = [
  '/api/client/verify-token',
  '/api/client/advertisements',
  '/api/client/agent',
  '/api/client/accounts/peers',
];
const HEADERS = {
  'X-Requested-With': 'XMLHttpRequest',
  Accept: 'application/json',
  'Content-Type': 'application/json',
};

function early(key: string, path: string, init: RequestInit): Promise<EarlyAnswer | null> {
  const answer = fetch(path, { ...init, credentials: 'same-origin' })
    .then(async (res) => ({ status: res.status, text: await res.text() }))
    .catch(() => null);
  (window.__vpnEarly ??= new Map()).set(key, answer);
  return answer;
}

/** /login's form, sent now as `LoginForm` would send it; then the home's data with the new token. */
function sendLogin(form: HTMLFormElement) {
  if (location.pathname !== '/login') return;
  const field = (name: string) => form.elements.namedItem(name);
  const [user, password, remember] = [field('username'), field('password'), field('remember')];
  if (!(user instanceof HTMLInputElement) || !(password instanceof HTMLInputElement)) return;
  const username = user.value.trim();
  const keep = remember instanceof HTMLInputElement && remember.checked;
  // The answer is kept under the form's name and switch, never its password (issue 31: the key of
  // a global held the plain password until the app took the answer). The visitor's edit of the form
  // after this send makes it another form: its answer is dropped and the next submit sends again
  // (the takeover's own input events, `lib/takeOver.ts`, are not the visitor's: isTrusted is false).
  const key = `POST /api/client/login ${JSON.stringify({ username, remember: keep })}`;
  if (window.__vpnEarly?.has(key)) return; // sent twice before the app arrived: one attempt
  form.addEventListener('input', (e) => e.isTrusted && window.__vpnEarly?.delete(key));
  void early(key, '/api/client/login', {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ username, password: password.value, remember: keep }),
  }).then((answer) => {
    let access: unknown;
    try {
      if (answer && answer.status >= 200 && answer.status < 300)
        access = (JSON.parse(answer.text) as { access?: unknown }).access;
    } catch {
      /* not a token pair: the app reports it */
    }
    if (typeof access !== 'string') return;
    const headers = { ...HEADERS, Authorization: `Bearer ${access}` };
    for (const path of HOME_DATA) void early(`GET ${path} ${access}`, path, { headers });
  });
}

for (const type of INTENT) window.addEventListener(type, start, { capture: true, passive: true });
/** A form sent before the takeover: held, sent by the app once it has taken over. */
function hold(form: HTMLFormElement) {
  window.__vpnPendingSubmit = form;
  start();
  sendLogin(form);
}
window.addEventListener(
  'submit',
  (event) => {
    if (window.__vpnHydrated) return;
    // Held here, so React must not see it too: between React attaching its listeners and the
    // takeover (`lib/takeOver.ts`) it would handle the submit with the fields' state still empty
    // ("El usuario y contraseña son obligatorios") and the held form would never be sent.
    event.preventDefault();
    event.stopPropagation();
    hold(event.target as HTMLFormElement);
  },
  true,
);

/**
 * The menu and "Mostrar contraseña" (`data-flip`) work at once, without the application: the same
 * flip as `lib/flip.ts` (keep the two alike; this file imports nothing, to stay one small request).
 */
function flip(button: Element) {
  const state = button.hasAttribute('aria-expanded') ? 'aria-expanded' : 'aria-pressed';
  const on = button.getAttribute(state) !== 'true';
  button.setAttribute(state, String(on));
  const label = button.getAttribute(on ? 'data-label-on' : 'data-label-off');
  if (label) button.setAttribute('aria-label', label);
  const target = document.getElementById(button.getAttribute('aria-controls') ?? '');
  if (target instanceof HTMLInputElement) target.type = on ? 'text' : 'password';
  else if (target) target.hidden = !on;
}

/** The button a click before the takeover was for, if this script should act on it. */
function tapped(target: EventTarget | null): HTMLButtonElement | null {
  const button = target instanceof Element ? target.closest('button') : null;
  return button && button.type !== 'submit' && !button.disabled ? button : null;
}
function tap(button: HTMLButtonElement) {
  if (button.hasAttribute('data-flip')) flip(button);
  else {
    window.__vpnPendingClick = button;
    start();
  }
}
// A tap before the takeover: a control the page serves itself (`data-flip`) acts now; any other
// button (it needs the application) is kept and tapped again once, when the app has taken over
// (`lib/takeOver.ts`). Links and forms are left to the browser and the submit hold above. React
// must not see the tap too: between attaching its listeners and the takeover it would act on it
// a second time (the menu would close again).
window.addEventListener(
  'click',
  (event) => {
    const button = window.__vpnHydrated ? null : tapped(event.target);
    if (!button) return;
    event.preventDefault();
    event.stopPropagation();
    tap(button);
  },
  true,
);

// What the visitor did before this file arrived (the page's inline capture kept it): each tap and
// form sent is served now, once, as if it came now; the visitor has used the page, so the app loads.
const kept = window.__vpnTaps ?? [];
window.__vpnTaps = null;
for (const event of kept) {
  if (event.type === 'submit') hold(event.target as HTMLFormElement);
  else {
    const button = tapped(event.target);
    if (button) tap(button);
  }
}
if (kept.length) start();

// /login: the bulk of the application, fetched (not run) once the page is painted and idle.
const warm = tag?.dataset.warm?.split(' ').filter(Boolean) ?? [];
if (warm.length) {
  const fetchWarm = () => {
    for (const href of warm) link('modulepreload', href);
  };
  const whenIdle = () =>
    'requestIdleCallback' in window
      ? requestIdleCallback(fetchWarm, { timeout: 1000 })
      : setTimeout(fetchWarm, 0);
  if (document.readyState === 'complete') whenIdle();
  else window.addEventListener('load', whenIdle, { once: true });
}

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
