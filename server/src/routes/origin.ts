import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';

/**
 * The base URL for links shown in this request's own answer (mirror links): PUBLIC_URL when set,
 * else what the request was addressed to.
 *
 * The Host / X-Forwarded-Host part is chosen by whoever sends the request, so this is only for
 * answers that go back to that same sender: forging it only misleads yourself. Never use it for
 * links that reach anyone else — mails (Mailer.link, PUBLIC_URL only), pushes to other users, URLs
 * handed to payment gateways.
 */
export function originOf(request: FastifyRequest, ctx: AppContext): string {
  return ctx.config.publicUrl ?? `${request.protocol}://${request.host}`;
}
