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
 * What only /login does — its form sent at once, the home's data asked for with the answer, the
 * application fetched while the customer types — is its own second script, `bootLogin.ts`, so that
 * the other pages do not carry it (issue 32: every public page's bytes).
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

for (const type of INTENT) window.addEventListener(type, start, { capture: true, passive: true });
/** A form sent before the takeover: held, sent by the app once it has taken over. */
function hold(form: HTMLFormElement) {
  window.__vpnPendingSubmit = form;
  start();
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
  const label = button.getAttribute('data-label');
  if (label) {
    button.setAttribute('data-label', button.getAttribute('aria-label') ?? '');
    button.setAttribute('aria-label', label);
  }
  const target = document.getElementById(button.getAttribute('aria-controls') ?? '');
  if (target instanceof HTMLInputElement) target.type = on ? 'text' : 'password';
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
