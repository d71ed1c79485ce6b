/**
 * Issue 34: the audit log in words. Every action the code writes has a sentence (found by reading
 * the sources, so a new action without one fails here), no sentence falls back to the action's
 * code, and the console's list reads names, amounts and fields in words, the raw change beside.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_SENTENCES, PERMISSIONS, type AuditEntry } from '@vpn/contracts';
import { bearer, createServer, createTestApp, managerToken, type TestApp } from '../../../test/helpers.ts';
import { auditInWords, type AuditNames } from './auditWords.ts';

const SRC = join(import.meta.dirname, '../..');

/** Every `.ts` file under server/src but tests. */
function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? sources(join(dir, d.name))
      : d.name.endsWith('.ts') && !d.name.endsWith('.test.ts')
        ? [join(dir, d.name)]
        : [],
  );
}

/** The actions the code can write: 'domain.verb' literals in the files that write audit entries. */
function writtenActions(): string[] {
  const found = new Set<string>();
  const permissions = new Set<string>(PERMISSIONS);
  for (const file of sources()) {
    const text = readFileSync(file, 'utf8');
    if (!/\baudit\(|writeAudit\(|this\.clear\(/.test(text)) continue;
    for (const m of text.matchAll(
      /'((?:server|peer|customer|manager|plan|invoice|payment|party|announcement|client_version|settings|bulk)\.[a-z_]+)'/g,
    ))
      if (!permissions.has(m[1]!)) found.add(m[1]!);
  }
  return [...found].sort();
}

const names = (): AuditNames => ({
  server: new Map([['3', 'Miami 1']]),
  peer: new Map([['7', { name: 'Móvil', owner: 'juan' }]]),
  customer: new Map([['5', 'juan']]),
  plan: new Map([['2', 'Mensual']]),
  manager: new Map([['4', 'pepe']]),
  invoice: new Map([['1a2b3c4d-0000-4000-8000-000000000000', 'juan']]),
  party: new Map([['6', { name: 'LAN', owner: 'juan' }]]),
});

const TARGETS: Record<string, [string, string]> = {
  server: ['server', '3'],
  peer: ['peer', '7'],
  customer: ['customer', '5'],
  plan: ['plan', '2'],
  manager: ['manager', '4'],
  invoice: ['invoice', '1a2b3c4d-0000-4000-8000-000000000000'],
  payment: ['payment', '9'],
  party: ['party', '6'],
  announcement: ['announcement', '8'],
  client_version: ['client_version', '1'],
  settings: ['settings', 'site'],
  bulk: ['bulk', null as unknown as string],
};

const raw = (action: string, more: Partial<AuditEntry> = {}) => {
  const [type, id] = TARGETS[action.split('.')[0]!]!;
  return {
    id: 1,
    manager: 'ana',
    manager_id: 1,
    action,
    target_type: type,
    target_id: id,
    changes: {},
    reason: null,
    extra: null,
    ip: null,
    created: new Date().toISOString(),
    ...more,
  };
};

describe('audit in words', () => {
  it('has a sentence for every action the code writes', () => {
    const actions = writtenActions();
    // The search finds them (a regression in it would pass vacuously).
    expect(actions).toContain('invoice.refund');
    expect(actions).toContain('server.create');
    expect(actions).toContain('manager.totp_reset');
    expect(actions.length).toBeGreaterThan(25);
    expect(actions.filter((a) => !AUDIT_SENTENCES[a])).toEqual([]);
  });

  it('no sentence falls back to the code: each names the manager and its target, never the action', () => {
    for (const action of Object.keys(AUDIT_SENTENCES)) {
      // What these entries record of targets the database has no name for (written by the code).
      const recorded: Record<string, Partial<AuditEntry>> = {
        'payment.resolve': { extra: { gateway: 'qvapay', reference: 'TX-77' } },
        'announcement.create': { changes: { name: { before: null, after: 'Mantenimiento' } } },
        'announcement.withdraw': { extra: { name: 'Mantenimiento' } },
        'client_version.create': { changes: { version: { before: null, after: '1.2.3' } } },
      };
      const { summary } = auditInWords(raw(action, recorded[action]), names());
      expect(summary, action).toMatch(/^ana /);
      expect(summary, action).not.toContain(action);
      expect(summary, action).not.toMatch(/undefined|null|NaN|\[object/);
      expect(summary, action).not.toMatch(/#\d/);
    }
  });

  it('reads a refund as the issue asks, and a settings change in words', () => {
    const refund = auditInWords(
      raw('invoice.refund', {
        changes: { status: { before: 'paid', after: 'refunded' } },
        extra: { amount: '3.00', currency: 'USD', method: 'manual' },
      }),
      names(),
    );
    // Intl puts a no-break space between the amount and its currency.
    expect(refund.summary.replace(/\u00a0/g, ' ')).toBe(
      'ana reembolsó 3,00 US$ de la factura 1a2b3c4d de juan',
    );
    expect(refund.details).toEqual(['Estado: pagada → reembolsada']);
    const settings = auditInWords(
      raw('settings.update', { changes: { allow_partys: { before: null, after: false } } }),
      names(),
    );
    expect(settings.summary).toBe('ana cambió los ajustes: Salas: sin valor → no');
    const moved = auditInWords(
      raw('peer.change_server', { changes: { server: { before: 'Miami 1', after: 'Madrid' } } }),
      names(),
    );
    expect(moved.summary).toBe('ana movió el peer Móvil de juan al servidor Madrid');
    expect(moved.details).toEqual(['Servidor: Miami 1 → Madrid']);
  });
});

describe('GET /api/admin/audit', () => {
  let t: TestApp;
  let owner: string;
  beforeAll(async () => {
    t = await createTestApp({ scheduler: false });
    owner = await managerToken(t);
  });
  afterAll(() => t.close());

  it("lists sentences with the server's name, its changes in words, and the raw change", async () => {
    const s = await createServer(t, owner, 'Miami 1', { endpoint: 'miami1.vpn.example:51820' });
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/servers/${s.id}`,
      headers: bearer(owner),
      payload: { allow_partys: true },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/audit', headers: bearer(owner) });
    const [edit, create] = res.json<{ results: AuditEntry[] }>().results;
    expect(create!.summary).toMatch(/^\S+ añadió el servidor Miami 1$/);
    expect(edit!.summary).toMatch(/^\S+ editó el servidor Miami 1: Salas: no → sí$/);
    expect(edit!.details).toEqual(['Salas: no → sí']);
    expect(edit!.action).toBe('server.update');
    expect(edit!.changes).toEqual({ allow_partys: { before: false, after: true } });
  });
});
