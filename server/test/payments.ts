/**
 * The customer's side of a purchase, shared by the payment tests (QvaPay, Remesita, refunds, client
 * invoices): a signed-in buyer, the purchase call, the payment-result page and the peer list, each
 * through the public API. `app` is read at call time (the tests build theirs in beforeAll).
 */
import { eq, sql } from 'drizzle-orm';
import { invoices, plans, servers } from '../src/db/schema.ts';
import { bearer, confirmed, createCustomer, login, type TestApp } from './helpers.ts';

/**
 * What every payment test sells from: one server ('Uno', added through the console by `manager`)
 * and one plan ('Mensual', 3.50 for 30 days). Answers the plan's id. The server's agent counts as
 * heard just now ({@link agentHeard}): a new peer is sold only where an agent answers.
 */
export async function openShop(t: TestApp, manager: string): Promise<number> {
  const server = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, manager),
    payload: { name: 'Uno', endpoint: 'uno.example:51820', ubication: 'X' },
  });
  if (server.statusCode !== 201) throw new Error(`server not created: ${server.body}`);
  await agentHeard(t, server.json<{ server: { id: number } }>().server.id);
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'Mensual', description: 'x', price: '3.50', validity: '30 days' })
    .returning();
  return plan!.id;
}

/**
 * Server `id`'s agent (every server's without `id`) as if its heartbeat had just arrived
 * (`last_seen_at` now): it counts as online for AGENT_OFFLINE_AFTER_MS, which is what selling a new
 * peer asks (services/fleet/servers.ts).
 */
export async function agentHeard(t: TestApp, id?: number): Promise<void> {
  const heard = t.ctx.db.update(servers).set({ lastSeenAt: new Date() });
  await (id === undefined ? heard : heard.where(eq(servers.id, id)));
}

export function customerPayments(app: () => TestApp) {
  const inject = (method: 'GET' | 'PUT', url: string, access: string, payload?: object) =>
    app().app.inject({ method, url, headers: bearer(access), ...(payload ? { payload } : {}) });
  return {
    /** A new customer, signed in. */
    async buyer() {
      const c = await createCustomer(app());
      const { access } = await login(app(), c.username, c.password);
      return { ...c, access };
    },
    /** `PUT /api/client/invoices`. */
    put: (access: string, payload: object) => inject('PUT', '/api/client/invoices', access, payload),
    /** The invoice as the payment-result page reads it. */
    shown: async (access: string, id: string) =>
      (await inject('GET', `/api/client/invoices/${id}`, access)).json(),
    myPeers: async (access: string) => (await inject('GET', '/api/client/accounts/peers', access)).json(),
  };
}

/**
 * Moves an invoice's last gateway check 31 s back, as if its 30 s had passed: the next poll or
 * webhook notice asks the gateway again (services/billing/invoices.ts, CHECK_EVERY).
 */
export async function gatewayCheckOver(t: TestApp, invoiceId: string): Promise<void> {
  await t.ctx.db
    .update(invoices)
    .set({ gatewayCheckedAt: sql`now() - interval '31 seconds'` })
    .where(eq(invoices.id, invoiceId));
}
