import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createCustomer,
  createManager,
  createTestApp,
  listen,
  reauthHeader,
  login,
  type TestApp,
} from '../../../test/helpers.ts';
import { PushClient } from '../../../test/protocolAgent.ts';
import { auditedTransaction } from '../../services/site/audit.ts';

let t: TestApp;
let ana: { id: number; token: string };
let luis: { id: number; token: string };

async function signIn(username: string) {
  const m = await createManager(t, username, 'clave-de-gestor', 'owner');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/login',
    payload: { username, password: 'clave-de-gestor' },
  });
  return { id: m.id, token: res.json().access as string };
}

const call = (
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  payload?: object,
  headers: Record<string, string> = {},
) =>
  t.app.inject({ method, url, headers: { ...bearer(token), ...headers }, ...(payload ? { payload } : {}) });
/** Publishing a client-app version asks for the password again (X-Reauth). */
const confirmed = (token: string) => reauthHeader(t, token, 'clave-de-gestor');
const audit = async (query = '') => (await call(ana.token, 'GET', `/api/admin/audit${query}`)).json();

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  ana = await signIn('ana-audit');
  luis = await signIn('luis-audit');
});
afterAll(() => t.close());

describe('audit log', () => {
  it('records who, what, which target and each field before and after, newest first', async () => {
    const ad = (
      await call(ana.token, 'POST', '/api/admin/advertisements', { name: 'Corte', message: 'Mañana a las 3' })
    ).json();
    await call(luis.token, 'DELETE', `/api/admin/advertisements/${ad.id}`);
    await call(
      luis.token,
      'POST',
      '/api/admin/agent',
      { version: '2.1.0', url: 'https://example.com/app' },
      await confirmed(luis.token),
    );

    const log = await audit();
    expect(log.count).toBe(3);
    expect(log.results.map((e: { action: string; manager: string }) => [e.action, e.manager])).toEqual([
      ['client_version.create', 'luis-audit'],
      ['announcement.withdraw', 'luis-audit'],
      ['announcement.create', 'ana-audit'],
    ]);
    expect(log.results[1]).toMatchObject({
      manager_id: luis.id,
      target_type: 'announcement',
      target_id: String(ad.id),
      changes: { active: { before: true, after: false } },
      extra: { name: 'Corte' },
      reason: null,
      ip: expect.any(String),
    });
    expect(log.results[2].changes).toEqual({
      name: { before: null, after: 'Corte' },
      message: { before: null, after: 'Mañana a las 3' },
    });
    expect(Date.parse(log.results[0].created)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('writes nothing when the change fails', async () => {
    const before = (await audit()).count;
    expect((await call(ana.token, 'DELETE', '/api/admin/advertisements/999999')).statusCode).toBe(404);
    expect(
      (
        await call(
          ana.token,
          'POST',
          '/api/admin/agent',
          { version: '', url: 'x' },
          await confirmed(ana.token),
        )
      ).statusCode,
    ).toBe(400);
    expect((await audit()).count).toBe(before);
  });

  it('announces an entry live once its change commits, and never a rolled-back one', async () => {
    const tail = await PushClient.connect(await listen(t), ana.token);
    // A change that wrote its entry and then failed: both roll back, nothing is announced.
    const before = (await audit()).count;
    await expect(
      auditedTransaction(t.ctx.db, { id: ana.id, username: 'ana-audit' }, async (_tx, write) => {
        await write({ action: 'plan.update', targetType: 'plan', targetId: 1 });
        throw new Error('falla después de auditar');
      }),
    ).rejects.toThrow('falla después de auditar');
    expect((await audit()).count).toBe(before);
    const headers = await confirmed(ana.token);
    const ok = await call(
      ana.token,
      'POST',
      '/api/admin/agent',
      { version: '2.2.0', url: 'https://example.com/b' },
      headers,
    );
    expect(ok.statusCode).toBe(201);
    const [newest] = (await audit()).results;
    expect(newest.action).toBe('client_version.create');
    await tail.waitFor('admin_audit', (m) => m.entry_id === newest.id);
    await new Promise((r) => setTimeout(r, 100));
    expect(tail.messages.filter((m) => m.type === 'admin_audit')).toEqual([
      { type: 'admin_audit', entry_id: newest.id },
    ]);
    tail.close();
    // Leaves the log as the other cases expect it.
    await t.ctx.db.execute(sql`delete from audit_log where id = ${newest.id}`);
  });

  it('filters by manager and by target, searches and pages', async () => {
    const byLuis = await audit(`?manager=${luis.id}`);
    expect(byLuis.results.every((e: { manager: string }) => e.manager === 'luis-audit')).toBe(true);
    expect(byLuis.count).toBe(2);
    const announcements = await audit('?target_type=announcement');
    expect(announcements.count).toBe(2);
    const one = announcements.results[0].target_id;
    expect((await audit(`?target_type=announcement&target_id=${one}`)).count).toBe(2);
    expect((await audit('?target_type=announcement&target_id=999999')).count).toBe(0);
    const search = await audit('?q=CLIENT_VERSION');
    expect(search.results.map((e: { action: string }) => e.action)).toEqual(['client_version.create']);
    expect((await audit('?q=ana-aud')).count).toBe(1);
    const page = await audit('?page=2&page_size=2');
    expect(page.count).toBe(3);
    expect(page.results.map((e: { action: string }) => e.action)).toEqual(['announcement.create']);
  });

  it('answers a bad filter with a Spanish message', async () => {
    const res = await call(ana.token, 'GET', '/api/admin/audit?manager=abc&page_size=500');
    expect(res.statusCode).toBe(400);
    expect(res.json().fields).toMatchObject({
      manager: 'Gestor no válido',
      page_size: 'El tamaño de página debe estar entre 1 y 100',
    });
  });

  it('is closed to customers and to roles without audit.read', async () => {
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    expect((await call(access, 'GET', '/api/admin/audit')).statusCode).toBe(401);
    await createManager(t, 'soporte-audit', 'clave-de-gestor', 'support');
    const support = (
      await t.app.inject({
        method: 'POST',
        url: '/api/admin/login',
        payload: { username: 'soporte-audit', password: 'clave-de-gestor' },
      })
    ).json().access;
    const res = await call(support, 'GET', '/api/admin/audit');
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Su rol (Soporte) no tiene permiso para realizar esta acción');
  });
});
