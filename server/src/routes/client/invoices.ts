import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, Invoice, InvoiceBody, InvoiceCreated, PaymentSettings } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { consume } from '../../services/identity/rateLimit.ts';

const errors = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  429: ErrorBody,
  502: ErrorBody,
};

/** Purchases: an invoice, then the gateway's payment page; the result page reads the invoice back. */
export const invoiceRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.put(
      '/api/client/invoices',
      {
        schema: {
          tags: ['payments'],
          summary:
            'Crea una factura y devuelve la URL de pago (limitado por cliente: RATE_LIMIT_INVOICES_PER_CUSTOMER)',
          security: [{ bearer: [] }],
          body: InvoiceBody,
          response: { 200: InvoiceCreated, ...errors },
        },
      },
      async (request) => {
        const id = principalOf(request).id;
        // Each invoice is a row and one or two calls to the gateway: a customer's burst is bounded.
        await consume(ctx.db, `invoices:customer:${id}`, ctx.rateLimits.invoicesPerCustomer);
        return ctx.invoices.create(id, request.body);
      },
    );

    app.get(
      '/api/client/invoices/:id',
      {
        schema: {
          tags: ['payments'],
          summary: 'Factura (id = remote_id que devuelve la pasarela)',
          security: [{ bearer: [] }],
          params: z.object({ id: z.string().max(100) }),
          response: { 200: Invoice, ...errors },
        },
      },
      async (request) => ctx.invoices.present(principalOf(request).id, request.params.id),
    );

    app.get(
      '/api/client/payments',
      {
        schema: {
          tags: ['payments'],
          summary: 'Pasarelas disponibles',
          security: [{ bearer: [] }],
          response: { 200: PaymentSettings },
        },
      },
      async () => {
        // A gateway is offered when switched on and configured.
        const on = await ctx.invoices.available();
        return {
          allow_payments_qvapay: on.qvapay !== null,
          allow_payments_remesita: on.remesita !== null,
          sandbox: ctx.config.payments.sandbox,
          new_peer_available: await ctx.invoices.newPeerAvailable(),
        };
      },
    );
  };

export default invoiceRoutes;
