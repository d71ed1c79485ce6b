/**
 * Generated bad input for every HTTP route (issue 10, point 3). The routes and their shapes come
 * from the product's own OpenAPI document — itself generated from the contracts' zod schemas — so
 * a new route is fuzzed the day it is added. Values are mostly wrong on purpose: wrong types, out
 * of range, too long, unknown fields, odd Unicode, malformed JSON, absurd path ids.
 */
import fc from 'fast-check';
import {
  agentMsg,
  billingMsg,
  catalogMsg,
  concurrentMsg,
  customersMsg,
  fleetMsg,
  linksMsg,
  msg,
  msgManagers,
} from '@vpn/contracts';
import { telegramMsg } from '../src/services/telegram/texts.ts';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
  additionalProperties?: boolean | JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI path, `{param}` style. */
  path: string;
  pathParams: string[];
  query: Record<string, JsonSchema>;
  body: JsonSchema | null;
}

interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string; schema?: JsonSchema }[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
      }
    >
  >;
}

/** Every operation of an OpenAPI document. */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = op.parameters ?? [];
      out.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: Object.fromEntries(
          params.filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}]),
        ),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  return out;
}

/** Any JSON value, small: what a confused or hostile client might send anywhere. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '<script>alert(1)</script>',
    "' or 1=1 --",
    '../../etc/passwd',
    '🙂'.repeat(50),
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constant('x'.repeat(5000)),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

function typed(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) return fc.oneof(...variants.map((v) => value(v, depth)));
  if (schema.allOf?.length) return value(schema.allOf[0]!, depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string': {
      const max = Math.min(schema.maxLength ?? 60, 200);
      return fc.oneof(
        fc.string({ minLength: Math.min(schema.minLength ?? 0, max), maxLength: max }),
        fc.constantFrom('5.00', '10.64.0.2', '2026-01-01T00:00:00Z', 'a@b.cu', 'add_plan', 'new_peer'),
        fc.uuid().map(String),
      );
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 2 ** 31 - 1) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -10, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(value(schema.items ?? {}, depth + 1), { maxLength: 4 });
    case 'object': {
      if (depth > 3) return fc.constant({});
      const props = Object.entries(schema.properties ?? {});
      const required = new Set(schema.required ?? []);
      return fc.record(Object.fromEntries(props.map(([k, v]) => [k, value(v, depth + 1)])), {
        requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)),
      });
    }
    default:
      return junk;
  }
}

/** A value for `schema`: often well-typed (to reach deeper checks), often wrong. */
export function value(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: typed(schema, depth) }, { weight: 1, arbitrary: junk });
}

const pathParam: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 31 - 1 }).map(String),
  fc.constantFrom('0', '1', '2', '3', '99999999999999999999', '1e3', '-1', 'NaN', 'null', '%00', '..%2F..'),
  fc.uuid().map(String),
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  fc.constant('a'.repeat(300)),
);

export interface FuzzRequest {
  method: string;
  url: string;
  /** JSON-encodable body, or a raw string (malformed JSON on purpose). */
  payload?: unknown;
  raw?: string;
}

/** One request for `op`. */
export function request(op: Operation): fc.Arbitrary<FuzzRequest> {
  const params = fc.tuple(...op.pathParams.map(() => pathParam));
  const query = fc.record(
    Object.fromEntries(
      Object.entries(op.query).map(([k, s]) => [
        k,
        fc.oneof(value(s), junk).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
      ]),
    ),
    { requiredKeys: [] },
  );
  const body: fc.Arbitrary<Pick<FuzzRequest, 'payload' | 'raw'>> =
    op.method === 'GET' || op.method === 'DELETE'
      ? fc.constant({})
      : fc.oneof(
          { weight: 6, arbitrary: value(op.body ?? { type: 'object' }).map((payload) => ({ payload })) },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom('{', '{"a":', 'null', '[]', '"texto"', '{"__proto__":{"x":1}}', '\u0000')
              .map((raw) => ({ raw })),
          },
        );
  return fc.tuple(params, query, body).map(([ps, q, b]) => {
    let path = op.path;
    op.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, ps[i] ?? '1')));
    const qs = new URLSearchParams(q as Record<string, string>).toString();
    return { method: op.method, url: qs ? `${path}?${qs}` : path, ...b };
  });
}

/**
 * The product's API messages: every catalogue of the contracts (and the Telegram routes' own). A
 * refusal's `message` must be one of them, so a framework's English ("Not Found", "'…' is exceeding
 * the max param length") or a text written inline somewhere fails. Placeholders (`{role}`) and a
 * function's arguments (`loginSlowDown(seconds)`) match any text.
 */
const CATALOGUES: Record<string, Record<string, unknown>> = {
  msg,
  billingMsg,
  catalogMsg,
  customersMsg,
  fleetMsg,
  msgManagers,
  agentMsg,
  concurrentMsg,
  telegramMsg,
  linksMsg,
};
const HOLE = '\u0000';
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const KNOWN: RegExp[] = Object.values(CATALOGUES).flatMap((catalogue) =>
  Object.values(catalogue).flatMap((entry) => {
    const text =
      typeof entry === 'string'
        ? entry
        : typeof entry === 'function'
          ? String((entry as (...a: string[]) => unknown)(...Array<string>(entry.length).fill(HOLE)))
          : null;
    if (text === null) return [];
    const holes = text.replace(/\{[a-z_]+\}/gi, HOLE);
    return [new RegExp(`^${holes.split(HOLE).map(escapeRe).join('.+')}$`, 's')];
  }),
);

/** Whether `message` is one of the product's own messages (see KNOWN). */
export const isProductMessage = (message: string): boolean => KNOWN.some((re) => re.test(message));
