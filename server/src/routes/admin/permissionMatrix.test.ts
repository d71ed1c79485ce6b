/**
 * Who may call what. The expectation is docs/permissions.md, written by hand for people — never
 * ROLE_PERMISSIONS, a route's config.permission or can(), the code that enforces access:
 * 1. the page's tables (one row per /api/admin route, one column per role, ✓ or —) are parsed, and
 *    every route the app registers must have exactly one row (a new route fails here until a person
 *    writes who may call it); the public ones are in the page's public table;
 * 2. every row's route is called as every role, as a customer and without a token, and the answer
 *    must be what the row says: 401 without a manager token, 403 with the role's Spanish message
 *    where the row has —, and admitted where it has ✓. Bodies and ids are harmless (`{}`, id
 *    999999): a 400 or 404 counts as admitted, a 5xx always fails;
 * 3. the public routes a manager's console uses (sign-in, refresh, sign-out) answer without a
 *    token, for a manager of every role.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msg, ROLES, type Role } from '@vpn/contracts';
import { realmOfPath, roleForbidden } from '../../plugins/auth.ts';
import {
  bearer,
  createCustomer,
  createManager,
  createTestApp,
  login,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';

const DOC = fileURLToPath(new URL('../../../../docs/permissions.md', import.meta.url));

/** `METHOD /path` of every /api/admin route the app registers, guarded and public apart. */
const registered = { guarded: [] as string[], public: [] as string[] };
let t: TestApp;

function collect(route: RouteOptions): void {
  const url = route.url;
  const shared = url === '/api/refresh-token' || url === '/api/logout';
  if (!shared && realmOfPath(url) !== 'manager') return;
  const config = (route.config ?? {}) as { auth?: string };
  // Fastify adds a HEAD twin to every GET; it is the same route.
  for (const method of [route.method].flat().filter((m) => m !== 'HEAD'))
    (shared || config.auth === 'public' ? registered.public : registered.guarded).push(`${method} ${url}`);
}

beforeAll(async () => {
  t = await createTestApp({ scheduler: false, onRoute: collect });
});
afterAll(() => t.close());

/** The rows of the markdown tables between two markers whose first cell is a back-quoted route. */
function tableRows(startMarker: string, endMarker: string): { header: string[]; cells: string[] }[] {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(startMarker);
  const end = doc.indexOf(endMarker);
  expect(start, startMarker).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  const split = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
  const rows: { header: string[]; cells: string[] }[] = [];
  let header: string[] = [];
  for (const line of doc.slice(start, end).split('\n')) {
    if (/^\|\s*route\s*\|/.test(line)) header = split(line);
    else if (line.startsWith('| `')) rows.push({ header, cells: split(line) });
  }
  return rows;
}

/** The page's route tables: `METHOD /path` → whether each role may call it. */
function documentedRoutes(): Map<string, Record<Role, boolean>> {
  const out = new Map<string, Record<Role, boolean>>();
  for (const { header, cells } of tableRows('<!-- routes:start -->', '<!-- routes:end -->')) {
    const route = cells[0]!.replaceAll('`', '');
    expect(header.slice(2), `the columns of ${route}'s table`).toEqual([...ROLES]);
    const marks = cells.slice(2);
    expect(
      marks.every((m) => m === '✓' || m === '—') && marks.length === ROLES.length,
      `${route}: one ✓ or — per role`,
    ).toBe(true);
    expect(out.has(route), `${route} is written twice`).toBe(false);
    out.set(
      route,
      Object.fromEntries(ROLES.map((role, i) => [role, marks[i] === '✓'])) as Record<Role, boolean>,
    );
  }
  return out;
}

const publicRoutes = () =>
  tableRows('<!-- public:start -->', '<!-- public:end -->').map(({ cells }) => cells[0]!.replaceAll('`', ''));

describe('who may call what (docs/permissions.md)', () => {
  it('has one row for every admin route the app registers, and none for a route it does not', () => {
    expect(
      [...documentedRoutes().keys()].sort(),
      'a route was added or removed: write its row (who may call it) in docs/permissions.md by hand',
    ).toEqual([...registered.guarded].sort());
    expect(publicRoutes().sort()).toEqual([...registered.public].sort());
  });

  it('answers every admin route × every role, a customer and no token as docs/permissions.md says', async () => {
    // The expectation: the page's rows, parsed (never can()).
    const documented = documentedRoutes();
    expect(documented.size).toBeGreaterThan(40);

    const tokens = Object.fromEntries(
      await Promise.all(ROLES.map(async (role) => [role, await managerToken(t, role)] as const)),
    ) as Record<Role, string>;
    const customer = await createCustomer(t);
    const customerToken = (await login(t, customer.username, customer.password)).access;

    const mismatches: string[] = [];
    let admitted = 0;
    let refused = 0;
    for (const [route, allowedFor] of documented) {
      const [method, path] = route.split(' ') as [string, string];
      const url = path.replace(/:[A-Za-z_]+/g, '999999');
      const check = async (who: string, token: string | undefined, want: 'admitted' | 401 | 403) => {
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          headers: token ? bearer(token) : {},
          ...(method === 'GET' ? {} : { payload: {} }),
        });
        const status = res.statusCode;
        // A download (the invoices' CSV) is not JSON; every error answer is.
        const json = String(res.headers['content-type'] ?? '').startsWith('application/json');
        const body = json ? (res.json() as { message?: string; code?: string }) : {};
        const message = body.message ?? '';
        // A sensitive operation past its permission asks for the password again (issue 17, M3):
        // the role was admitted; the fresh confirmation is reauth.test.ts's to check.
        const denied = (status === 401 || status === 403) && body.code !== 'reauth_required';
        const problem =
          status >= 500
            ? `${status} ${message}`
            : want === 'admitted'
              ? denied
                ? `expected admitted, got ${status} ${message}`
                : null
              : status !== want
                ? `expected ${want}, got ${status}`
                : want === 403 && message !== roleForbidden(who as Role)
                  ? `expected the role's message, got '${message}'`
                  : null;
        if (problem) mismatches.push(`${route} as ${who}: ${problem}`);
      };
      await check('no token', undefined, 401);
      await check('customer', customerToken, 401);
      for (const role of ROLES) {
        const allowed = allowedFor[role];
        if (allowed) admitted++;
        else refused++;
        await check(role, tokens[role], allowed ? 'admitted' : 403);
      }
    }
    expect(mismatches).toEqual([]);
    // Both answers were exercised (a page of all-✓ or all-— would prove nothing).
    expect(admitted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  }, 300_000);

  it('lets a manager of every role sign in, refresh and sign out through the public routes, without a token', async () => {
    const routes = publicRoutes();
    expect(routes.sort()).toEqual(['POST /api/admin/login', 'POST /api/logout', 'POST /api/refresh-token']);
    // Without a token and with an empty body: the route's own refusal, never the gate's 401.
    for (const route of routes) {
      const [method, url] = route.split(' ') as [string, string];
      const res = await t.app.inject({ method: method as 'POST', url, payload: {} });
      expect(res.statusCode, route).toBeLessThan(500);
      expect(res.json<{ message: string }>().message, route).not.toBe(msg.unauthorized);
    }
    for (const role of ROLES) {
      const username = `publico-${role}`;
      await createManager(t, username, 'clave-de-gestor', role);
      const signedIn = await t.app.inject({
        method: 'POST',
        url: '/api/admin/login',
        payload: { username, password: 'clave-de-gestor' },
      });
      expect(signedIn.statusCode, role).toBe(200);
      const { access, refresh } = signedIn.json<{ access: string; refresh: string }>();
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/admin/verify-token',
        headers: bearer(access),
      });
      expect(me.json<{ role: string }>().role, role).toBe(role);
      const refreshed = await t.app.inject({
        method: 'POST',
        url: '/api/refresh-token',
        payload: { refresh },
      });
      expect(refreshed.statusCode, role).toBe(200);
      const next = refreshed.json<{ refresh: string }>().refresh;
      const out = await t.app.inject({ method: 'POST', url: '/api/logout', payload: { refresh: next } });
      expect(out.statusCode, role).toBe(200);
      // Signed out: that refresh token no longer renews anything.
      const after = await t.app.inject({
        method: 'POST',
        url: '/api/refresh-token',
        payload: { refresh: next },
      });
      expect(after.statusCode, role).toBe(401);
    }
  });
});
