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
    limitKiB: 165,
    reason:
      'The landing page (/) with an empty cache: 159.8 KiB gzip when this budget was set, with the ' +
      'whole app (React, the router, every public page) hydrating it; ~3 % room so it cannot grow ' +
      'unnoticed. The issue asks ≤ 100 KiB on the wire (Brotli, ~10 % smaller than gzip).',
  },
  loginToDashboard: {
    limitKiB: 240,
    reason:
      '/login with an empty cache, then signing in and the dashboard home: 234.0 KiB gzip when this ' +
      'budget was set; ~3 % room. The issue asks ≤ 200 KiB for the whole first visit on the wire ' +
      '(Brotli, headers and API answers included).',
  },
} satisfies Record<string, Budget>;

/**
 * The modules (keys of Vite's manifest: source paths relative to `web/`) a journey loads after its
 * document's own files, in the order the app asks for them.
 */
export const JOURNEY_MODULES: Record<keyof typeof SIZE_BUDGET, string[]> = {
  landingCold: [],
  loginToDashboard: [
    // The push websocket's layout around the dashboard, with the API schemas it checks messages with.
    'src/routes/RealtimeLayout.tsx',
    'src/routes/dashboard/DashboardLayout.tsx',
    'src/routes/dashboard/Home.tsx',
  ],
};

/** The page each journey starts on (a path the pre-render serves). */
export const JOURNEY_PAGE: Record<keyof typeof SIZE_BUDGET, string> = {
  landingCold: '/',
  loginToDashboard: '/login',
};
