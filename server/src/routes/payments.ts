import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { UUID_RE } from '../lib/errors.ts';
import { invoices } from '../db/schema.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Gateway-facing routes: QvaPay's notification and the built-in sandbox's payment page. */
export const paymentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    // Gateways and the sandbox's HTML forms post form-encoded bodies (only on these routes).
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 8192 },
      (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    // QvaPay notifies with the transaction; we believe nothing until QvaPay itself confirms it.
    const webhook = async (params: Record<string, unknown>) => {
      const uuid = String(params.transaction_uuid ?? params.uuid ?? '');
      const remoteId = params.remote_id ? String(params.remote_id) : null;
      const credited = uuid ? await ctx.invoices.confirmQvapay(uuid, remoteId).catch(() => false) : false;
      return { ok: true, credited };
    };
    app.get('/api/payments/qvapay/webhook', { schema: { hide: true } }, async (request) =>
      webhook(request.query as Record<string, unknown>),
    );
    app.post('/api/payments/qvapay/webhook', { schema: { hide: true } }, async (request) =>
      webhook({
        ...(request.query as Record<string, unknown>),
        ...((request.body as Record<string, unknown> | undefined) ?? {}),
      }),
    );

    if (!ctx.config.payments.sandbox) return;
    const load = async (id: string) => {
      if (!UUID_RE.test(id)) return undefined;
      const [row] = await ctx.db.select().from(invoices).where(eq(invoices.id, id));
      return row?.gateway === 'sandbox' ? row : undefined;
    };
    app.get('/api/payments/sandbox/:id', { schema: { hide: true } }, async (request, reply) => {
      const row = await load((request.params as { id: string }).id);
      if (!row) return reply.status(404).type('text/plain').send('');
      const html = `<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Pasarela de prueba</title></head>
<body style="font-family:system-ui,sans-serif;max-width:480px;margin:40px auto;padding:0 16px;color:#0f172a">
<h1>Pasarela de prueba</h1>
<p>Esta pasarela no cobra dinero: existe para demostraciones y pruebas.</p>
<p><strong>${esc(row.planName)}</strong> — ${esc(Number(row.amount).toFixed(2))} USD</p>
${
  row.status === 'pending'
    ? `<form method="post" action="/api/payments/sandbox/${row.id}/pay"><button style="padding:10px 18px">Pagar</button></form>
<form method="post" action="/api/payments/sandbox/${row.id}/cancel" style="margin-top:8px"><button style="padding:10px 18px">Cancelar</button></form>`
    : `<p>Esta factura ya no está pendiente (${esc(row.status)}).</p>`
}
</body></html>`;
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
    });
    const finish =
      (action: 'pay' | 'cancel') => async (request: { params: unknown }, reply: FastifyReply) => {
        const row = await load((request.params as { id: string }).id);
        if (!row) return reply.status(404).type('text/plain').send('');
        if (action === 'pay') await ctx.invoices.credit(row.id, `sandbox-${row.id}`);
        else await ctx.invoices.cancel(row.id);
        const status = action === 'pay' ? 'success' : 'canceled';
        return reply.redirect(
          `/dashboard/payment?status=${status}&transaction_uuid=sandbox-${row.id}&remote_id=${row.id}`,
          303,
        );
      };
    app.post('/api/payments/sandbox/:id/pay', { schema: { hide: true } }, finish('pay'));
    app.post('/api/payments/sandbox/:id/cancel', { schema: { hide: true } }, finish('cancel'));
  };
