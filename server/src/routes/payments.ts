import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { msg } from '@vpn/contracts';
import { notFound } from '../lib/errors.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Gateway-facing routes: QvaPay's and Remesita's notifications and the built-in sandbox's payment page. */
export const paymentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    // Gateways and the sandbox's HTML forms post form-encoded bodies (only on these routes).
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 8192 },
      (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    // QvaPay notifies with the transaction; we believe nothing until QvaPay itself confirms it, and
    // only for the transaction stored when the invoice was created. The answer says why not, in Spanish.
    const webhook = async (_request: FastifyRequest, params: Record<string, unknown>) => {
      const uuid = String(params.transaction_uuid ?? params.uuid ?? '');
      const remoteId = params.remote_id ? String(params.remote_id) : null;
      const { credited, message } = await ctx.invoices.confirmQvapay(uuid, remoteId);
      return { ok: true, credited, ...(message ? { message } : {}) };
    };
    app.get('/api/payments/qvapay/webhook', { schema: { hide: true } }, async (request) =>
      webhook(request, request.query as Record<string, unknown>),
    );
    app.post('/api/payments/qvapay/webhook', { schema: { hide: true } }, async (request) =>
      webhook(request, {
        ...(request.query as Record<string, unknown>),
        ...((request.body as Record<string, unknown> | undefined) ?? {}),
      }),
    );

    // Remesita's IPN: JSON posted to the URL given with the payment link, which carries the invoice
    // and its secret (services/billing/remesitaIpn.ts checks everything). Always 200: a notice that credits
    // nothing is logged (and, if money arrived, listed for the operator); a retry would change nothing.
    const ipn = async (request: FastifyRequest) => {
      const { id, secret } = request.params as { id: string; secret: string };
      const body = request.body;
      const notice =
        body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      const outcome = await ctx.invoices.notifyRemesita(id, secret, notice);
      return { ok: true, credited: outcome.credited };
    };
    app.post('/api/payments/remesita/ipn/:id/:secret', { schema: { hide: true } }, ipn);

    if (!ctx.config.payments.sandbox) return;
    const load = (id: string) => ctx.invoices.sandboxInvoice(id);
    app.get('/api/payments/sandbox/:id', { schema: { hide: true } }, async (request, reply) => {
      const row = await load((request.params as { id: string }).id);
      if (!row) throw notFound(msg.invoiceNotFound);
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
        if (!row) throw notFound(msg.invoiceNotFound);
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
