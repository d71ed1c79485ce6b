#!/usr/bin/env node
/**
 * Production build: `node scripts/build.mjs [--if-stale] [server] [agent] [web]`.
 *
 * - server, agent: the TypeScript sources compiled file by file to JavaScript in `<pkg>/dist/`
 *   (esbuild: types stripped, `./x.ts` imports rewritten to `./x.js`, npm packages left as imports),
 *   with the shared `@vpn/contracts` compiled into `<pkg>/dist/_contracts/`, so `node dist/main.js`
 *   runs with no TypeScript loader. The layout mirrors `src/` (same depth), so paths the code finds
 *   from `import.meta.url` (migrations, web/dist, autoloaded route folders) hold in both. `server`
 *   builds `agent` too (LOCAL_AGENT runs it). Type checking stays with `npm run typecheck`.
 * - agent also produces `agent/dist/vpn-agent.mjs`: the whole agent in one file (its npm packages
 *   and the contracts bundled, no node_modules, no TypeScript loader) for Node 18.19 and later, the
 *   file the panel serves to VPN servers (`/api/agent/vpn-agent.mjs`, install.sh, upgrades). Its
 *   second line names its version (agent/package.json), which the panel reads.
 *   `node scripts/build.mjs agent-file --version V --out FILE` writes one elsewhere (tests).
 * - web: `npm run build -w web` (the SPA).
 *
 * `--if-stale` skips a target whose sources (contents, not mtimes: a fresh clone or a checkout
 * changes those) hash to what its last build recorded in `dist/.source-hash`;
 * `node scripts/build.mjs hash TARGET` prints that hash of the current sources.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONTRACTS = join(ROOT, 'packages/contracts/src');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.vite', 'test-results', 'coverage', 'e2e', 'testing']);
const isTest = (f) => /\.(test|e2e\.test|d)\.tsx?$/.test(f) || /\.test\.tsx?$/.test(f);

function files(dir, keep = () => true) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(p);
      } else if (keep(p)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

function hashOf(paths) {
  const h = createHash('sha256');
  for (const p of paths) h.update(relative(ROOT, p)).update('\0').update(readFileSync(p)).update('\0');
  return h.digest('hex');
}

const tsSources = (dir) => files(dir, (p) => p.endsWith('.ts') && !isTest(p));

const TARGETS = {
  agent: {
    sources: () => [
      ...tsSources(join(ROOT, 'agent/src')),
      ...tsSources(CONTRACTS),
      join(ROOT, 'agent/package.json'),
      fileURLToPath(import.meta.url),
    ],
    stamp: join(ROOT, 'agent/dist/.source-hash'),
    product: join(ROOT, 'agent/dist/vpn-agent.mjs'),
    build: async () => {
      await compile(join(ROOT, 'agent'));
      await bundleAgent(AGENT_FILE, agentVersion());
    },
  },
  server: {
    sources: () => [
      ...tsSources(join(ROOT, 'server/src')),
      ...tsSources(CONTRACTS),
      fileURLToPath(import.meta.url),
    ],
    stamp: join(ROOT, 'server/dist/.source-hash'),
    product: join(ROOT, 'server/dist/main.js'),
    build: () => compile(join(ROOT, 'server')),
  },
  web: {
    sources: () => [
      ...files(join(ROOT, 'web'), (p) => !isTest(p) && statSync(p).isFile()),
      ...tsSources(CONTRACTS),
    ],
    stamp: join(ROOT, 'web/dist/.source-hash'),
    product: join(ROOT, 'web/dist/index.html'),
    build: () => {
      const run = spawnSync('npm', ['run', 'build', '-w', 'web'], { cwd: ROOT, stdio: 'inherit' });
      if (run.status !== 0) throw new Error('npm run build -w web failed');
    },
  },
};

/** `<pkg>/src/**` → `<pkg>/dist/**`, and the contracts → `<pkg>/dist/_contracts/**`. */
async function compile(pkg) {
  const esbuild = await import('esbuild');
  const outdir = join(pkg, 'dist');
  rmSync(outdir, { recursive: true, force: true });
  const perFile = (srcDir, outDir) => ({
    name: 'per-file',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (args.path === '@vpn/contracts' || args.path.startsWith('@vpn/contracts/')) {
          const sub = args.path === '@vpn/contracts' ? 'index' : args.path.slice('@vpn/contracts/'.length);
          const from = dirname(join(outDir, relative(srcDir, args.importer)));
          const rel = relative(from, join(outdir, '_contracts', `${sub}.js`));
          return { path: rel.startsWith('.') ? rel : `./${rel}`, external: true };
        }
        if (args.path.startsWith('.')) return { path: args.path.replace(/\.ts$/, '.js'), external: true };
        return { path: args.path, external: true };
      });
    },
  });
  for (const [srcDir, outDir] of [
    [join(pkg, 'src'), outdir],
    [CONTRACTS, join(outdir, '_contracts')],
  ]) {
    await esbuild.build({
      entryPoints: tsSources(srcDir),
      outdir: outDir,
      outbase: srcDir,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
      plugins: [perFile(srcDir, outDir)],
    });
  }
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n');
}

export const AGENT_FILE = join(ROOT, 'agent/dist/vpn-agent.mjs');
const agentVersion = () => JSON.parse(readFileSync(join(ROOT, 'agent/package.json'), 'utf8')).version;

/**
 * The agent as one ES module for Node 18.19+ (Debian 12/13's and Ubuntu 24.04's `nodejs`): syntax
 * lowered to node18 (APIs newer than 18.19 must not be used in agent/src: the data-plane test runs
 * this file on Debian 12's Node 18). `require` is provided for the CommonJS packages bundled in
 * (ws); ws's optional native add-ons are left out (it falls back to JavaScript).
 */
async function bundleAgent(outfile, version) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(ROOT, 'agent/src/main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node18.19',
    external: ['bufferutil', 'utf-8-validate'],
    define: {
      __VPN_AGENT_VERSION__: JSON.stringify(version),
      __VPN_AGENT_BUNDLE__: 'true',
    },
    alias: { '@vpn/contracts': CONTRACTS },
    banner: {
      js: [
        '#!/usr/bin/env node',
        `// vpn-agent ${version}: the VPN node agent in one file (Node >= 18.19). Served by the panel at /api/agent/vpn-agent.mjs.`,
        "import { createRequire as __vpnCreateRequire } from 'node:module';",
        'const require = __vpnCreateRequire(import.meta.url);',
      ].join('\n'),
    },
    legalComments: 'none',
    logLevel: 'warning',
  });
}

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
// `hash TARGET`: the hash of TARGET's sources, as `--if-stale` compares it with `dist/.source-hash`.
if (args[0] === 'hash') {
  const target = TARGETS[args[1]];
  if (!target) throw new Error(`unknown target ${args[1]} (server, agent, web)`);
  console.log(hashOf(target.sources()));
  process.exit(0);
}
if (args[0] === 'agent-file') {
  const out = option('--out');
  if (!out) throw new Error('agent-file needs --out FILE');
  await bundleAgent(out, option('--version') ?? agentVersion());
  process.exit(0);
}
const ifStale = args.includes('--if-stale');
let names = args.filter((a) => !a.startsWith('--'));
if (names.length === 0) names = ['server', 'web'];
for (const n of names) if (!TARGETS[n]) throw new Error(`unknown target ${n} (server, agent, web)`);
if (names.includes('server') && !names.includes('agent')) names.unshift('agent');

for (const name of names) {
  const target = TARGETS[name];
  const hash = hashOf(target.sources());
  const current =
    existsSync(target.product) &&
    existsSync(target.stamp) &&
    readFileSync(target.stamp, 'utf8').trim() === hash;
  if (ifStale && current) continue;
  const started = Date.now();
  await target.build();
  writeFileSync(target.stamp, `${hash}\n`);
  console.log(`built ${name} in ${Date.now() - started} ms`);
}
