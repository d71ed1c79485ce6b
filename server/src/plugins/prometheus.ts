import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.ts';
import { notFound, unauthorized } from '../lib/errors.ts';
import type { Telemetry } from '../services/site/telemetry.ts';
import { bearerToken } from './auth.ts';

/** Label of requests no route matched (SPA pages, unknown paths): one series, not one per URL. */
export const UNMATCHED_ROUTE = '(unmatched)';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * `/metrics` for Prometheus, behind `METRICS_TOKEN` (bearer): unset → 404 as if there were no such
 * page, wrong or missing token → 401. Also times every request into the HTTP histogram, labelled by
 * the route pattern (`/api/mirror/:token`), never the URL. Registered before the other plugins so
 * the hook reaches every route, the SPA's pages and the 404s.
 */
async function prometheusPlugin(
  app: FastifyInstance,
  { ctx, telemetry }: { ctx: AppContext; telemetry: Telemetry },
) {
  app.addHook('onResponse', async (request, reply) => {
    telemetry.httpDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? UNMATCHED_ROUTE,
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });

  const expected = ctx.config.metricsToken ? digest(ctx.config.metricsToken) : null;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!expected) throw notFound();
    const token = bearerToken(request);
    if (!token || !timingSafeEqual(digest(token), expected)) throw unauthorized();
    const { contentType, body } = await telemetry.scrape(ctx.db, {
      agents: ctx.agents.count(),
      statsQueued: ctx.agents.statsQueued(),
      snapshotsWaiting: ctx.agents.snapshotsWaiting(),
      connectedServers: ctx.agents.connectedServerIds(),
      browserSockets: ctx.sockets.count(),
      latestAgentVersion: ctx.agentRelease.current()?.version ?? null,
    });
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
}

export const prometheus = fp(prometheusPlugin, { name: 'prometheus', fastify: '5.x' });
