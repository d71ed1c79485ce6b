/**
 * The permission matrix. The expectation is docs/permissions.md, written by hand — never
 * ROLE_PERMISSIONS or can(), the code that enforces access:
 * 1. the page's matrix table is parsed and compared with ROLE_PERMISSIONS (packages/contracts);
 * 2. the page's route table is parsed and compared with the routes the app registers and the
 *    permission each declares (a new route fails here until a person writes its row);
 * 3. every /api/admin route is called as every role, as a customer and without a token, and the
 *    answer must be what the page's two tables say: 401 without a manager token, 403 with the
 *    role's Spanish message where the page's ✓ is missing, and admitted where it is there. Bodies
 *    and ids are harmless (`{}`, id 999999): a 400 or 404 counts as admitted, a 5xx always fails;
 * 4. the public routes a manager's console uses (sign-in, refresh, sign-out) answer without a
 *    token, for a manager of every role.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msg, PERMISSIONS, ROLE_PERMISSIONS, ROLES, type Permission, type Role } from '@vpn/contracts';
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

interface AdminRoute {
  method: string;
  url: string;
  /** The permission, or 'public'. */
  permission: Permission | 'public';
}

const routes: AdminRoute[] = [];
let t: TestApp;

/** Routes outside /api/admin that a manager's console calls (docs/permissions.md, "Public routes"). */
const sessionRoutes: string[] = [];

function collect(route: RouteOptions): void {
  if (route.url === '/api/refresh-token' || route.url === '/api/logout')
    for (const m of [route.method].flat()) if (m !== 'HEAD') sessionRoutes.push(`${m} ${route.url}`);
  if (realmOfPath(route.url) !== 'manager') return;
  const config = (route.config ?? {}) as { auth?: string; permission?: Permission };
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  for (const method of methods) {
    // Fastify adds a HEAD twin to every GET; it is the same route.
    if (method === 'HEAD') continue;
    routes.push({
      method,
      url: route.url,
      permission: config.auth === 'public' ? 'public' : (config.permission as Permission),
    });
  }
}

const key = (r: AdminRoute) => `${r.method} ${r.url}`;

beforeAll(async () => {
  t = await createTestApp({ scheduler: false, onRoute: collect });
  routes.sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method));
});
afterAll(() => t.close());

/** The rows of a markdown table whose first cell is back-quoted, as arrays of trimmed cells. */
function tableRows(markdown: string, first: RegExp): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
    .filter((cells) => first.test(cells[0] ?? ''));
}

/** The page's matrix: for each permission, the roles with a ✓. */
function documentedMatrix(): Record<string, Record<Role, boolean>> {
  const full = readFileSync(DOC, 'utf8');
  const doc = full.slice(full.indexOf('## Matrix'), full.indexOf('## Routes'));
  const header = doc
    .split('\n')
    .find((line) => line.startsWith('| permission |'))
    ?.split('|')
    .slice(1, -1)
    .map((c) => c.trim());
  expect(header?.slice(2)).toEqual([...ROLES]);
  return Object.fromEntries(
    tableRows(doc, /^`[a-z.]+`$/).map((cells) => [
      cells[0]!.replaceAll('`', ''),
      Object.fromEntries(ROLES.map((role, i) => [role, cells[i + 2] === '✓'])) as Record<Role, boolean>,
    ]),
  );
}

/** The page's route table between two markers: `METHOD /path` → permission (or `public`). */
function documentedRoutes(startMarker: string, endMarker: string): Map<string, string> {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(startMarker);
  const end = doc.indexOf(endMarker);
  expect(start, startMarker).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return new Map(
    tableRows(doc.slice(start, end), /^`(GET|POST|PUT|PATCH|DELETE) /).map(([route, permission]) => [
      route!.replaceAll('`', ''),
      permission!.replaceAll('`', ''),
    ]),
  );
}

describe('permission matrix', () => {
  it('is written in docs/permissions.md as ROLE_PERMISSIONS says', () => {
    const code = Object.fromEntries(
      PERMISSIONS.map((p) => [
        p,
        Object.fromEntries(ROLES.map((role) => [role, ROLE_PERMISSIONS[role].has(p)])),
      ]),
    );
    expect(documentedMatrix()).toEqual(code);
  });

  it('lists in docs/permissions.md every admin route the app registers, with the permission it declares', () => {
    const documented = [...documentedRoutes('<!-- routes:start -->', '<!-- routes:end -->')].map(
      ([route, permission]) => `${route} → ${permission}`,
    );
    expect(
      [...documented].sort(),
      'a route was added or its permission changed: write its row in docs/permissions.md by hand',
    ).toEqual(routes.map((r) => `${key(r)} → ${r.permission}`).sort());
    // The shared session routes a console uses are still where the page says.
    expect([...documentedRoutes('<!-- public:start -->', '<!-- public:end -->').keys()].sort()).toEqual(
      [...sessionRoutes].sort(),
    );
  });

  it('answers every admin route × every role, a customer and no token as docs/permissions.md says', async () => {
    // The expectation: the page's route table and its matrix, parsed (never can()).
    const matrix = documentedMatrix();
    const permissionOf = documentedRoutes('<!-- routes:start -->', '<!-- routes:end -->');
    expect(permissionOf.size).toBeGreaterThan(40);
    expect(Object.keys(matrix).length).toBeGreaterThan(15);
    const expected = (route: string, role: Role): boolean => {
      const permission = permissionOf.get(route);
      if (!permission) throw new Error(`${route} no está en docs/permissions.md`);
      const row = matrix[permission];
      if (!row) throw new Error(`${route}: el permiso ${permission} no está en la matriz`);
      return row[role];
    };

    const tokens = Object.fromEntries(
      await Promise.all(ROLES.map(async (role) => [role, await managerToken(t, role)] as const)),
    ) as Record<Role, string>;
    const customer = await createCustomer(t);
    const customerToken = (await login(t, customer.username, customer.password)).access;

    const mismatches: string[] = [];
    const guarded = [...permissionOf].filter(([, permission]) => permission !== 'public');
    let admitted = 0;
    let refused = 0;
    for (const [route] of guarded) {
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
        if (problem) mismatches.push(`${route} [${permissionOf.get(route)}] as ${who}: ${problem}`);
      };
      await check('no token', undefined, 401);
      await check('customer', customerToken, 401);
      for (const role of ROLES) {
        const allowed = expected(route, role);
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
    const publicRoutes = [
      ...[...documentedRoutes('<!-- routes:start -->', '<!-- routes:end -->')]
        .filter(([, permission]) => permission === 'public')
        .map(([route]) => route),
      ...documentedRoutes('<!-- public:start -->', '<!-- public:end -->').keys(),
    ];
    expect(publicRoutes.sort()).toEqual([
      'POST /api/admin/login',
      'POST /api/logout',
      'POST /api/refresh-token',
    ]);
    // Without a token and with an empty body: the route's own refusal, never the gate's 401.
    for (const route of publicRoutes) {
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
