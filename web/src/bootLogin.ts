/**
 * /login's second script, beside `boot.ts` (which every public page loads; issue 32 moved this out
 * of it, so that the landing, /plans and /register do not carry it). Like `boot.ts` it imports
 * nothing at run time and reads its own tag:
 *
 * - The login form is sent from here at once when the customer sends it before the application has
 *   taken over (`boot.ts` holds the form, the app sends it again later), and with the tokens it
 *   answers the home's data is asked for, while the application downloads: the app takes those
 *   answers instead of asking again (`takeEarlyAnswer` in `api/session.ts`), so the round trips
 *   overlap the download (issue 28).
 * - `data-warm`: the chunks fetched, not run, once the page has loaded and is idle, within the
 *   page's 100 KiB (`LOGIN_WARM_KIB` in `web/size-budget.ts`). A customer whose password manager fills
 *   the form and sends it at once then waits only for the rest of the application.
 *
 * Module scripts run in the document's order: `boot.ts` first, then this one.
 */
import type { EarlyAnswer } from './boot';

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

// A form held before this script ran (kept by the page's inline capture, served by `boot.ts`)…
if (window.__vpnPendingSubmit && !window.__vpnHydrated) sendLogin(window.__vpnPendingSubmit);
// …and any sent from now on (`boot.ts`'s listener, registered first, holds it).
window.addEventListener(
  'submit',
  (event) => {
    if (!window.__vpnHydrated) sendLogin(event.target as HTMLFormElement);
  },
  true,
);

// The bulk of the application, fetched (not run) once the page is painted and idle.
const warm =
  document.querySelector<HTMLScriptElement>('script[data-warm]')?.dataset.warm?.split(' ').filter(Boolean) ??
  [];
if (warm.length) {
  const fetchWarm = () => {
    for (const href of warm) {
      const el = document.createElement('link');
      el.rel = 'modulepreload';
      el.href = href;
      el.crossOrigin = '';
      document.head.append(el);
    }
  };
  const whenIdle = () =>
    'requestIdleCallback' in window
      ? requestIdleCallback(fetchWarm, { timeout: 1000 })
      : setTimeout(fetchWarm, 0);
  if (document.readyState === 'complete') whenIdle();
  else window.addEventListener('load', whenIdle, { once: true });
}
