import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { WebSocketServer } from 'ws';
import { AGENT_MAX_MESSAGE_BYTES, msg, type PushMessage } from '@vpn/contracts';
import type { AppContext } from '../context.ts';
import { bearerToken } from '../plugins/auth.ts';
import { findServerByAgentToken, type ServerRow } from '../services/fleet/servers.ts';
import { unauthorized } from '../lib/errors.ts';
import type { Principal } from '../services/identity/sessions.ts';

const PING_MS = 30_000;

/**
 * Largest message a browser may send on `/ws`. Browsers only listen, and the socket is open (and
 * its frames buffered) before the token is checked, so anything bigger closes it (1009).
 */
export const BROWSER_WS_MAX_PAYLOAD = 4 * 1024;

/**
 * Message size limits by channel. `ws` applies one `maxPayload` per server, read while a connection
 * is upgraded (synchronously inside `handleUpgrade`), so it is set per path just before: agents
 * (authenticated before the upgrade) get AGENT_MAX_MESSAGE_BYTES, everything else the browsers'.
 */
export function limitWebsocketPayloads(wss: WebSocketServer): void {
  const upgrade = wss.handleUpgrade.bind(wss);
  wss.handleUpgrade = (request, socket, head, callback) => {
    const path = (request.url ?? '').split('?')[0];
    wss.options.maxPayload = path === '/api/agent/ws' ? AGENT_MAX_MESSAGE_BYTES : BROWSER_WS_MAX_PAYLOAD;
    upgrade(request, socket, head, callback);
  };
}

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
        const checkedAt = Date.now();
        let principal: Principal | null = null;
        for (const realm of ['customer', 'manager'] as const) {
          principal = await ctx.sessions.verifyAccess(token, realm).catch(() => null);
          if (principal) break;
        }
        const send = (m: PushMessage) => socket.send(JSON.stringify(m));
        if (!principal || !ctx.sockets.add(principal, socket, token, checkedAt)) {
          send({ type: 'auth', status: 'error', message: msg.unauthorized });
          socket.close(4401, 'unauthorized');
          return;
        }
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
