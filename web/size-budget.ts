/**
 * The size budget of what a customer on Cuban mobile data downloads (issue 28): one file, one number
 * per journey, each with its reason. `npm run build` (web) ends with `scripts/budget.ts`, which sums
 * the gzip size (level 9) of every file a journey needs in the build it just made and fails the
 * build when a sum passes its limit. Bytes, not timings: the same build always gives the same sums.
 *
 * What a journey needs is read from the build itself: the largest pre-rendered variant of the page's
 * document, the files that document references (scripts, preloads, stylesheets, the icon) and their
 * static imports in Vite's manifest, then the modules the journey loads afterwards (listed below,
 * with their static imports and stylesheets). `web/e2e/delivery.e2e.test.ts` checks in Chromium that
 * those lists are complete: every script a real login fetches is counted here.
 *
 * Raise a limit only knowingly: every KiB is paid by every visitor, at 750 kbit/s ≈ 11 ms, and in
 * pesos per megabyte.
 */

export interface Budget {
  /** The most the journey may weigh, gzip-compressed, in KiB (1024 bytes). */
  limitKiB: number;
  /** Why this number. */
  reason: string;
}

export const SIZE_BUDGET = {
  landingCold: {
    limitKiB: 12,
    reason:
      'The landing page (/) with an empty cache: the pre-rendered document with its own CSS inline ' +
      'and the boot script (src/boot.ts), 10.0 KiB gzip when set (159.8 KiB before issue 28, with ' +
      'the whole app), 10.7 KiB since the boot script also sends /login early and warms it up, ' +
      '11.3 KiB with the first tap served before the app and kept before the boot script (issue 32), ' +
      "10.8 KiB once /login's part moved to its own script (src/bootLogin.ts); " +
      '~12 % room for texts, none for a script that would come back to the first view. The issue ' +
      'asks ≤ 100 KiB on the wire for every cold public page.',
  },
  loginCold: {
    limitKiB: 100,
    reason:
      '/login with an empty cache, read but not used: the document, the boot script and what the boot ' +
      'script fetches once the page is idle (LOGIN_WARM_KIB below), ~92 KiB gzip when set. The ' +
      'issue asks ≤ 100 KiB on the wire for every cold public page; gzip is larger than the Brotli ' +
      'on the wire, so this holds with room for headers.',
  },
  loginToDashboard: {
    limitKiB: 188,
    reason:
      '/login with an empty cache, the application and the dashboard home it fetches while the ' +
      'customer types, then the home: 176.7 KiB gzip when set (240.2 KiB before issue 28; 211.5 KiB ' +
      'before zod left this path: the login, the home and the push socket check answers against the ' +
      'contracts as JSON Schema, src/api/shape.ts; 178.0 KiB once React was split from the router for ' +
      "/login's warm-up; 180.6 → 184.0 KiB when the home became the customer's status, issue 32: a " +
      'card per peer with expiry, data, QR and Descargar, its QR dialog and the purchase follower ' +
      'fetched only when used); ~2 % room. The issue asks ≤ 200 KiB on the wire ' +
      'for the whole first visit (Brotli, ~10 % smaller than gzip; headers and API answers come on top).',
  },
} satisfies Record<string, Budget>;

/**
 * How much of the application /login fetches (without running it) once it is painted and idle, in
 * KiB gzip (src/boot.ts, `data-warm`, chosen by scripts/prerender.ts: the largest chunks that fit).
 * A customer whose password manager fills the form and sends it at once (issue 28: 5.7 s to the
 * home when everything came after the click) then waits for ~85 KiB less; a visitor who only
 * reads /login pays it, within the page's 100 KiB (`loginCold`).
 */
export const LOGIN_WARM_KIB = 85;

/**
 * The modules (keys of Vite's manifest: source paths relative to `web/`) a journey loads after its
 * document's own files, in the order the app asks for them.
 */
export const JOURNEY_MODULES: Record<keyof typeof SIZE_BUDGET, string[]> = {
  landingCold: [],
  loginCold: [],
  loginToDashboard: [
    // The application (with every public page), which /login loads when the customer starts
    // typing (src/boot.ts)…
    'index.html',
    // …and, with it, the dashboard home (what the boot script prefetches there).
    // The push websocket's layout around the dashboard (it checks messages without zod: src/api/shape.ts).
    'src/routes/RealtimeLayout.tsx',
    'src/routes/dashboard/DashboardLayout.tsx',
    'src/routes/dashboard/Home.tsx',
  ],
};

/** The page each journey starts on (a path the pre-render serves). */
export const JOURNEY_PAGE: Record<keyof typeof SIZE_BUDGET, string> = {
  landingCold: '/',
  loginCold: '/login',
  loginToDashboard: '/login',
};
