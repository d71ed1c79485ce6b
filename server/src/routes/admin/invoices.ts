import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminInvoice,
  AdminInvoicePage,
  ErrorBody,
  IdParams,
  InvoiceListQuery,
  InvoicePatch,
  InvoiceRefund,
  RevenueQuery,
  RevenueTable,
  UnmatchedPayment,
  UnmatchedPaymentPage,
  UnmatchedPaymentPatch,
  UnmatchedPaymentQuery,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';
import { InvoiceAdminService } from '../../services/billing/invoiceConsole.ts';
import {
  invoicesCsv,
  resolveUnmatched,
  revenueTable,
  unmatchedPayments,
} from '../../services/billing/finance.ts';
import { RefundService } from '../../services/billing/refunds.ts';

/**
 * Facturas: list, detail, mark paid (a payment received outside the gateway), refunds; and for owner
 * and finance the revenue table, the CSV export and the payments without an open invoice.
 */
export default (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const service = new InvoiceAdminService({ db: ctx.db, bus: ctx.bus, invoices: ctx.invoices });
    const refunds = new RefundService({
      db: ctx.db,
      bus: ctx.bus,
      peers: ctx.peers,
      gateway: (name) => ctx.invoices.gatewayOf(name),
      log: app.log,
    });
    const common = { tags: ['admin'], security: [{ bearer: [] }] };
    const params = z.object({ id: z.string().max(64) });

    app.get(
      '/api/admin/invoices/export.csv',
      {
        config: { permission: 'revenue.read' },
        schema: {
          ...common,
          summary:
            'Las facturas del listado (mismos filtros) en CSV (RFC 4180, UTF-8, fechas en UTC, importes con 2 decimales)',
          querystring: InvoiceListQuery.omit({ page: true, page_size: true }),
        },
      },
      async (request, reply) => {
        const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="facturas-${day}.csv"`)
          .header('cache-control', 'no-store')
          .send(invoicesCsv(ctx.db, request.query));
      },
    );

    app.get(
      '/api/admin/invoices/revenue',
      {
        config: { permission: 'revenue.read' },
        schema: {
          ...common,
          summary: 'Ingresos por mes (UTC) y pasarela: cobrado, reembolsado y neto',
          querystring: RevenueQuery,
          response: { 200: RevenueTable, 400: ErrorBody },
        },
      },
      async (request) => revenueTable(ctx.db, request.query.months),
    );

    app.post(
      '/api/admin/invoices/:id/refund',
      {
        config: { permission: 'invoices.write' },
        schema: {
          ...common,
          summary:
            'Reembolsa una factura pagada (method=gateway: por la pasarela; manual: registrado a mano) y retira del peer el periodo que compró',
          params,
          body: InvoiceRefund,
          response: { 200: AdminInvoice, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody, 502: ErrorBody },
        },
      },
      async (request) => {
        await refunds.refund(actorOf(request), request.params.id, request.body);
        return service.get(request.params.id);
      },
    );

    app.get(
      '/api/admin/payments/unmatched',
      {
        config: { permission: 'revenue.read' },
        schema: {
          ...common,
          summary: 'Pagos sin factura abierta: dinero que una pasarela informó y que no acreditó nada',
          querystring: UnmatchedPaymentQuery,
          response: { 200: UnmatchedPaymentPage, 400: ErrorBody },
        },
      },
      async (request) => unmatchedPayments(ctx.db, request.query),
    );

    app.patch(
      '/api/admin/payments/unmatched/:id',
      {
        config: { permission: 'invoices.write' },
        schema: {
          ...common,
          summary: 'Marca como resuelto un pago sin factura abierta (con motivo)',
          params: IdParams,
          body: UnmatchedPaymentPatch,
          response: { 200: UnmatchedPayment, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => resolveUnmatched(ctx.db, actorOf(request), request.params.id, request.body.reason),
    );

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
