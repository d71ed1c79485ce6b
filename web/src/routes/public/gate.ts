import type { PublicSettings } from '../../api/types';

/** Which public page a route is (declared in the route's `handle`), for the gating rules. */
export type PublicPage =
  | 'landing'
  | 'plans'
  | 'login'
  | 'register'
  | 'recovery'
  | 'resetPassword'
  | 'verifyEmail'
  | 'maintenance'
  | 'notFound';

/**
 * Pages reached from an e-mailed link. They obey maintenance but not the landing-off redirect: a
 * link the customer was mailed must open whatever the landing switch says.
 */
const MAILED_LINK_PAGES: ReadonlySet<PublicPage> = new Set(['resetPassword', 'verifyEmail']);

export interface PublicHandle {
  publicPage: PublicPage;
}

/** Where visitors go when the landing is off (and the login page's "home"). */
export function homePath(settings: Pick<PublicSettings, 'show_landing'> | null | undefined): string {
  return settings?.show_landing === false ? '/login' : '/';
}

/**
 * The spec's public gating, as a pure function: where a visitor of `page` must be sent, or null to
 * show the page. (Loading and 503 are handled by the layout before this is asked.)
 *
 * Decision on the spec's clash "with the landing off, any path other than login goes to /login; with
 * the landing on, /login goes to /": read literally, the second half would make the login page
 * unreachable whenever the landing is on (the landing's own "Iniciar sesión" link would bounce back
 * to /). We read it as "with the landing on, the login page offers a way back to /": /login always
 * stays reachable and shows a back-to-landing link only when show_landing is on.
 */
export function publicRedirect(page: PublicPage, settings: PublicSettings): string | null {
  if (settings.maintenance) return page === 'maintenance' ? null : '/maintenance';
  // Spec: leaving /maintenance when maintenance is off goes to / or /login (opening it, too).
  if (page === 'maintenance') return homePath(settings);
  if (page === 'recovery' && !settings.allow_password_recovery) return homePath(settings);
  if (page === 'register' && !settings.allow_registration) return '/login';
  if (!settings.show_landing && page !== 'login' && page !== 'notFound' && !MAILED_LINK_PAGES.has(page)) {
    return '/login';
  }
  return null;
}
