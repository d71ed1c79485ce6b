import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Advertisement, ClientVersion, ErrorBody, MessageBody } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';
import { ReauthService } from '../../plugins/reauth.ts';
import { queueBroadcast } from '../../services/telegram/service.ts';
import {
  publishAnnouncement,
  publishClientVersion,
  withdrawAnnouncement,
} from '../../services/site/content.ts';

/** What managers publish to customers: announcements and client-app releases. */
export const adminContentRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const reauth = new ReauthService(ctx);
    app.post(
      '/api/admin/advertisements',
      {
        config: { permission: 'content.write' },
        schema: {
          tags: ['admin'],
          summary: 'Publica un anuncio en el inicio del panel',
          security: [{ bearer: [] }],
          body: z
            .object({
              name: z.string().trim().min(1).max(120),
              message: z.string().trim().min(1).max(4000),
              /** "Enviar por Telegram": also to every linked chat that keeps announcements on. */
              telegram: z.boolean().optional(),
            })
            .strict(),
          response: { 201: Advertisement, 400: ErrorBody },
        },
      },
      async (request, reply) => {
        return reply
          .status(201)
          .send(
            await publishAnnouncement(
              { db: ctx.db, bus: ctx.bus, queueBroadcast },
              actorOf(request),
              request.body,
            ),
          );
      },
    );

    app.delete(
      '/api/admin/advertisements/:id',
      {
        config: { permission: 'content.write' },
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
        await withdrawAnnouncement(ctx, actorOf(request), request.params.id);
        return { message: 'Anuncio retirado' };
      },
    );

    app.post(
      '/api/admin/agent',
      {
        config: { permission: 'content.write' },
        schema: {
          tags: ['admin'],
          summary:
            'Publica una versión de la app cliente (se anuncia en el inicio del panel; X-Reauth: cambia lo que descargan los clientes)',
          security: [{ bearer: [] }],
          body: z.object({ version: z.string().trim().min(1).max(40), url: z.url().max(500) }).strict(),
          response: { 201: ClientVersion, 400: ErrorBody, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        // The link every customer's panel offers to download and install: a stolen console session
        // must not be able to point it at its own build (as with a server's host, issue 31).
        await reauth.require(request);
        return reply.status(201).send(await publishClientVersion(ctx, actorOf(request), request.body));
      },
    );
  };

export default adminContentRoutes;
