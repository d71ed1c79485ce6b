import type { FastifyServerOptions } from 'fastify';

/**
 * Config.trustProxy as Fastify takes it. A hop count becomes proxy-addr's `hop < n` (Fastify's
 * types omit numbers); a list of addresses/CIDRs and booleans pass through.
 */
export function fastifyTrustProxy(value: boolean | number | string): FastifyServerOptions['trustProxy'] {
  if (typeof value === 'number') return (_address: string, hop: number) => hop < value;
  return value;
}
