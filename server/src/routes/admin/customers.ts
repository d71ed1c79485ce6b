import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminCustomerDetail,
  AdminCustomerPage,
  CustomerListQuery,
  CustomerPatch,
  ErrorBody,
  CustomerIdParams,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';
import { CustomerAdminService } from '../../services/identity/customerConsole.ts';

/** Clientes: search, detail, disable / enable, password-reset mail. */
export default (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const service = new CustomerAdminService({
      db: ctx.db,
      bus: ctx.bus,
      account: ctx.account,
      mailer: ctx.mailer,
    });
    const common = { tags: ['admin'], security: [{ bearer: [] }] };

    app.get(
      '/api/admin/customers',
      {
        config: { permission: 'customers.read' },
        schema: {
          ...common,
          summary: 'Clientes (busca en usuario, email y alias; state=active|disabled)',
          querystring: CustomerListQuery,
          response: { 200: AdminCustomerPage, 400: ErrorBody },
        },
      },
      async (request) => service.list(request.query),
    );

    app.get(
      '/api/admin/customers/:id',
      {
        config: { permission: 'customers.read' },
        schema: {
          ...common,
          summary: 'Un cliente con sus peers, facturas, salas y sesiones abiertas',
          params: CustomerIdParams,
          response: { 200: AdminCustomerDetail, 404: ErrorBody },
        },
      },
      async (request) => service.detail(request.params.id),
    );

    app.patch(
      '/api/admin/customers/:id',
      {
        config: { permission: 'customers.write' },
        schema: {
          ...common,
          summary:
            'Deshabilita (con motivo) o habilita un cliente: sus sesiones se cierran y sus peers salen de los servidores hasta que se habilite',
          params: CustomerIdParams,
          body: CustomerPatch,
          response: { 200: AdminCustomerDetail, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => service.setDisabled(actorOf(request), request.params.id, request.body),
    );

    app.post(
      '/api/admin/customers/:id/password-reset',
      {
        config: { permission: 'customers.reset' },
        schema: {
          ...common,
          summary: 'Envía al email verificado del cliente un enlace para restablecer su contraseña',
          params: CustomerIdParams,
          response: {
            200: z.object({ message: z.string() }),
            400: ErrorBody,
            404: ErrorBody,
            502: ErrorBody,
          },
        },
      },
      async (request) => service.sendPasswordReset(actorOf(request), request.params.id),
    );
  };
