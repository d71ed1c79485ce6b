import type { FastifyInstance } from 'fastify';
import { msg } from '@vpn/contracts';
import { badRequest } from '../lib/errors.ts';

/** Whether any string inside `value` (objects and arrays included) holds a NUL character. */
function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 20 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => hasNul(v, depth + 1));
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || hasNul(v, depth + 1));
}

/**
 * Refuses NUL characters in paths, queries and bodies before anything reads them: PostgreSQL
 * cannot store them in text, so they would otherwise surface as a 500 deep in a query (found by
 * the generated-input test).
 */
export function registerInputGuards(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (hasNul(request.params) || hasNul(request.query) || hasNul(request.body))
      throw badRequest(msg.invalidCharacters);
  });
}
