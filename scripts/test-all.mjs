#!/usr/bin/env node
/**
 * `npm test`: every suite of the repository, one after another, then one closing line
 * `N passed, M failed` (the sum over all suites) that CI reads.
 *
 * Suites: contracts, server on PGlite, server on PostgreSQL (when TEST_DATABASE_URL is set),
 * agent, the real WireGuard data plane in network namespaces (as root with wireguard-go), web
 * components, and browser journeys in Debian's Chromium (when /usr/bin/chromium exists).
 * `--only NAME` runs one suite (names below).
 *
 * A suite whose requirements are missing is omitted with a line saying why. On a developer's
 * machine that is allowed; in CI (`CI=true`, set by .ci/run) an omitted suite is a failure: each
 * one counts as one failed test in the closing line, and the line before it lists them, so a
 * machine without PostgreSQL, root or Chromium can never end green.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const reports = join(root, '.reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function canRunWireguard() {
  if (process.getuid?.() !== 0) return false;
  return ['wireguard-go', 'wg', 'nft', 'ip', 'ping'].every(
    (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0,
  );
}
const suites = [
  { name: 'contracts', dir: 'packages/contracts' },
  { name: 'server-pglite', dir: 'server', env: { TEST_DATABASE_URL: '' } },
  {
    name: 'server-postgres',
    dir: 'server',
    skip: !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL no está definida',
  },
  { name: 'agent', dir: 'agent' },
  {
    name: 'dataplane',
    dir: 'server',
    args: ['--config', 'vitest.dataplane.config.ts'],
    // The deployment test (Caddy + two instances) runs on PostgreSQL under its own variable.
    env: { TEST_DATABASE_URL: '', DATAPLANE_DATABASE_URL: process.env.TEST_DATABASE_URL ?? '' },
    skip: !canRunWireguard() && 'hace falta root con wireguard-go, wireguard-tools, nftables e iputils-ping',
  },
  { name: 'web', dir: 'web' },
  {
    name: 'e2e',
    dir: 'web',
    args: ['--config', 'vitest.e2e.config.ts'],
    skip: !existsSync(chromium) && `no hay Chromium en ${chromium} (apt-get install -y chromium)`,
  },
];

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
let passed = 0;
let failed = 0;
let skipped = 0;
const lines = [];
/** Suites not run for want of something (database, root, Chromium), with the reason. */
const omitted = [];
for (const suite of suites) {
  if (only && suite.name !== only && !suite.name.startsWith(`${only}-`)) continue;
  if (suite.skip) {
    omitted.push(`${suite.name} (${suite.skip})`);
    lines.push(`${suite.name}: omitida (${suite.skip})${ci ? ' — en CI cuenta como fallo' : ''}`);
    continue;
  }
  const out = join(reports, `${suite.name}.json`);
  console.log(`\n=== ${suite.name} ===`);
  const res = spawnSync(
    'npx',
    [
      'vitest',
      'run',
      ...(suite.args ?? []),
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${out}`,
    ],
    { cwd: join(root, suite.dir), stdio: 'inherit', env: { ...process.env, ...suite.env } },
  );
  let p = 0;
  let f = 0;
  let s = 0;
  if (existsSync(out)) {
    const r = JSON.parse(readFileSync(out, 'utf8'));
    p = r.numPassedTests;
    f = r.numFailedTests;
    s = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    // A file that failed to load has no tests but is a failure all the same.
    f += (r.testResults ?? []).filter(
      (t) => t.status === 'failed' && (t.assertionResults ?? []).length === 0,
    ).length;
  }
  if (res.status !== 0 && f === 0) f = 1;
  passed += p;
  failed += f;
  skipped += s;
  lines.push(`${suite.name}: ${p} passed, ${f} failed${s ? `, ${s} skipped` : ''}`);
}
// In CI every omitted suite is one failure: a green line means every suite ran.
if (ci) failed += omitted.length;
console.log('\n' + lines.join('\n'));
if (omitted.length > 0)
  console.log(
    `${omitted.length} suite(s) omitted${ci ? ', counted as failed (CI=true)' : ''}: ${omitted.join('; ')}`,
  );
console.log(
  `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${
    omitted.length ? `, ${omitted.length} suite(s) omitted` : ''
  }`,
);
process.exit(failed > 0 ? 1 : 0);
