import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { eq } from 'drizzle-orm';
import { Advertisement, ClientVersion, ErrorBody, MessageBody } from '@vpn/contracts';
import { notFound } from '../../lib/errors.ts';
import type { AppContext } from '../../context.ts';
import { announcements, clientVersions } from '../../db/schema.ts';

/** What managers publish to customers: announcements and client-app releases. */
export const adminContentRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/api/admin/advertisements',
      {
        schema: {
          tags: ['admin'],
          summary: 'Publica un anuncio en el inicio del panel',
          security: [{ bearer: [] }],
          body: z
            .object({ name: z.string().trim().min(1).max(120), message: z.string().trim().min(1).max(4000) })
            .strict(),
          response: { 201: Advertisement, 400: ErrorBody },
        },
      },
      async (request, reply) => {
        const [row] = await ctx.db.insert(announcements).values(request.body).returning();
        return reply.status(201).send({
          id: row!.id,
          name: row!.name,
          message: row!.message,
          created: row!.createdAt.toISOString(),
        });
      },
    );

    app.delete(
      '/api/admin/advertisements/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'Retira un anuncio',
          security: [{ bearer: [] }],
          params: z.object({
            id: z.coerce
              .number()
              .int()
              .positive()
              .max(2 ** 31 - 1),
          }),
          response: { 200: MessageBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const rows = await ctx.db
          .update(announcements)
          .set({ active: false })
          .where(eq(announcements.id, request.params.id))
          .returning({ id: announcements.id });
        if (rows.length === 0) throw notFound();
        return { message: 'Anuncio retirado' };
      },
    );

    app.post(
      '/api/admin/agent',
      {
        schema: {
          tags: ['admin'],
          summary: 'Publica una versión de la app cliente (se anuncia en el inicio del panel)',
          security: [{ bearer: [] }],
          body: z.object({ version: z.string().trim().min(1).max(40), url: z.url().max(500) }).strict(),
          response: { 201: ClientVersion, 400: ErrorBody },
        },
      },
      async (request, reply) => {
        const [row] = await ctx.db.insert(clientVersions).values(request.body).returning();
        return reply.status(201).send({ version: row!.version, url: row!.url });
      },
    );
  };
