import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managers } from '../../db/schema.ts';
import {
  bearer,
  createManager,
  createTestApp,
  listen,
  managerToken,
  reauthHeader,
  type TestApp,
} from '../../../test/helpers.ts';
import { PushClient } from '../../../test/protocolAgent.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
let a: TestApp;
/** A second instance on the same database (and, on PGlite, the same in-process bus). */
let b: TestApp;
let owner: string;
let ownerId: number;
/** The owner's fresh confirmation (X-Reauth) for role changes and new owners (reauth.test.ts). */
let ownerProof: { 'x-reauth': string };

async function loginManager(t: TestApp, username: string, password: string, totp?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/admin/login',
    payload: { username, password, remember: true, ...(totp === undefined ? {} : { totp }) },
  });
}

beforeAll(async () => {
  a = await createTestApp({ scheduler: false });
  b = await createTestApp({
    scheduler: false,
    database: a.database,
    bus: onPostgres ? undefined : a.ctx.bus,
  });
  const m = await createManager(a, 'duena', 'clave-de-duena', 'owner');
  ownerId = m.id;
  owner = (await loginManager(a, m.username, m.password)).json().access;
  ownerProof = await reauthHeader(a, owner, m.password);
});
afterAll(async () => {
  await b.close();
  await a.close();
});

/**
 * Access tokens carry their issue time in whole seconds and a revocation voids tokens issued before
 * its second (services/identity/sessions.ts): a token minted in the very second of the revocation survives
 * it. Tests that revoke a token they just minted start the revocation in the next second.
 */
const nextSecond = () => new Promise((r) => setTimeout(r, 1001 - (Date.now() % 1000)));

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token = owner, payload?: object) =>
  a.app.inject({
    method,
    url,
    headers: { ...bearer(token), ...(token === owner ? ownerProof : {}) },
    ...(payload ? { payload } : {}),
  });

describe('managers API', () => {
  it('creates a manager who can then sign in; the password is stored hashed and never returned', async () => {
    const res = await api('POST', '/api/admin/managers', owner, {
      username: 'soporte1',
      password: 'clave-soporte-1',
      role: 'support',
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: expect.any(Number),
      username: 'soporte1',
      role: 'support',
      disabled: false,
      totp_enabled: false,
      created: expect.any(String),
    });
    expect(JSON.stringify(created)).not.toContain('clave');
    const [row] = await a.ctx.db.select().from(managers).where(eq(managers.id, created.id));
    expect(row!.passwordHash).toMatch(/^scrypt\$/);
    const login = await loginManager(a, 'soporte1', 'clave-soporte-1');
    expect(login.statusCode).toBe(200);
    const me = await api('GET', '/api/admin/verify-token', login.json().access);
    expect(me.json()).toMatchObject({ username: 'soporte1', role: 'support' });
  });

  it('refuses bad input with Spanish messages and changes nothing', async () => {
    const before = (await api('GET', '/api/admin/managers?page_size=100')).json().count;
    const cases = [
      { username: 'x', password: 'clave-larga-1', role: 'support' },
      { username: 'valido', password: 'corta', role: 'support' },
      { username: 'valido', password: 'clave-larga-1', role: 'dios' },
    ];
    for (const payload of cases) {
      const res = await api('POST', '/api/admin/managers', owner, payload);
      expect(res.statusCode).toBe(400);
      expect(Object.values(res.json().fields ?? {}).join(' ')).toMatch(
        /usuario debe tener|al menos 8 caracteres|Rol no válido/,
      );
    }
    const dup = await api('POST', '/api/admin/managers', owner, {
      username: 'SOPORTE1',
      password: 'clave-larga-1',
      role: 'finance',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe('Ya existe un gestor con ese usuario');
    const empty = await api('PATCH', `/api/admin/managers/${ownerId}`, owner, {});
    expect(empty.statusCode).toBe(400);
    expect((await api('GET', '/api/admin/managers?page_size=100')).json().count).toBe(before);
  });

  it('lists managers searched by username and filtered by role, paginated', async () => {
    for (const [username, role] of [
      ['finanzas-ana', 'finance'],
      ['finanzas-luis', 'finance'],
      ['ops-pepe', 'operations'],
    ] as const)
      await api('POST', '/api/admin/managers', owner, { username, password: 'clave-larga-1', role });
    const finance = (await api('GET', '/api/admin/managers?role=finance')).json();
    expect(finance.results.map((m: { username: string }) => m.username)).toEqual([
      'finanzas-ana',
      'finanzas-luis',
    ]);
    const search = (await api('GET', '/api/admin/managers?q=PEPE')).json();
    expect(search).toMatchObject({ count: 1, results: [{ username: 'ops-pepe', role: 'operations' }] });
    const page = (await api('GET', '/api/admin/managers?page=2&page_size=2')).json();
    expect(page.results).toHaveLength(2);
    expect(page.count).toBeGreaterThanOrEqual(5);
  });

  it('keeps the last active owner: cannot be disabled, demoted or deleted (409)', async () => {
    const lone = await createTestApp({ scheduler: false });
    try {
      const first = await createManager(lone, 'unica', 'clave-de-unica', 'owner');
      const firstToken = (await loginManager(lone, first.username, first.password)).json().access;
      const second = await createManager(lone, 'segunda', 'clave-de-segunda', 'owner');
      const secondToken = (await loginManager(lone, second.username, second.password)).json().access;
      const proofs = new Map([
        [firstToken, await reauthHeader(lone, firstToken, first.password)],
        [secondToken, await reauthHeader(lone, secondToken, second.password)],
      ]);
      const call = (token: string, method: 'PATCH' | 'DELETE', id: number, payload?: object) =>
        lone.app.inject({
          method,
          url: `/api/admin/managers/${id}`,
          headers: { ...bearer(token), ...proofs.get(token) },
          payload,
        });

      // Two owners: one may demote the other…
      await nextSecond();
      expect((await call(firstToken, 'PATCH', second.id, { role: 'finance' })).statusCode).toBe(200);
      // …and now the first is the last active owner.
      const messages = new Set<string>();
      for (const [method, payload] of [
        ['PATCH', { role: 'support' }],
        ['PATCH', { disabled: true }],
        ['DELETE', undefined],
      ] as const) {
        // Only owners manage managers, so the last one can only act on herself.
        const res = await call(firstToken, method, first.id, payload);
        expect(res.statusCode).toBe(409);
        messages.add(res.json().message);
      }
      expect(messages).toEqual(
        new Set([
          'No se puede deshabilitar, degradar ni eliminar al último propietario activo. Cree o active otro propietario antes.',
          'No puede deshabilitar su propia cuenta de gestor',
          'No puede eliminar su propia cuenta de gestor',
        ]),
      );
      const [row] = await lone.ctx.db.select().from(managers).where(eq(managers.id, first.id));
      expect(row).toMatchObject({ role: 'owner', active: true });
      // The demoted second owner has lost the permission (her session was revoked anyway).
      expect((await call(secondToken, 'PATCH', first.id, { role: 'support' })).statusCode).toBe(401);
    } finally {
      await lone.close();
    }
  });

  it('keeps one owner when two owners demote each other at the same time', async () => {
    const lone = await createTestApp({ scheduler: false });
    try {
      const x = await createManager(lone, 'equis', 'clave-de-equis', 'owner');
      const y = await createManager(lone, 'ygriega', 'clave-de-ygriega', 'owner');
      const tx = (await loginManager(lone, x.username, x.password)).json().access;
      const ty = (await loginManager(lone, y.username, y.password)).json().access;
      const px = await reauthHeader(lone, tx, x.password);
      const py = await reauthHeader(lone, ty, y.password);
      const results = await Promise.all([
        lone.app.inject({
          method: 'PATCH',
          url: `/api/admin/managers/${y.id}`,
          headers: { ...bearer(tx), ...px },
          payload: { role: 'support' },
        }),
        lone.app.inject({
          method: 'PATCH',
          url: `/api/admin/managers/${x.id}`,
          headers: { ...bearer(ty), ...py },
          payload: { role: 'support' },
        }),
      ]);
      const owners = await lone.ctx.db.select().from(managers).where(eq(managers.role, 'owner'));
      expect(owners).toHaveLength(1);
      // One wins. The other is refused either as the last owner (409), or, when the winner's
      // revocation of the demoted owner's sessions committed before the loser's token was checked,
      // as signed out (401): both leave one owner.
      const [won, lost] = results.map((r) => r.statusCode).sort();
      expect(won).toBe(200);
      expect([401, 409]).toContain(lost);
    } finally {
      await lone.close();
    }
  });

  it('disabling a manager ends their sessions at once and closes their console sockets on every instance', async () => {
    const m = await createManager(a, 'ops-dis', 'clave-ops-dis', 'operations');
    const pair = (await loginManager(a, m.username, m.password)).json();
    const socket = await PushClient.connect(await listen(b), pair.access);
    expect((await api('GET', '/api/admin/servers', pair.access)).statusCode).toBe(200);
    await nextSecond();

    const res = await api('PATCH', `/api/admin/managers/${m.id}`, owner, { disabled: true });
    expect(res.statusCode).toBe(200);
    expect(res.json().disabled).toBe(true);
    expect(await socket.waitClosed()).toBe(4401);
    expect((await api('GET', '/api/admin/servers', pair.access)).statusCode).toBe(401);
    const refresh = await b.app.inject({
      method: 'POST',
      url: '/api/refresh-token',
      payload: { refresh: pair.refresh },
    });
    expect(refresh.statusCode).toBe(401);
    const again = await loginManager(a, m.username, m.password);
    expect(again.statusCode).toBe(403);
    expect(again.json().message).toBe('La cuenta está deshabilitada');

    // Enabled again, they sign in anew.
    await api('PATCH', `/api/admin/managers/${m.id}`, owner, { disabled: false });
    expect((await loginManager(a, m.username, m.password)).statusCode).toBe(200);
  });

  it('changing a role revokes the sessions; the new login carries the new role', async () => {
    const m = await createManager(a, 'cambia-rol', 'clave-cambia-rol', 'support');
    const pair = (await loginManager(a, m.username, m.password)).json();
    expect((await api('GET', '/api/admin/customers', pair.access)).statusCode).not.toBe(401);
    await nextSecond();
    const res = await api('PATCH', `/api/admin/managers/${m.id}`, owner, { role: 'finance' });
    expect(res.json().role).toBe('finance');
    expect((await api('GET', '/api/admin/verify-token', pair.access)).statusCode).toBe(401);
    const fresh = (await loginManager(a, m.username, m.password)).json().access;
    expect((await api('GET', '/api/admin/verify-token', fresh)).json().role).toBe('finance');
    // A change that is neither role, state nor password leaves the sessions alone.
    await api('PATCH', `/api/admin/managers/${m.id}`, owner, { username: 'cambia-rol-2' });
    expect((await api('GET', '/api/admin/verify-token', fresh)).statusCode).toBe(200);
  });

  it('deletes a manager (their tokens die with them) but not oneself', async () => {
    const m = await createManager(a, 'se-va', 'clave-se-va', 'finance');
    const token = (await loginManager(a, m.username, m.password)).json().access;
    await nextSecond();
    const self = await api('DELETE', `/api/admin/managers/${ownerId}`);
    expect(self.statusCode).toBe(409);
    expect(self.json().message).toBe('No puede eliminar su propia cuenta de gestor');
    const res = await api('DELETE', `/api/admin/managers/${m.id}`);
    expect(res.json()).toEqual({ message: 'Gestor eliminado correctamente' });
    expect((await api('GET', '/api/admin/verify-token', token)).statusCode).toBe(401);
    expect((await api('DELETE', `/api/admin/managers/${m.id}`)).statusCode).toBe(404);
  });

  it('audits every change with before/after (password hidden) and pushes it to audit readers only', async () => {
    const base = await listen(a);
    const ownerSocket = await PushClient.connect(base, owner);
    const supportSocket = await PushClient.connect(base, await managerToken(a, 'support'));
    const m = (
      await api('POST', '/api/admin/managers', owner, {
        username: 'auditado',
        password: 'clave-auditado',
        role: 'support',
      })
    ).json();
    await api('PATCH', `/api/admin/managers/${m.id}`, owner, {
      role: 'operations',
      password: 'otra-clave-secreta',
    });
    const log = (await api('GET', `/api/admin/audit?target_type=manager&target_id=${m.id}`)).json();
    expect(log.count).toBe(2);
    const [update, create] = log.results;
    expect(update).toMatchObject({
      manager: 'duena',
      manager_id: ownerId,
      action: 'manager.update',
      target_type: 'manager',
      target_id: String(m.id),
      changes: {
        role: { before: 'support', after: 'operations' },
        password: { before: '[oculto]', after: '[oculto]' },
      },
    });
    expect(create.changes).toMatchObject({
      username: { before: null, after: 'auditado' },
      role: { before: null, after: 'support' },
      password: { before: null, after: '[oculto]' },
    });
    expect(JSON.stringify(log)).not.toContain('clave');
    const pushed = await ownerSocket.waitFor('admin_audit', (p) => p.entry_id === update.id);
    expect(pushed).toEqual({ type: 'admin_audit', entry_id: update.id });
    await new Promise((r) => setTimeout(r, 100));
    expect(supportSocket.messages.filter((p) => p.type === 'admin_audit')).toEqual([]);
    ownerSocket.close();
    supportSocket.close();
  });

  it('is for owners only: other roles get 403 with their role named', async () => {
    for (const role of ['operations', 'support', 'finance'] as const) {
      const res = await api('GET', '/api/admin/managers', await managerToken(a, role));
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toMatch(/^Su rol \((Operaciones|Soporte|Finanzas)\) no tiene permiso/);
    }
  });
});
