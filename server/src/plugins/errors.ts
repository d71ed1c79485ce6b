import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { msg, type ErrorBody } from '@vpn/contracts';
import { HttpError } from '../lib/errors.ts';

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
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return reply.status(status).send({ message: msg.internal, code: 'internal' });
    }
    const code = error.code ?? '';
    const message =
      code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      error instanceof SyntaxError
        ? msg.invalidJson
        : code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? msg.bodyTooLarge
          : status === 404
            ? msg.notFound
            : msg.invalidRequest;
    return reply.status(status).send({ message, code: code || 'bad_request' });
  });
}
