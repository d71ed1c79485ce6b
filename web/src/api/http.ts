/**
 * The one low-level HTTP helper of the SPA. It knows how to build a request (JSON body, CSRF header,
 * bearer token) and how to turn an answer into data or an {@link ApiError}; it knows nothing about
 * sessions. Authenticated calls go through `session.ts`, which adds refresh-once-on-401 on top.
 */
/**
 * What we need of a zod schema (the contracts' schemas satisfy it). Declared structurally so the web
 * package does not depend on zod directly.
 */
export interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: unknown };
}

/** Header the server requires on every state-changing call (our CSRF defence). */
const CSRF_HEADER = 'X-Requested-With';
const CSRF_VALUE = 'XMLHttpRequest';

/**
 * A failed call. `status` is the HTTP status (0 when the network failed or the answer could not be
 * read); `message` is the server's Spanish `{ message }` when it sent one, so pages can show it as
 * returned and fall back to their own text otherwise.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly serverMessage: string | null;
  readonly code: string | null;

  constructor(status: number, serverMessage: string | null, code: string | null = null) {
    super(serverMessage ?? `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.serverMessage = serverMessage;
    this.code = code;
  }

  /** 503: the service is in maintenance (the spec sends the user to /maintenance). */
  get isMaintenance(): boolean {
    return this.status === 503;
  }

  /** 401/403: the token was refused. */
  get isAuth(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/** The message to show for a failed call: the server's own text, else the page's fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.serverMessage) return error.serverMessage;
  return fallback;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method?: HttpMethod;
  /** Serialized as JSON. */
  body?: unknown;
  /** Bearer access token; when given the call counts as authenticated. */
  token?: string | null;
  signal?: AbortSignal;
  /** Extra headers (the manager's fresh confirmation, X-Reauth). */
  headers?: Record<string, string>;
}

/** Builds the fetch init: JSON content type + CSRF header (+ bearer token when given). */
export function buildInit({
  method = 'GET',
  body,
  token,
  signal,
  headers: extra,
}: RequestOptions): RequestInit {
  const headers: Record<string, string> = { ...extra, [CSRF_HEADER]: CSRF_VALUE, Accept: 'application/json' };
  let payload: string | undefined;
  if (body !== undefined) payload = JSON.stringify(body);
  else if (token && method !== 'GET') {
    // Authenticated calls always declare a JSON body; the server refuses an empty body with a JSON
    // content type, so a body-less PATCH/DELETE/POST sends an empty object.
    payload = '{}';
  }
  if (payload !== undefined || token) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  return { method, headers, body: payload, signal, credentials: 'same-origin' };
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function messageOf(body: unknown): { message: string | null; code: string | null } {
  if (body && typeof body === 'object') {
    const { message, code } = body as { message?: unknown; code?: unknown };
    return {
      message: typeof message === 'string' && message.trim() ? message : null,
      code: typeof code === 'string' ? code : null,
    };
  }
  return { message: null, code: null };
}

/** Sends one request; never retries. Throws {@link ApiError} on a network failure or a non-2xx answer. */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  try {
    return await fetch(path, buildInit(options));
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, null);
  }
}

/**
 * Turns a response into parsed data: a non-2xx answer becomes an {@link ApiError} carrying the
 * server's `{ message }`; a 2xx answer is validated with `schema` when one is given (a contract
 * mismatch is reported as an error rather than rendered half-broken).
 */
export async function parse<T>(res: Response, schema?: Schema<T>): Promise<T> {
  const body = await readJson(res);
  if (!res.ok) {
    const { message, code } = messageOf(body);
    throw new ApiError(res.status, message, code);
  }
  if (!schema) return body as T;
  const result = schema.safeParse(body);
  if (!result.success) {
    console.error(`Respuesta inesperada de ${res.url || 'la API'}`, result.error);
    throw new ApiError(res.status, null, 'invalid_response');
  }
  return result.data;
}

/** An unauthenticated call: `GET /api/client`, login, register… */
export async function publicRequest<T>(
  path: string,
  options: Omit<RequestOptions, 'token'> = {},
  schema?: Schema<T>,
): Promise<T> {
  return parse(await send(path, options), schema);
}
