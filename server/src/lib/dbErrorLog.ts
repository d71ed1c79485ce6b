/**
 * How errors reach the logs (pino's `err` serializer). A database error's message carries what the
 * query was given: Drizzle writes every bound parameter into its message ("params: …"), and the
 * driver's own message and detail quote values ('invalid input syntax … "<value>"', 'Key (email)=(…)').
 * Those may be a mirror token, an e-mail, a password hash. So a database error is logged as the
 * query's name (its verb and first table, read from the SQL text, which holds only placeholders),
 * its SQLSTATE and the constraint/table PostgreSQL names — never a message or a parameter.
 */

type Loose = Record<string, unknown> & { cause?: unknown };

interface QueryError {
  query: string;
  params: unknown[];
}

const MAX_DEPTH = 5;

/** A Drizzle query error (`query` + `params`) in the error or its causes. */
function queryErrorOf(e: unknown): QueryError | undefined {
  let err = e;
  for (let depth = 0; err && depth < MAX_DEPTH; depth++) {
    if (isQueryError(err)) return err;
    err = typeof err === 'object' && 'cause' in err ? err.cause : undefined;
  }
  return undefined;
}

function isQueryError(err: unknown): err is QueryError {
  return (
    typeof err === 'object' &&
    err !== null &&
    'query' in err &&
    typeof err.query === 'string' &&
    'params' in err &&
    Array.isArray(err.params)
  );
}

/** A driver error (pg or PGlite: severity + a five-character SQLSTATE) in the error or its causes. */
function driverErrorOf(e: unknown): Loose | undefined {
  for (
    let err = e as Loose | null, depth = 0;
    err && depth < MAX_DEPTH;
    err = err.cause as Loose | null, depth++
  )
    if (typeof err === 'object' && typeof err.severity === 'string' && /^[0-9A-Z]{5}$/.test(String(err.code)))
      return err;
  return undefined;
}

/** `insert into customers`, `update peers`, `delete from rate_limits`, `select from peers`, `select`. */
export function queryName(query: string): string {
  const q = query.replace(/"/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
  const write = /^(insert into|delete from|update) ([a-z_][a-z0-9_.]*)/.exec(q);
  if (write) return `${write[1]} ${write[2]}`;
  const read = /^(?:select|with)\b.*?\bfrom ([a-z_][a-z0-9_.]*)/.exec(q);
  if (read) return `select from ${read[1]}`;
  return /^[a-z]+/.exec(q)?.[0] ?? 'query';
}

/** The stack's frames without its first lines, which repeat the message. */
const framesOf = (err: unknown): string =>
  typeof (err as Loose | null)?.stack === 'string'
    ? (err as { stack: string }).stack
        .split('\n')
        .filter((l) => /^\s+at /.test(l))
        .join('\n')
    : '';

/** What pino writes for an error (its std serializer's shape). */
export interface SerializedError {
  type: string;
  message: string;
  stack: string;
  [key: string]: unknown;
}

function databaseError(
  err: unknown,
  query: QueryError | undefined,
  driver: Loose | undefined,
): SerializedError {
  const name = query ? queryName(query.query) : 'unnamed';
  const sqlstate = typeof driver?.code === 'string' ? driver.code : undefined;
  return {
    type: 'DatabaseError',
    message: `database error ${sqlstate ?? '(no SQLSTATE)'} in ${name}`,
    query: name,
    sqlstate,
    constraint: typeof driver?.constraint === 'string' ? driver.constraint : undefined,
    table: typeof driver?.table === 'string' ? driver.table : undefined,
    stack: framesOf(err),
  };
}

/** pino's `err` serializer: type, message, stack and plain fields, with database errors as above. */
export function serializeError(err: unknown, depth = 0): SerializedError {
  if (!err || typeof err !== 'object' || depth >= MAX_DEPTH)
    return { type: typeof err, message: String(err), stack: '' };
  const query = queryErrorOf(err);
  const driver = driverErrorOf(err);
  const own = err as Loose;
  // The error itself is the database's (or Drizzle's wrapper of it): nothing of its text is logged.
  if ((query && query === (err as unknown)) || (driver && driver === own) || (query && own.cause === query))
    return databaseError(err, query, driver);
  const out: SerializedError = {
    type: (err as object).constructor?.name ?? 'Error',
    message: typeof own.message === 'string' ? own.message : '',
    stack: typeof own.stack === 'string' ? own.stack : '',
  };
  for (const [key, value] of Object.entries(own))
    if (
      !(key in out) &&
      key !== 'cause' &&
      (value === null || ['string', 'number', 'boolean'].includes(typeof value))
    )
      out[key] = value;
  if (own.cause) out.cause = serializeError(own.cause, depth + 1);
  return out;
}

/**
 * An error as a log line's `reason`: a database error is its query's name and SQLSTATE
 * ("database error 23505 in insert into peers"), never the driver's or Drizzle's message, which
 * quote the values; any other error its own message (ours are Spanish and hold no secrets).
 */
export const reasonOf = (err: unknown): string => serializeError(err).message;
