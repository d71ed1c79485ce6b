import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { PushMessage } from '@vpn/contracts';
import type { AppContext } from '../context.ts';
import { bearerToken } from '../plugins/auth.ts';
import { findServerByAgentToken, type ServerRow } from '../services/servers.ts';
import { unauthorized } from '../lib/errors.ts';
import type { Principal } from '../services/sessions.ts';

const PING_MS = 30_000;

/** `/ws?token=…` for browsers (push messages) and `/api/agent/ws` for node agents. */
export const realtimeRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/ws',
      {
        websocket: true,
        schema: { hide: true, querystring: z.object({ token: z.string().max(4096).optional() }) },
      },
      async (socket, request) => {
        const token = (request.query as { token?: string }).token ?? '';
        let principal: Principal | null = null;
        for (const realm of ['customer', 'manager'] as const) {
          principal = await ctx.sessions.verifyAccess(token, realm).catch(() => null);
          if (principal) break;
        }
        const send = (m: PushMessage) => socket.send(JSON.stringify(m));
        if (!principal) {
          send({ type: 'auth', status: 'error', message: 'No autorizado. Por favor, inicie sesión.' });
          socket.close(4401, 'unauthorized');
          return;
        }
        ctx.sockets.add(principal.realm, principal.id, socket);
        send({ type: 'auth', status: 'ok' });
        // Keeps idle connections alive through proxies and notices dead peers.
        const timer = setInterval(() => socket.ping(), PING_MS);
        socket.on('close', () => clearInterval(timer));
        socket.on('message', () => {
          // Browsers only listen; anything they send is ignored.
        });
      },
    );

    // The agent's server is looked up before the upgrade: the socket's message handler must be
    // attached synchronously in the handler, or the agent's first message (hello) could be lost.
    const agentServers = new WeakMap<object, ServerRow>();
    app.get(
      '/api/agent/ws',
      {
        websocket: true,
        schema: { hide: true },
        preValidation: async (request) => {
          const token = bearerToken(request);
          const server = token ? await findServerByAgentToken(ctx.db, token) : undefined;
          if (!server) throw unauthorized();
          agentServers.set(request.raw, server);
        },
      },
      (socket, request) => {
        const server = agentServers.get(request.raw);
        if (!server) return socket.close(4401, 'unauthorized');
        ctx.agents.attach(socket, server);
      },
    );
  };
