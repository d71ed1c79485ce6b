/**
 * Two compiled control-plane instances on one PostgreSQL database, customers paying through both at
 * once (each payment confirmed on both instances at the same moment, as a gateway retrying would),
 * and one instance killed with SIGKILL in the middle, then started again. Every payment either
 * instance acknowledged is paid and delivered exactly once: one plan-history row and one new peer
 * per invoice, never two, the scheduler finishing any delivery the kill interrupted.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.ts';
import { customers, invoices, peers, planHistory, plans } from '../src/db/schema.ts';
import { createTestDatabase, testHash } from './helpers.ts';
import { ProtocolAgent } from './protocolAgent.ts';
import { buildServer, confirmedOver, exited, freePort, killStarted, startServer } from './serverProcess.ts';

const CUSTOMERS = 24;
const PASSWORD = 'clave-de-cliente-1';

describe.skipIf(!process.env.TEST_DATABASE_URL)('two instances, one killed with kill -9', () => {
  let database: (Database & { url?: string }) | undefined;
  const children: ChildProcess[] = [];
  let agent: ProtocolAgent | undefined;
  const dirs: string[] = [];
  afterAll(async () => {
    await agent?.close();
    await killStarted();
    await database?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('credits and delivers every acknowledged payment exactly once', { timeout: 600_000 }, async () => {
    expect(buildServer()).toBe(true);
    database = await createTestDatabase();
    const db = database.db;
    const [plan] = await db
      .insert(plans)
      .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days' })
      .returning();
    const hash = await testHash(PASSWORD);
    const made = await db
      .insert(customers)
      .values(Array.from({ length: CUSTOMERS }, (_, i) => ({ username: `pago${i}`, passwordHash: hash })))
      .returning({ id: customers.id, username: customers.username });

    const ports = [await freePort(), await freePort()];
    const bases = ports.map((p) => `http://127.0.0.1:${p}`);
    const envOf = () => {
      const dir = mkdtempSync(join(tmpdir(), 'vpn-crash2-'));
      dirs.push(dir);
      return {
        DATABASE_URL: database!.url!,
        DATA_DIR: dir,
        SECRET_KEY: 'clave-secreta-compartida-de-las-dos-instancias',
        PAYMENTS_SANDBOX: 'true',
        PUBLIC_URL: bases[0]!,
        ADMIN_PASSWORD: 'clave-de-gestor',
      };
    };
    const env = [envOf(), envOf()];
    children[0] = await startServer(ports[0]!, env[0]!);
    children[1] = await startServer(ports[1]!, env[1]!);

    const call = async (
      base: string,
      method: string,
      path: string,
      token?: string,
      body?: unknown,
      extra: Record<string, string> = {},
    ) =>
      fetch(`${base}${path}`, {
        method,
        redirect: 'manual',
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...extra,
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    const admin = (await (
      await call(bases[0]!, 'POST', '/api/admin/login', undefined, {
        username: 'admin',
        password: 'clave-de-gestor',
      })
    ).json()) as { access: string };
    // Adding a server needs the password given again (X-Reauth, issue 31).
    const confirmed = await confirmedOver(bases[0]!, admin.access, 'clave-de-gestor');
    const server = await call(
      bases[0]!,
      'POST',
      '/api/admin/servers',
      admin.access,
      { name: 'Uno', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' },
      confirmed,
    );
    expect(server.status).toBe(201);
    // New peers are sold only where an agent answers (issue 32): a stand-in agent on the instance
    // that is not killed keeps the server online and acknowledges the deliveries.
    agent = await ProtocolAgent.connect(
      bases[1]!,
      ((await server.json()) as { agent_token: string }).agent_token,
    );

    // Every customer opens an invoice for a new peer, half through each instance.
    const open: { customerId: number; invoice: string }[] = [];
    for (const [i, c] of made.entries()) {
      const base = bases[i % 2]!;
      const login = await call(base, 'POST', '/api/client/login', undefined, {
        username: c.username,
        password: PASSWORD,
      });
      expect(login.status).toBe(200);
      const { access } = (await login.json()) as { access: string };
      const res = await call(base, 'PUT', '/api/client/invoices', access, {
        operation: 'new_peer',
        peer: `Peer ${i}`,
        plan: plan!.id,
      });
      expect(res.status, await res.clone().text()).toBe(200);
      open.push({ customerId: c.id, invoice: ((await res.json()) as { id: string }).id });
    }

    // Payments: each confirmed on both instances at once; instance 0 dies after a third of them.
    const acked = new Set<string>();
    const pay = (base: string, id: string) =>
      call(base, 'POST', `/api/payments/sandbox/${id}/pay`).then(
        (r) => r.status === 303 && acked.add(id),
        () => false,
      );
    let done = 0;
    await Promise.all(
      [0, 1, 2, 3].map(async (w) => {
        for (let i = w; i < open.length; i += 4) {
          await Promise.all([pay(bases[0]!, open[i]!.invoice), pay(bases[1]!, open[i]!.invoice)]);
          if (++done === Math.floor(open.length / 3)) children[0]!.kill('SIGKILL');
        }
      }),
    );
    await exited(children[0]!);
    // Every payment was confirmed to both instances, and the survivor answers each one itself: all of
    // them are acknowledged (docs/reliability.md, "24/24"), whatever the dead instance dropped.
    expect(acked.size).toBe(open.length);

    // Back up on the same database; both schedulers finish what the kill interrupted.
    children[0] = await startServer(ports[0]!, env[0]!);
    const ids = [...acked];
    const deadline = Date.now() + 120_000;
    let delivered = 0;
    while (Date.now() < deadline) {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(planHistory)
        .where(inArray(planHistory.invoiceId, ids));
      delivered = row!.n;
      if (delivered >= ids.length) break;
      await new Promise((r) => setTimeout(r, 1000));
    }

    console.log(
      `kill -9 con dos instancias: ${acked.size}/${open.length} pagos confirmados, ${delivered} entregados`,
    );
    const rows = await db.select().from(invoices).where(inArray(invoices.id, ids));
    expect(rows.filter((r) => r.status !== 'paid')).toEqual([]);
    const history = await db
      .select({ invoice: planHistory.invoiceId })
      .from(planHistory)
      .where(inArray(planHistory.invoiceId, ids));
    expect(history.length).toBe(ids.length);
    expect(new Set(history.map((h) => h.invoice)).size).toBe(ids.length);
    // One peer per paid invoice, none for the others.
    for (const { customerId, invoice } of open) {
      const owned = await db.select({ id: peers.id }).from(peers).where(eq(peers.customerId, customerId));
      expect(owned.length, invoice).toBe(acked.has(invoice) ? 1 : 0);
    }
    // And the restarted instance still serves writes.
    const after = await call(
      bases[0]!,
      'POST',
      '/api/admin/servers',
      admin.access,
      { name: 'Tras el corte', endpoint: 'dos.vpn.example:51820', ubication: 'La Habana' },
      await confirmedOver(bases[0]!, admin.access, 'clave-de-gestor'),
    );
    expect(after.status).toBe(201);
  });
});
