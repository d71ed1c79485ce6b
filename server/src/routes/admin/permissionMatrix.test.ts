/**
 * The permission matrix, checked three ways so code, docs and behaviour cannot drift:
 * 1. docs/permissions.md's matrix table equals ROLE_PERMISSIONS (packages/contracts/src/admin.ts);
 * 2. docs/permissions.md's route list equals the routes the app registers, with their permissions;
 * 3. every /api/admin route (read from the app's own route table, so routes added later are
 *    covered without touching this file) is called as every role, as a customer and without a
 *    token: 401 without a manager token, 403 with the role's Spanish message where the matrix
 *    refuses, and admitted (neither 401 nor 403) where it allows. Bodies and ids are harmless
 *    (`{}`, id 999999): a 400 or 404 counts as admitted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can, PERMISSIONS, ROLE_PERMISSIONS, ROLES, type Permission, type Role } from '@vpn/contracts';
import { realmOfPath, roleForbidden } from '../../plugins/auth.ts';
import {
  bearer,
  createCustomer,
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

function collect(route: RouteOptions): void {
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

function routeSection(): string {
  return routes.map((r) => `| \`${key(r)}\` | \`${r.permission}\` |`).join('\n');
}

describe('permission matrix', () => {
  it('is documented in docs/permissions.md exactly as ROLE_PERMISSIONS says', () => {
    const full = readFileSync(DOC, 'utf8');
    const doc = full.slice(full.indexOf('## Matrix'), full.indexOf('## Routes'));
    const header = doc
      .split('\n')
      .find((line) => line.startsWith('| permission |'))
      ?.split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    expect(header?.slice(2)).toEqual([...ROLES]);
    const documented = Object.fromEntries(
      tableRows(doc, /^`[a-z.]+`$/).map((cells) => [
        cells[0]!.replaceAll('`', ''),
        Object.fromEntries(ROLES.map((role, i) => [role, cells[i + 2] === '✓'])),
      ]),
    );
    const code = Object.fromEntries(
      PERMISSIONS.map((p) => [
        p,
        Object.fromEntries(ROLES.map((role) => [role, ROLE_PERMISSIONS[role].has(p)])),
      ]),
    );
    expect(documented).toEqual(code);
  });

  it('lists every admin route with its permission in docs/permissions.md', () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf('<!-- routes:start -->');
    const end = doc.indexOf('<!-- routes:end -->');
    expect(start).toBeGreaterThan(0);
    if (process.env.UPDATE_PERMISSIONS_DOC) {
      const table = `| route | permission |\n| --- | --- |\n${routeSection()}\n`;
      writeFileSync(DOC, `${doc.slice(0, start)}<!-- routes:start -->\n${table}${doc.slice(end)}`);
      return;
    }
    const documented = tableRows(doc.slice(start, end), /^`(GET|POST|PUT|PATCH|DELETE) /).map(
      ([route, permission]) => `${route!.replaceAll('`', '')} → ${permission!.replaceAll('`', '')}`,
    );
    expect(documented, 'regenerate with UPDATE_PERMISSIONS_DOC=1 (see docs/permissions.md)').toEqual(
      routes.map((r) => `${key(r)} → ${r.permission}`),
    );
  });

  it('answers every admin route × every role, a customer and no token as the matrix says', async () => {
    // The route table is read from the app: a count this low means the collection broke.
    expect(routes.length).toBeGreaterThan(15);
    for (const r of routes) expect([...PERMISSIONS, 'public'], key(r)).toContain(r.permission);

    const tokens = Object.fromEntries(
      await Promise.all(ROLES.map(async (role) => [role, await managerToken(t, role)] as const)),
    ) as Record<Role, string>;
    const customer = await createCustomer(t);
    const customerToken = (await login(t, customer.username, customer.password)).access;

    const mismatches: string[] = [];
    const guarded = routes.filter((r) => r.permission !== 'public');
    for (const r of guarded) {
      const url = r.url.replace(/:[A-Za-z_]+/g, '999999');
      const call = (token?: string) =>
        t.app.inject({
          method: r.method as 'GET',
          url,
          headers: token ? bearer(token) : {},
          ...(r.method === 'GET' ? {} : { payload: {} }),
        });
      const expectStatus = async (
        who: string,
        token: string | undefined,
        check: (status: number, message: string) => string | null,
      ) => {
        const res = await call(token);
        const problem = check(res.statusCode, (res.json() as { message?: string }).message ?? '');
        if (problem) mismatches.push(`${key(r)} [${r.permission}] as ${who}: ${problem}`);
      };
      const refused = (s: number) => (s === 401 ? null : `expected 401, got ${s}`);
      await expectStatus('no token', undefined, refused);
      await expectStatus('customer', customerToken, refused);
      for (const role of ROLES) {
        const allowed = can(role, r.permission as Permission);
        await expectStatus(role, tokens[role], (status, message) => {
          if (allowed)
            return status === 401 || status === 403 ? `expected admitted, got ${status} ${message}` : null;
          if (status !== 403) return `expected 403, got ${status}`;
          return message === roleForbidden(role) ? null : `expected the role message, got '${message}'`;
        });
      }
    }
    expect(mismatches).toEqual([]);
    // Something was actually refused and admitted (a matrix of all-✓ or all-— proves nothing).
    expect(guarded.some((r) => !can('support', r.permission as Permission))).toBe(true);
    expect(guarded.some((r) => can('support', r.permission as Permission))).toBe(true);
    // Six calls per route, each verifying a token against the database: minutes at most.
  }, 300_000);
});
