/**
 * The audit log in words (issue 34): each entry becomes a Spanish sentence with names ("ana
 * reembolsó 3,00 US$ de la factura 1a2b3c4d de juan") and its changed fields in words ("Salas:
 * sí → no"), from contracts' AUDIT_SENTENCES and AUDIT_FIELDS. Names are read for a whole page at
 * once (one query per kind of target); a target deleted since keeps the name its entry recorded,
 * else its number.
 */
import { eq, inArray } from 'drizzle-orm';
import {
  AUDIT_FIELDS,
  AUDIT_SENTENCES,
  AUDIT_SYSTEM,
  AUDIT_VALUES,
  AUDIT_WORDS,
  auditUnknown,
  type AuditEntry,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, invoices, managers, peers, plans, rooms, servers } from '../../db/schema.ts';

type RawEntry = Omit<AuditEntry, 'summary' | 'details'>;

/** The names a page of entries mentions, by target type and id. */
export interface AuditNames {
  server: Map<string, string>;
  peer: Map<string, { name: string; owner: string }>;
  customer: Map<string, string>;
  plan: Map<string, string>;
  manager: Map<string, string>;
  invoice: Map<string, string>;
  party: Map<string, { name: string; owner: string }>;
}

const emptyNames = (): AuditNames => ({
  server: new Map(),
  peer: new Map(),
  customer: new Map(),
  plan: new Map(),
  manager: new Map(),
  invoice: new Map(),
  party: new Map(),
});

const ints = (ids: string[]) => ids.map(Number).filter((n) => Number.isInteger(n) && n > 0 && n < 2 ** 31);

/** Reads the names of every target of `entries` (one query per kind present). */
export async function loadAuditNames(db: Db, entries: RawEntry[]): Promise<AuditNames> {
  const names = emptyNames();
  const ids = (type: string) => [
    ...new Set(entries.filter((e) => e.target_type === type && e.target_id).map((e) => e.target_id!)),
  ];
  const serverIds = ints(ids('server'));
  if (serverIds.length)
    for (const r of await db
      .select({ id: servers.id, name: servers.name })
      .from(servers)
      .where(inArray(servers.id, serverIds)))
      names.server.set(String(r.id), r.name);
  const peerIds = ints(ids('peer'));
  if (peerIds.length)
    for (const r of await db
      .select({ id: peers.id, name: peers.name, owner: customers.username })
      .from(peers)
      .innerJoin(customers, eq(customers.id, peers.customerId))
      .where(inArray(peers.id, peerIds)))
      names.peer.set(String(r.id), { name: r.name, owner: r.owner });
  const customerIds = ints(ids('customer'));
  if (customerIds.length)
    for (const r of await db
      .select({ id: customers.id, name: customers.username })
      .from(customers)
      .where(inArray(customers.id, customerIds)))
      names.customer.set(String(r.id), r.name);
  const planIds = ints(ids('plan'));
  if (planIds.length)
    for (const r of await db
      .select({ id: plans.id, name: plans.name })
      .from(plans)
      .where(inArray(plans.id, planIds)))
      names.plan.set(String(r.id), r.name);
  const managerIds = ints(ids('manager'));
  if (managerIds.length)
    for (const r of await db
      .select({ id: managers.id, name: managers.username })
      .from(managers)
      .where(inArray(managers.id, managerIds)))
      names.manager.set(String(r.id), r.name);
  const invoiceIds = ids('invoice').filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  if (invoiceIds.length)
    for (const r of await db
      .select({ id: invoices.id, owner: customers.username })
      .from(invoices)
      .innerJoin(customers, eq(customers.id, invoices.customerId))
      .where(inArray(invoices.id, invoiceIds)))
      names.invoice.set(r.id, r.owner);
  const roomIds = ints(ids('party'));
  if (roomIds.length)
    for (const r of await db
      .select({ id: rooms.id, name: rooms.name, owner: customers.username })
      .from(rooms)
      .innerJoin(customers, eq(customers.id, rooms.ownerId))
      .where(inArray(rooms.id, roomIds)))
      names.party.set(String(r.id), { name: r.name, owner: r.owner });
  return names;
}

const money = (amount: unknown, currency: unknown) => {
  const n = Number(amount);
  if (amount === undefined || amount === null || !Number.isFinite(n)) return undefined;
  return new Intl.NumberFormat('es-ES', {
    style: 'currency',
    currency: typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : 'USD',
  }).format(n);
};
const count = (n: unknown) =>
  typeof n === 'number' && Number.isFinite(n) ? new Intl.NumberFormat('es-ES').format(n) : undefined;
const dateTime = new Intl.DateTimeFormat('es-ES', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A recorded value in words: sí/no, dates, codes' words, "sin valor" for nothing. */
export function valueInWords(field: string, v: unknown): string {
  if (v === null || v === undefined || v === '')
    return field === 'expires_at' ? AUDIT_WORDS.never : AUDIT_WORDS.none;
  if (typeof v === 'boolean') return v ? AUDIT_WORDS.yes : AUDIT_WORDS.no;
  if (typeof v === 'string' && ISO.test(v)) {
    const d = new Date(v);
    if (!Number.isNaN(d.getTime())) return `${dateTime.format(d)} UTC`;
  }
  if (typeof v === 'string') return AUDIT_VALUES[v] ?? v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map((x) => valueInWords(field, x)).join(', ');
  return JSON.stringify(v);
}

/** A field's name in words (an unknown one with its underscores as spaces). */
export const fieldInWords = (field: string) => AUDIT_FIELDS[field] ?? field.replace(/_/g, ' ');

/** The changed fields in words: "Salas: sí → no". */
export function changesInWords(changes: AuditEntry['changes']): string[] {
  return Object.entries(changes).map(
    ([field, c]) =>
      `${fieldInWords(field)}: ${valueInWords(field, c.before)} → ${valueInWords(field, c.after)}`,
  );
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The sentence and the details of one entry. */
export function auditInWords(entry: RawEntry, names: AuditNames): { summary: string; details: string[] } {
  const who = entry.manager ?? AUDIT_SYSTEM;
  const details = changesInWords(entry.changes);
  const sentence = AUDIT_SENTENCES[entry.action];
  if (!sentence) return { summary: auditUnknown(who, entry.action), details };
  const id = entry.target_id ?? '';
  const extra = entry.extra ?? {};
  const before = (field: string) => str(entry.changes[field]?.before);
  const after = (field: string) => str(entry.changes[field]?.after);
  const type = entry.target_type;
  let target = id ? `#${id}` : '';
  let owner: string | undefined;
  let other: string | undefined;
  const amount = money(extra.amount, extra.currency);
  let countText = count(extra.peers_affected ?? extra.peers ?? extra.count);
  switch (type) {
    case 'server':
      target = names.server.get(id) ?? after('name') ?? before('name') ?? `#${id}`;
      if (entry.action === 'server.agent_upgrade') other = after('agent_version');
      break;
    case 'peer': {
      const p = names.peer.get(id);
      target = p?.name ?? after('name') ?? `#${id}`;
      owner = p?.owner ?? after('owner');
      const plan = extra.plan as { name?: unknown } | number | undefined;
      if (entry.action === 'peer.grant' || entry.action === 'peer.create')
        other = typeof plan === 'object' && plan ? str(plan.name) : undefined;
      if (entry.action === 'peer.change_server') other = after('server');
      break;
    }
    case 'customer':
      target = names.customer.get(id) ?? str(extra.username) ?? `#${id}`;
      break;
    case 'plan':
      target = names.plan.get(id) ?? after('name') ?? before('name') ?? `#${id}`;
      break;
    case 'manager':
      target = names.manager.get(id) ?? after('username') ?? before('username') ?? `#${id}`;
      if (entry.action === 'manager.create') other = valueInWords('role', entry.changes.role?.after);
      break;
    case 'invoice':
      target = id.slice(0, 8);
      owner = names.invoice.get(id);
      break;
    case 'payment':
      target = [str(extra.gateway), str(extra.reference)].filter(Boolean).join(' ') || `#${id}`;
      break;
    case 'party': {
      const r = names.party.get(id);
      target = r?.name ?? before('name') ?? `#${id}`;
      owner = r?.owner ?? before('owner');
      countText = undefined;
      break;
    }
    case 'announcement':
      target = after('name') ?? str(extra.name) ?? `#${id}`;
      other = extra.telegram === true ? 'telegram' : undefined;
      break;
    case 'client_version':
      target = after('version') ?? `#${id}`;
      break;
    case 'bulk':
      target = str(extra.filter) ?? '';
      other = str(extra.to_server);
      break;
  }
  const summary = sentence({
    who,
    target,
    changes: details.join('; '),
    ...(amount ? { amount } : {}),
    ...(owner ? { owner } : {}),
    ...(other ? { other } : {}),
    ...(countText ? { count: countText } : {}),
    ...(typeof extra.days === 'number' ? { days: extra.days } : {}),
  });
  return { summary, details };
}
