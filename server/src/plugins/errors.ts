import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { msg, type ErrorBody } from '@vpn/contracts';
import { HttpError, isDatabaseUnavailable, isDiskFull } from '../lib/errors.ts';

/** What a browser opening a page gets while the database cannot be reached (no script, no asset). */
const MAINTENANCE_PAGE = `<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta http-equiv="refresh" content="15"><title>Mantenimiento</title></head><body style="font-family:system-ui,sans-serif;max-width:560px;margin:15vh auto;padding:24px;color:#0f172a;text-align:center"><h1 style="font-size:1.4rem">${msg.maintenance}</h1></body></html>`;

/**
 * Fastify's `frameworkErrors`: refusals its router makes before any route or error handler runs (a
 * path segment past maxParamLength, a malformed %-escape), which it would answer in English.
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  void reply
    .status(tooLong ? 414 : 400)
    .send({ message: tooLong ? msg.urlTooLong : msg.invalidRequest, code: 'bad_url' } satisfies ErrorBody);
}

/** How much of a refused body is read and discarded before the 413, and for how long at most. */
const DISCARD_MAX_BYTES = 16 * 1024 * 1024;
const DISCARD_MAX_MS = 10_000;

/**
 * Reads the rest of a request body and throws it away. True when it ended within the bounds (the
 * connection can serve the next request); false past them, or when the client went away.
 */
function discardBody(raw: IncomingMessage): Promise<boolean> {
  if (raw.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let bytes = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('error', onGone);
      raw.off('close', onGone);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > DISCARD_MAX_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onGone = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), DISCARD_MAX_MS);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('error', onGone);
    raw.once('close', onGone);
    raw.resume();
  });
}

/** The one place that turns errors into `{ message }` answers (Spanish; 5xx internals hidden). */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      if (error.headers) reply.headers(error.headers);
      const body: ErrorBody = { message: error.message, code: error.code };
      if (error.fields) body.fields = error.fields;
      return reply.status(error.status).send(body);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const fields: Record<string, string> = {};
      for (const issue of error.validation) {
        const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        fields[path || '_'] = issue.message ?? msg.invalidRequest;
      }
      return reply.status(400).send({ message: msg.invalidRequest, code: 'validation', fields });
    }
    if (isDatabaseUnavailable(error)) {
      // The pool reconnects by itself. The API's code makes the SPA show its maintenance page; a
      // page the browser asked for (pre-rendered pages need the database) gets a plain one.
      request.log.warn({ err: error }, 'database unavailable');
      reply.status(503).header('retry-after', '5').header('cache-control', 'no-store');
      if (!request.url.startsWith('/api/') && /text\/html/.test(request.headers.accept ?? ''))
        return reply.type('text/html; charset=utf-8').send(MAINTENANCE_PAGE);
      return reply.send({ message: msg.maintenance, code: 'maintenance' } satisfies ErrorBody);
    }
    if (isDiskFull(error)) {
      // The transaction was rolled back: a clear answer for the user, a clear line for the operator.
      request.log.error(
        { err: error },
        'disco lleno: la base de datos no puede escribir; libere espacio (DATA_DIR o el disco de PostgreSQL)',
      );
      reply.status(503).header('retry-after', '60').header('cache-control', 'no-store');
      return reply.send({ message: msg.diskFull, code: 'disk_full' } satisfies ErrorBody);
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return reply.status(status).send({ message: msg.internal, code: 'internal' });
    }
    const code = error.code ?? '';
    // Fastify answers a body over the limit with `connection: close`, closing the socket while a
    // reverse proxy may still be sending that body: the proxy then gets a reset, not this answer
    // (Caddy: 502, ~1 in 15 for 2 MB). Answered while the proxy still sends it, Caddy's HTTP/2 side
    // sometimes cut the answer's body (curl: "transfer closed with 82 bytes remaining", 1 in ~40).
    // So the rest is read and discarded first, up to a bound, then answered on a kept connection;
    // past the bound the connection closes as Fastify would (docs/decisions.md, issue 16).
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return discardBody(request.raw).then((whole) => {
        if (whole) reply.removeHeader('connection');
        else reply.header('connection', 'close');
        return reply.status(413).send({ message: msg.bodyTooLarge, code } satisfies ErrorBody);
      });
    const message =
      code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      error instanceof SyntaxError
        ? msg.invalidJson
        : status === 404
          ? msg.notFound
          : msg.invalidRequest;
    return reply.status(status).send({ message, code: code || 'bad_request' });
  });
}
