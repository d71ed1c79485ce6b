/**
 * Generated bad input over every route, customer and admin (issue 10, point 3): on a fixed seed,
 * FUZZ_RUNS requests (10,000 in CI; `npm run fuzz` for longer runs, FUZZ_SEED for another seed),
 * each from one of six callers (no token, a customer, and a manager of each role). Asserts: no
 * answer ≥ 500; every refusal is JSON whose `message` is one of the product's Spanish messages
 * (test/fuzz.ts, isProductMessage: a framework's English cannot pass); every refused write leaves the
 * database exactly as it found it (a fingerprint of every table before and after each one, rate
 * limit counters aside; a table's hash is computed again only when a statement wrote it); and a
 * coverage floor: every operation answered at least one 2xx and one 4xx (test/fuzzSeeds.ts holds
 * one valid request per operation for those the generated input never got through).
 */
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans } from '../db/schema.ts';
import { readSiteSettings, updateSiteSettings } from '../services/site/settings.ts';
import {
  isProductMessage,
  operationsOf,
  request,
  type FuzzRequest,
  type Operation,
} from '../../test/fuzz.ts';
import { CALLERS, NO_2XX, SEEDS, makeFixtures, tokenOf, type Caller } from '../../test/fuzzSeeds.ts';
import {
  bearer,
  createCustomer,
  createTestApp,
  login,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { TestSmtp } from '../../test/smtp.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 424242);
/** Tables a refused request may touch: counters of refusals, spent captcha solutions. */
const EXCLUDED = new Set(['rate_limits', 'captcha_spent', '__drizzle_migrations']);

let t: TestApp;
let smtp: TestSmtp;
let tokens: Record<Caller, string | null>;
let ops: Operation[];
/**
 * The database's fingerprint, kept per table. Every table but EXCLUDED has a statement trigger that
 * notes its name in `fuzz.changes` whenever a statement writes it (insert, update, delete,
 * truncate; a write rolled back leaves no note). `changedTables` takes the notes, so only the
 * tables written since the last look are hashed again: before a write, to bring the "before"
 * hashes up to date; after a refused one, to compare and to name what changed.
 */
const tableHash = new Map<string, string>();

async function rows<T>(query: ReturnType<typeof sql.raw>): Promise<T[]> {
  const res = (await t.ctx.db.execute(query)) as unknown as { rows: T[] } | T[];
  return Array.isArray(res) ? res : res.rows;
}

/** The contents' hash of each of `names`, in one query. */
async function hashTables(names: string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const result = await rows<{ name: string; h: string }>(
    sql.raw(
      names
        .map(
          (n) =>
            `select '${n}' as name, coalesce((select md5(string_agg(x::text, ',' order by x::text)) from "${n}" x), '') as h`,
        )
        .join(' union all '),
    ),
  );
  return new Map(result.map((r) => [r.name, r.h]));
}

/** The tables a statement wrote since the last call. */
async function changedTables(): Promise<string[]> {
  const result = await rows<{ name: string }>(sql.raw('delete from fuzz.changes returning name'));
  return [...new Set(result.map((r) => r.name))];
}

/** Brings the kept hashes up to date with what was written since the last look. */
async function refreshFingerprint(): Promise<void> {
  for (const [name, h] of await hashTables(await changedTables())) tableHash.set(name, h);
}

/** The tables whose contents differ from the kept hashes (which are then brought up to date). */
async function tablesChanged(): Promise<string[]> {
  const changed: string[] = [];
  for (const [name, h] of await hashTables(await changedTables())) {
    if (tableHash.get(name) !== h) changed.push(name);
    tableHash.set(name, h);
  }
  return changed;
}

beforeAll(async () => {
  // Mail on (a local SMTP stand-in): the routes that send mail answer past their "mail is off".
  smtp = await TestSmtp.start();
  t = await createTestApp({
    scheduler: false,
    env: { PAYMENTS_SANDBOX: 'true', SMTP_URL: smtp.url, PUBLIC_URL: 'https://panel.example' },
  });
  await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'Uno. Dos', price: '3.00', validity: '30 days' });
  const customer = await createCustomer(t, 'fuzzcliente', 'clave-del-fuzz');
  tokens = {
    none: null,
    customer: (await login(t, customer.username, customer.password)).access,
    owner: await managerToken(t, 'owner'),
    operations: await managerToken(t, 'operations'),
    support: await managerToken(t, 'support'),
    finance: await managerToken(t, 'finance'),
  };
  const doc = t.app.swagger() as unknown as Parameters<typeof operationsOf>[0];
  ops = [
    ...operationsOf(doc),
    // Routes kept out of the API document (gateway- and client-app-facing).
    { method: 'GET', path: '/api/mirror/{token}', pathParams: ['token'], query: {}, body: null },
    {
      method: 'GET',
      path: '/api/payments/qvapay/webhook',
      pathParams: [],
      query: { transaction_uuid: {}, remote_id: {} },
      body: null,
    },
    {
      method: 'POST',
      path: '/api/payments/qvapay/webhook',
      pathParams: [],
      query: {},
      body: { type: 'object' },
    },
    {
      method: 'POST',
      path: '/api/payments/remesita/ipn/{id}/{secret}',
      pathParams: ['id', 'secret'],
      query: {},
      body: { type: 'object' },
    },
    {
      method: 'GET',
      path: '/api/payments/remesita/ipn/{id}/{secret}',
      pathParams: ['id', 'secret'],
      query: { remote_id: {}, status: {} },
      body: null,
    },
    { method: 'GET', path: '/api/payments/sandbox/{id}', pathParams: ['id'], query: {}, body: null },
    { method: 'POST', path: '/api/payments/sandbox/{id}/pay', pathParams: ['id'], query: {}, body: null },
    { method: 'POST', path: '/api/payments/sandbox/{id}/cancel', pathParams: ['id'], query: {}, body: null },
  ];
  // One entry per operation (the mirror link is in the API document now as well as in the list above).
  ops = [...new Map(ops.map((op) => [`${op.method} ${op.path}`, op])).values()];
  const tablesRes = (await t.ctx.db.execute(
    sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  )) as unknown as { rows: { name: string }[] } | { name: string }[];
  const tables = (Array.isArray(tablesRes) ? tablesRes : tablesRes.rows)
    .map((r) => r.name)
    .filter((n) => !EXCLUDED.has(n));
  for (const statement of [
    'create schema fuzz',
    'create table fuzz.changes (name text not null)',
    `create function fuzz.note_change() returns trigger language plpgsql as $$
      begin insert into fuzz.changes values (TG_TABLE_NAME); return null; end $$`,
    ...tables.map(
      (n) =>
        `create trigger fuzz_note_change after insert or update or delete or truncate on "${n}" for each statement execute function fuzz.note_change()`,
    ),
  ])
    await t.ctx.db.execute(sql.raw(statement));
  await changedTables();
  for (const [name, h] of await hashTables(tables)) tableHash.set(name, h);
  // The fingerprint sees a write that changes a table, names it, and takes one that does not for none.
  await t.ctx.db.execute(sql`update plans set description = description || '.'`);
  expect(await tablesChanged()).toEqual(['plans']);
  await t.ctx.db.execute(sql`update plans set description = 'Uno. Dos'`);
  await refreshFingerprint();
  await t.ctx.db.execute(sql`update plans set description = description`);
  expect(await tablesChanged()).toEqual([]);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** A success: 2xx, or the 303 a payment page's form answers with. */
const succeeded = (status: number) => status >= 200 && status < 400;
const keyOf = (op: Pick<Operation, 'method' | 'path'>) => `${op.method} ${op.path}`;

/** Waits for work a request started in the background (a drain moving peers) to end. */
async function settled(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const res = (await t.ctx.db.execute(
      sql`select count(*)::int as n from server_drains where finished_at is null`,
    )) as unknown as { rows: { n: number }[] } | { n: number }[];
    if ((Array.isArray(res) ? res : res.rows)[0]!.n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('generated bad input', () => {
  it(`answers ${RUNS} generated requests over every route from six callers: no 5xx, Spanish refusals, no change when refused, a 2xx and a 4xx for every operation`, async () => {
    expect(ops.length).toBeGreaterThan(50);
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    /** Per operation, the statuses it answered. */
    const seen = new Map<string, Set<number>>(ops.map((op) => [keyOf(op), new Set<number>()]));
    let refusedWrites = 0;
    /** Operations that answered a success with no token at all. */
    const publicOk = new Set<string>();

    /** One request, checked; a write is fingerprinted before and after. */
    async function send(
      key: string,
      who: string,
      req: FuzzRequest & { headers?: Record<string, string> },
      token: string | null,
      remoteAddress?: string,
    ): Promise<void> {
      const write = req.method !== 'GET';
      if (write) await refreshFingerprint();
      const res = await t.app.inject({
        method: req.method as 'GET',
        url: req.url,
        ...(remoteAddress ? { remoteAddress } : {}),
        headers: {
          ...req.headers,
          ...(token ? bearer(token) : {}),
          ...(req.raw !== undefined || req.payload !== undefined
            ? { 'content-type': 'application/json' }
            : {}),
        },
        ...(req.raw !== undefined
          ? { payload: req.raw }
          : req.payload !== undefined
            ? { payload: JSON.stringify(req.payload) }
            : {}),
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      seen.get(key)?.add(res.statusCode);
      if (token === null && succeeded(res.statusCode)) publicOk.add(key);
      const label = `${who} ${req.method} ${req.url.slice(0, 160)} ${req.raw ?? JSON.stringify(req.payload ?? null).slice(0, 200)}`;
      if (res.statusCode >= 500) problems.push(`${res.statusCode} ← ${label}: ${res.body.slice(0, 200)}`);
      if (res.statusCode >= 400 && req.url.startsWith('/api/') && !req.url.startsWith('/api/mirror/')) {
        let message: unknown;
        try {
          message = (res.json() as { message?: unknown }).message;
        } catch {
          message = undefined;
        }
        if (typeof message !== 'string' || !isProductMessage(message))
          problems.push(`sin mensaje en español (${res.statusCode}) ← ${label}: ${res.body.slice(0, 200)}`);
      }
      if (!write) return;
      if (res.statusCode >= 400) {
        refusedWrites++;
        const changed = await tablesChanged();
        if (changed.length > 0)
          problems.push(
            `la base de datos cambió con una petición rechazada (${res.statusCode}; ${changed.join(', ')}) ← ${label}`,
          );
        return;
      }
      // An accepted change: let what it started in the background end. A generated request may have
      // switched maintenance on (a 503 by design): switch it off so the customer routes stay open.
      await settled();
      if ((await readSiteSettings(t.ctx.db)).maintenance)
        await updateSiteSettings(t.ctx.db, { maintenance: false });
    }

    // 1. Generated requests from every caller.
    const arb = fc.tuple(
      fc.constantFrom(...ops).chain((op) => request(op).map((req) => ({ key: keyOf(op), req }))),
      fc.constantFrom(...CALLERS),
    );
    for (const [{ key, req }, who] of fc.sample(arb, { numRuns: RUNS, seed: SEED })) {
      await send(key, who, req, tokens[who]);
      if (problems.length >= 10) break;
    }

    /** A public operation that takes no input at all (no path, query or body): no 4xx can exist. */
    const nothingToRefuse = (op: Operation) =>
      op.pathParams.length === 0 &&
      Object.keys(op.query).length === 0 &&
      op.body === null &&
      publicOk.has(keyOf(op));

    // 2. The floor: operations the generated requests never got a 2xx (or a 4xx) from.
    const fixtures = await makeFixtures(t);
    const missingSeeds: string[] = [];
    let seeded = 1;
    for (const op of ops) {
      const key = keyOf(op);
      const got = () => [...seen.get(key)!];
      if (!got().some(succeeded) && !NO_2XX[key]) {
        const seed = SEEDS[key];
        if (!seed) missingSeeds.push(key);
        else {
          const r = await seed(fixtures);
          // From an address of its own: the generated requests spent 127.0.0.1's rate limits.
          await send(
            key,
            `${r.who} (semilla)`,
            { method: r.method, url: r.url, payload: r.payload, headers: r.headers },
            tokenOf(r, fixtures),
            `198.18.${(seeded >> 8) & 255}.${seeded++ & 255}`,
          );
        }
      }
      for (const [i, req] of fc.sample(request(op), { numRuns: 40, seed: SEED }).entries()) {
        if (got().some((s) => s >= 400 && s < 500)) break;
        const who = CALLERS[i % CALLERS.length]!;
        await send(key, who, req, fixtures.tokens[who]);
      }
    }

    const summary = `respuestas: ${JSON.stringify(Object.fromEntries(statuses))}`;
    expect(problems, summary).toEqual([]);
    expect(missingSeeds, 'operaciones sin semilla en test/fuzzSeeds.ts').toEqual([]);
    const floor = ops
      .map((op) => {
        const key = keyOf(op);
        const got = [...seen.get(key)!].sort();
        const lacks = [
          ...(got.some(succeeded) || NO_2XX[key] ? [] : ['2xx']),
          ...(got.some((s) => s >= 400 && s < 500) || nothingToRefuse(op) ? [] : ['4xx']),
        ];
        return lacks.length
          ? `${key}: sin ${lacks.join(' ni ')} (respondió ${got.join(', ') || 'nada'})`
          : null;
      })
      .filter(Boolean);
    expect(floor, summary).toEqual([]);
    // The refused writes were many and each was checked.
    expect(refusedWrites).toBeGreaterThan(RUNS / 10);
  }, 1_800_000);
});
