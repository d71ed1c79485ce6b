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

/** PostgreSQL chose this transaction as a deadlock's victim (40P01): it did nothing and may run again. */
export function isDeadlock(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string } } | null;
  return err?.code === '40P01' || err?.cause?.code === '40P01';
}

/** The constraint a database error names (PostgreSQL and PGlite, drizzle-wrapped or not), if any. */
export function constraintOf(e: unknown): string | undefined {
  const err = e as { constraint?: string; cause?: { constraint?: string } } | null;
  return err?.constraint ?? err?.cause?.constraint;
}

/** An invoice id (a UUID), checked before it reaches a query. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Socket errors and SQLSTATEs that mean "the database cannot be reached", not "the query is wrong". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const UNREACHABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i;

/**
 * PostgreSQL is down, restarting or cut off (node-postgres errors, possibly wrapped by Drizzle):
 * the request answers 503 and the next one tries again, since the pool reconnects on its own.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  return someCause(
    e,
    (code, message) =>
      UNREACHABLE_CODES.has(code) || code.startsWith('08') || UNREACHABLE_MESSAGES.test(message),
  );
}

/**
 * The database's disk is full (SQLSTATE 53100, "could not extend file … No space left on device"
 * from PGlite or PostgreSQL, possibly wrapped by Drizzle): the write was rolled back, nothing changed.
 */
export function isDiskFull(e: unknown): boolean {
  return someCause(
    e,
    (code, message) => code === '53100' || code === 'ENOSPC' || /No space left on device/i.test(message),
  );
}

/** Whether an error or one of its causes (drivers and Drizzle wrap them, up to 4 deep) matches. */
function someCause(e: unknown, test: (code: string, message: string) => boolean): boolean {
  for (
    let err = e as { code?: unknown; message?: unknown; cause?: unknown } | null, depth = 0;
    err && depth < 4;
    depth++
  ) {
    const code = typeof err.code === 'string' ? err.code : '';
    const message = typeof err.message === 'string' ? err.message : '';
    if (test(code, message)) return true;
    err = err.cause as typeof err;
  }
  return false;
}
