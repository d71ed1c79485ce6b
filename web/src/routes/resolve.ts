import { matchRoutes } from 'react-router';
import type { RouteObject } from 'react-router';

/** Loads one route's `lazy` module and makes it an ordinary route (as React Router would). */
async function resolveRoute(route: RouteObject): Promise<void> {
  if (typeof route.lazy !== 'function') return;
  const resolved = await route.lazy();
  Object.assign(route, { ...resolved, lazy: undefined });
}

/**
 * Loads the lazy routes `location` matches, so the router's first render shows the page itself
 * rather than a fallback: the browser does it before hydrating the pre-rendered HTML.
 */
export async function resolveMatches(
  routes: RouteObject[],
  location: string | Partial<Location>,
): Promise<void> {
  const matches = matchRoutes(routes, location) ?? [];
  await Promise.all(matches.map(({ route }) => resolveRoute(route)));
}

/** Loads every lazy route of the table (the pre-render and the component tests, which want no waits). */
export async function resolveAll(routes: RouteObject[]): Promise<void> {
  await Promise.all(
    routes.map(async (route) => {
      await resolveRoute(route);
      if (route.children) await resolveAll(route.children);
    }),
  );
}
