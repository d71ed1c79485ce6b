import { msg } from '@vpn/contracts';

/** An error the API answers with its own status and Spanish message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly fields?: Record<string, string>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, fields?: Record<string, string>) =>
  new HttpError(400, message, 'bad_request', fields);
export const unauthorized = (message: string = msg.unauthorized) =>
  new HttpError(401, message, 'unauthorized');
export const forbidden = (message: string = msg.forbidden) => new HttpError(403, message, 'forbidden');
export const notFound = (message: string = msg.notFound) => new HttpError(404, message, 'not_found');
export const conflict = (message: string) => new HttpError(409, message, 'conflict');
export const tooManyRequests = (retryAfterSeconds: number) =>
  new HttpError(429, msg.tooManyAttempts, 'rate_limited', undefined, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
export const unavailable = (message: string = msg.maintenance) => new HttpError(503, message, 'maintenance');

/** A PostgreSQL unique-constraint violation (23505), from either driver (node-postgres or PGlite via Drizzle). */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string } } | null;
  return err?.code === '23505' || err?.cause?.code === '23505';
}

/** An invoice id (a UUID), checked before it reaches a query. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
