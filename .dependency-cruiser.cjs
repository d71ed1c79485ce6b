/**
 * The import rules of server/src (issue 18), checked by `npm run check:deps` (in `npm run check`
 * and .ci/run). docs/architecture.md draws the tree; docs/decisions.md says why.
 *
 * 1. No circular imports, type-only imports included.
 * 2. Floors: a file imports only from its own floor or a lower one (FLOORS, lowest first).
 * 3. Domains: inside services/, a domain folder imports only from itself or an earlier domain
 *    (DOMAINS, lowest first). Files directly in services/ are not allowed: each has a domain.
 * Tests (*.test.ts) are left out: a test may reach any floor to set up what it checks.
 */
const SRC = '^server/src/';

/** Lowest first. A floor may import its own files and every floor before it, never a later one. */
const FLOORS = [
  ['lib', 'lib/'],
  ['config', 'config\\.ts$'],
  ['db', 'db/'],
  ['realtime', 'realtime/'],
  ['services', 'services/'],
  ['agents', 'agents/'],
  ['context', 'context\\.ts$'],
  ['plugins', 'plugins/'],
  ['routes', 'routes/'],
  ['composition', '(app|main|scheduler)\\.ts$|cli/'],
];

/** services/<domain>/, lowest first: a domain may import its own files and earlier domains only. */
const DOMAINS = ['site', 'fleet', 'peers', 'rooms', 'billing', 'identity', 'telegram'];

const path = (suffix) => `${SRC}(${suffix})`;

const floorRules = FLOORS.slice(0, -1).map(([name, from], i) => ({
  name: `floor-${name}`,
  severity: 'error',
  comment: `${name} is floor ${i} of server/src: it may not import a higher floor (${FLOORS.slice(i + 1)
    .map(([n]) => n)
    .join(', ')}).`,
  from: { path: path(from) },
  to: { path: FLOORS.slice(i + 1).map(([, p]) => path(p)) },
}));

const domainRules = DOMAINS.slice(0, -1).map((name, i) => ({
  name: `domain-${name}`,
  severity: 'error',
  comment: `services/${name} may not import a later domain (${DOMAINS.slice(i + 1).join(', ')}).`,
  from: { path: `${SRC}services/${name}/` },
  to: { path: DOMAINS.slice(i + 1).map((d) => `${SRC}services/${d}/`) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle, type-only imports included.',
      from: { path: SRC },
      to: { circular: true },
    },
    ...floorRules,
    ...domainRules,
    {
      name: 'services-in-a-domain',
      severity: 'error',
      comment: 'Every service lives in a domain folder (services/<domain>/), none directly in services/.',
      from: { path: `${SRC}services/[^/]+$` },
      to: {},
    },
    {
      name: 'services-in-a-domain-imported',
      severity: 'error',
      comment: 'Nothing imports a file directly in services/: it belongs in a domain folder.',
      from: { path: SRC },
      to: { path: `${SRC}services/[^/]+$` },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a file moved without its imports.',
      from: { path: SRC },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    includeOnly: SRC,
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
