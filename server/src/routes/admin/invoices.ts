import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AdminInvoice, AdminInvoicePage, ErrorBody, InvoiceListQuery, InvoicePatch } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';
import { InvoiceAdminService } from '../../services/adminInvoices.ts';

/** Facturas: list, detail, mark paid (a payment received outside the gateway). */
export default (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const service = new InvoiceAdminService({ db: ctx.db, bus: ctx.bus, invoices: ctx.invoices });
    const common = { tags: ['admin'], security: [{ bearer: [] }] };
    const params = z.object({ id: z.string().max(64) });

    app.get(
      '/api/admin/invoices',
      {
        config: { permission: 'invoices.read' },
        schema: {
          ...common,
          summary:
            'Facturas (busca en usuario, nombre del peer e id remoto; state=pending|paid|canceled|expired|failed; gateway=…)',
          querystring: InvoiceListQuery,
          response: { 200: AdminInvoicePage, 400: ErrorBody },
        },
      },
      async (request) => service.list(request.query),
    );

    app.get(
      '/api/admin/invoices/:id',
      {
        config: { permission: 'invoices.read' },
        schema: {
          ...common,
          summary: 'Una factura',
          params,
          response: { 200: AdminInvoice, 404: ErrorBody },
        },
      },
      async (request) => service.get(request.params.id),
    );

    app.patch(
      '/api/admin/invoices/:id',
      {
        config: { permission: 'invoices.write' },
        schema: {
          ...common,
          summary:
            'Marca una factura como pagada (con motivo) y entrega lo comprado por la misma vía que una pasarela; una factura ya pagada responde 409',
          params,
          body: InvoicePatch,
          response: { 200: AdminInvoice, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => service.markPaid(actorOf(request), request.params.id, request.body.reason),
    );
  };
