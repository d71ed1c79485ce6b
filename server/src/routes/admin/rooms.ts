import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminRoomDelete,
  AdminRoomDetail,
  AdminRoomList,
  ErrorBody,
  ListQuery,
  IdParams,
} from '@vpn/contracts';
import { adminDoc } from '../openapi.ts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';
import { deleteRoom, getRoom, listRooms } from '../../services/rooms/roomConsole.ts';

/** Rooms (Salas) of every customer: list, detail, delete (members are told live). */
export const adminRoomRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/partys',
      {
        config: { permission: 'rooms.read' },
        schema: {
          ...adminDoc('Salas: q busca el nombre y el usuario o alias del administrador'),
          querystring: ListQuery,
          response: { 200: AdminRoomList, 400: ErrorBody },
        },
      },
      async (request) => listRooms(ctx.db, request.query),
    );

    app.get(
      '/api/admin/partys/:id',
      {
        config: { permission: 'rooms.read' },
        schema: {
          ...adminDoc('Una sala con sus miembros'),
          params: IdParams,
          response: { 200: AdminRoomDetail, 404: ErrorBody },
        },
      },
      async (request) => getRoom(ctx.db, request.params.id),
    );

    app.delete(
      '/api/admin/partys/:id',
      {
        config: { permission: 'rooms.write' },
        schema: {
          ...adminDoc('Elimina una sala (motivo obligatorio); sus miembros lo ven al instante'),
          params: IdParams,
          body: AdminRoomDelete,
          response: { 204: z.null(), 400: ErrorBody, 404: ErrorBody },
        },
      },
      async (request, reply) => {
        await deleteRoom(ctx.db, ctx.rooms, actorOf(request), request.params.id, request.body.reason);
        return reply.status(204).send(null);
      },
    );
  };

export default adminRoomRoutes;
