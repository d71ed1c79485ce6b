import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CreateRoomBody,
  ErrorBody,
  JoinRoomBody,
  MessageBody,
  Room,
  RoomLists,
  RoomPatchBody,
  msg,
  IdParams,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { notFound } from '../../lib/errors.ts';
import { getSiteSettings } from '../../services/site/settings.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };

/** Rooms (Salas), only while the site allows them. */
export const roomRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    // Rooms switched off: 404, not 403 — the SPA treats 401/403 as an expired session.
    app.addHook('preHandler', async (request) => {
      if (
        request.routeOptions.url?.startsWith('/api/client/network/partys') &&
        !(await getSiteSettings(ctx.db)).allow_partys
      ) {
        throw notFound(msg.aliasDisabled);
      }
    });

    app.get(
      '/api/client/network/partys',
      {
        schema: {
          tags: ['rooms'],
          summary: 'Salas propias y como invitado',
          security: [{ bearer: [] }],
          response: { 200: RoomLists, ...errors },
        },
      },
      async (request) => ctx.rooms.list(principalOf(request).id),
    );

    app.post(
      '/api/client/network/partys',
      {
        schema: {
          tags: ['rooms'],
          summary: 'Crea una sala con un peer libre',
          security: [{ bearer: [] }],
          body: CreateRoomBody,
          response: { 201: Room, ...errors },
        },
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(await ctx.rooms.create(principalOf(request).id, request.body.name, request.body.peer)),
    );

    app.patch(
      '/api/client/network/partys',
      {
        schema: {
          tags: ['rooms'],
          summary: 'Unirse a una sala (nombre, contraseña y peer)',
          security: [{ bearer: [] }],
          body: JoinRoomBody,
          response: { 200: Room, ...errors },
        },
      },
      async (request) =>
        ctx.rooms.join(principalOf(request).id, request.body.name, request.body.password, request.body.peer),
    );

    app.patch(
      '/api/client/network/partys/:id',
      {
        schema: {
          tags: ['rooms'],
          summary: 'regenerate_password, leave, remove_peer o add_peer',
          security: [{ bearer: [] }],
          params: IdParams,
          body: RoomPatchBody,
          response: { 200: z.union([Room, z.object({ password: z.string() }), MessageBody]), ...errors },
        },
      },
      async (request) => {
        const me = principalOf(request).id;
        const body = request.body;
        switch (body.operation) {
          case 'regenerate_password':
            return { password: await ctx.rooms.regeneratePassword(me, request.params.id) };
          case 'add_peer':
            return ctx.rooms.addPeer(me, request.params.id, body.peer);
          case 'leave':
          case 'remove_peer': {
            const room = await ctx.rooms.removePeer(
              me,
              request.params.id,
              body.peer,
              body.operation === 'leave',
            );
            return room ?? { message: msg.roomLeft };
          }
        }
      },
    );

    app.delete(
      '/api/client/network/partys/:id',
      {
        schema: {
          tags: ['rooms'],
          summary: 'Elimina la sala (solo su administrador)',
          security: [{ bearer: [] }],
          params: IdParams,
          response: { 200: MessageBody, ...errors },
        },
      },
      async (request) => {
        await ctx.rooms.delete(principalOf(request).id, request.params.id);
        return { message: msg.roomDeleted };
      },
    );
  };

export default roomRoutes;
