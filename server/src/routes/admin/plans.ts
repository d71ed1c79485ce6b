import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminPlan,
  AdminPlanCreate,
  AdminPlanList,
  AdminPlanPatch,
  ErrorBody,
  ListQuery,
  IdParams,
} from '@vpn/contracts';
import { adminDoc } from '../openapi.ts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';
import {
  createPlan,
  deletePlan,
  getPlan,
  listPlans,
  updatePlan,
} from '../../services/billing/planConsole.ts';

/** Plans (Planes): what is sold, at what price and for how long; `hidden` plans are not offered. */
export const adminPlanRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/plans',
      {
        config: { permission: 'plans.read' },
        schema: {
          ...adminDoc('Planes (también los ocultos), en el orden de venta'),
          querystring: ListQuery,
          response: { 200: AdminPlanList, 400: ErrorBody },
        },
      },
      async (request) => listPlans(ctx.db, request.query),
    );

    app.get(
      '/api/admin/plans/:id',
      {
        config: { permission: 'plans.read' },
        schema: { ...adminDoc('Un plan'), params: IdParams, response: { 200: AdminPlan, 404: ErrorBody } },
      },
      async (request) => getPlan(ctx.db, request.params.id),
    );

    app.post(
      '/api/admin/plans',
      {
        config: { permission: 'plans.write' },
        schema: {
          ...adminDoc('Crea un plan'),
          body: AdminPlanCreate,
          response: { 201: AdminPlan, 400: ErrorBody },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await createPlan(ctx.db, actorOf(request), request.body)),
    );

    app.patch(
      '/api/admin/plans/:id',
      {
        config: { permission: 'plans.write' },
        schema: {
          ...adminDoc('Cambia un plan (solo los campos enviados); hidden = deja de ofrecerse'),
          params: IdParams,
          body: AdminPlanPatch,
          response: { 200: AdminPlan, 400: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => updatePlan(ctx.db, actorOf(request), request.params.id, request.body),
    );

    app.delete(
      '/api/admin/plans/:id',
      {
        config: { permission: 'plans.write' },
        schema: {
          ...adminDoc('Elimina un plan sin facturas (409 si tiene: ocúltelo)'),
          params: IdParams,
          response: { 204: z.null(), 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request, reply) => {
        await deletePlan(ctx.db, actorOf(request), request.params.id);
        return reply.status(204).send(null);
      },
    );
  };

export default adminPlanRoutes;
