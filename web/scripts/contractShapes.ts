/**
 * The contracts' response schemas as plain JSON Schema, for the SPA to check answers without zod
 * (issue 28): zod with every schema of `@vpn/contracts` is ~37 KiB gzip, a sixth of a customer's
 * whole first visit, and the login and the dashboard home only read answers. This Vite plugin
 * serves `virtual:contract-shapes`: each schema named in {@link SHAPE_NAMES}, converted at build time
 * with zod's own `toJSONSchema` (the shape of what the server may send, `io: 'input'`), checked by
 * `src/api/shape.ts`. The schemas stay the one source of truth: a transform (which JSON Schema
 * cannot say) or a keyword the checker does not know fails the build here rather than being skipped
 * quietly at run time. Refinements (code, e.g. "no control characters" in a name) are not carried:
 * they guard what people send to the server, not what it answers.
 *
 * Forms that check what a customer typed (the Spanish validation texts) keep zod, loaded with them.
 */
import { tsImport } from 'tsx/esm/api';
import type * as Contracts from '@vpn/contracts';
import type { Plugin } from 'vite';

/** The answers the customer's login, dashboard and push socket check this way. */
export const SHAPE_NAMES = [
  'PublicSettings',
  'ServiceStatus',
  'TokenPair',
  'MessageBody',
  'CurrentUser',
  'Peer',
  'PeerList',
  'PeerUsage',
  'AvailableServerList',
  'AdvertisementList',
  'ClientVersion',
  'Room',
  'RoomLists',
  'PushMessage',
  'AdminPush',
] as const;

/** The keywords `src/api/shape.ts` checks (plus annotations it may ignore). */
const KNOWN = new Set([
  '$schema',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  // Annotations: `format` comes with a `pattern` where zod checks one.
  'format',
  'description',
  'title',
]);

function assertKnown(name: string, node: unknown, path: string): void {
  if (Array.isArray(node)) node.forEach((n, i) => assertKnown(name, n, `${path}/${i}`));
  if (!node || typeof node !== 'object' || Array.isArray(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (!KNOWN.has(key))
      throw new Error(`contract-shapes: ${name}${path} usa «${key}», que src/api/shape.ts no comprueba`);
    if (key === 'properties') {
      for (const [prop, sub] of Object.entries(value as object))
        assertKnown(name, sub, `${path}/properties/${prop}`);
    } else if (key !== 'enum' && key !== 'const' && key !== 'required') {
      assertKnown(name, value, `${path}/${key}`);
    }
  }
}

/** The JSON Schemas, by name (exported for tests). */
export async function contractShapes(): Promise<Record<(typeof SHAPE_NAMES)[number], object>> {
  // The contracts are TypeScript: loaded through tsx, whoever runs this (the build, vitest's config).
  const contracts = (await tsImport('@vpn/contracts', import.meta.url)) as typeof Contracts;
  const out = {} as Record<(typeof SHAPE_NAMES)[number], object>;
  for (const name of SHAPE_NAMES) {
    // `unrepresentable: 'throw'` (the default): a transform or a custom type fails the build.
    const shape = contracts[name].toJSONSchema({ io: 'input', reused: 'inline', target: 'draft-2020-12' });
    assertKnown(name, shape, '');
    delete (shape as { $schema?: string }).$schema;
    out[name] = shape;
  }
  return out;
}

const ID = 'virtual:contract-shapes';

export function contractShapesPlugin(): Plugin {
  return {
    name: 'contract-shapes',
    resolveId: (id) => (id === ID ? `\0${ID}` : null),
    load: async (id) =>
      id === `\0${ID}` ? `export default ${JSON.stringify(await contractShapes())};` : null,
  };
}
