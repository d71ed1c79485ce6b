import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';

/** The public base URL: PUBLIC_URL when set, else what the request was addressed to. */
export function originOf(request: FastifyRequest, ctx: AppContext): string {
  return ctx.config.publicUrl ?? `${request.protocol}://${request.host}`;
}
