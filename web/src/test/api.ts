/**
 * A fake of the control plane at the network boundary (`fetch`), for component tests: routes are
 * 'METHOD /path' → a reply (or a function of the request returning one). Every call is recorded.
 */
import { vi } from 'vitest';
import type { Plan, PublicSettings } from '../api/types';

export interface Reply {
  status?: number;
  body?: unknown;
  /** A plain-text answer (a config file) instead of JSON. */
  text?: string;
  /** Extra headers of a `text` answer (a download's Content-Type and Content-Disposition). */
  headers?: Record<string, string>;
}

export interface RecordedCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export type Handler = Reply | ((call: RecordedCall) => Reply | Promise<Reply>);

export interface FakeApi {
  calls: RecordedCall[];
  /** Replaces or adds a route. */
  on(route: string, handler: Handler): void;
  callsTo(route: string): RecordedCall[];
}

export const defaultSettings: PublicSettings = {
  maintenance: false,
  allow_registration: true,
  allow_password_recovery: true,
  show_landing: true,
  allow_payments_qvapay: false,
  allow_payments_remesita: false,
  allow_email: true,
};

/** A plan's speed terms when it sells no speed (issue 35). */
export const unlimitedSpeed = {
  speed_down_mbit: null,
  speed_up_mbit: null,
  on_data_exhausted: 'cut',
  reduced_kbit: 256,
  grace_days: 0,
} as const;

export const samplePlans: Plan[] = [
  {
    id: 1,
    name: 'Básico',
    description: 'Un dispositivo. Servidores en Europa. Soporte por chat.',
    price: 5,
    validity: '30 days 00:00:00',
    data_gb: null,
    ...unlimitedSpeed,
  },
  {
    id: 2,
    name: 'Trimestral',
    description: 'Tres meses de conexión.',
    price: 12.5,
    validity: '90 days 00:00:00',
    data_gb: 50,
    ...unlimitedSpeed,
  },
  {
    id: 3,
    name: 'Anual',
    description: 'Un año completo.',
    price: 40,
    validity: '365 days 00:00:00',
    data_gb: null,
    ...unlimitedSpeed,
  },
];

export const sampleUser = {
  id: 7,
  username: 'juan',
  alias: null,
  email: 'juan@example.com',
  email_verified: false,
  web_settings: { allow_partys: true, allow_email: true },
};

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

/**
 * Stubs `fetch` with the given routes (public settings, status, and an empty dashboard home — no
 * announcements, no client release — answer by default).
 */
export function fakeApi(routes: Record<string, Handler> = {}): FakeApi {
  const table = new Map<string, Handler>([
    ['GET /api/client', { body: defaultSettings }],
    ['GET /api/client/status', { body: { maintenance: false } }],
    ['GET /api/client/advertisements', { body: [] }],
    ['GET /api/client/agent', { body: { version: null, url: null } }],
    ...Object.entries(routes),
  ]);
  const calls: RecordedCall[] = [];

  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input.toString(), 'http://localhost');
    const method = (init?.method ?? 'GET').toUpperCase();
    const raw = init?.body;
    const call: RecordedCall = {
      method,
      path: url.pathname,
      headers: headersOf(init),
      body: typeof raw === 'string' ? (JSON.parse(raw) as unknown) : undefined,
    };
    calls.push(call);
    const handler = table.get(`${method} ${url.pathname}`);
    if (!handler) return jsonResponse(404, { message: `Sin ruta falsa para ${method} ${url.pathname}` });
    const reply = typeof handler === 'function' ? await handler(call) : handler;
    if (reply.text !== undefined) {
      return new Response(reply.text, {
        status: reply.status ?? 200,
        headers: { 'Content-Type': 'text/plain; charset=utf-8', ...reply.headers },
      });
    }
    return jsonResponse(reply.status ?? 200, reply.body);
  });
  vi.stubGlobal('fetch', fetchMock);

  return {
    calls,
    on(route, handler) {
      table.set(route, handler);
    },
    callsTo(route) {
      const [method, path] = route.split(' ');
      return calls.filter((c) => c.method === method && c.path === path);
    },
  };
}

export function jsonResponse(status: number, body: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** A promise with its resolver exposed (to hold a fake reply while asserting the busy state). */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
