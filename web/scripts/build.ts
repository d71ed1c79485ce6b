/**
 * `npm run build` (web): the production build in three steps, into `dist/` or `--outDir DIR`.
 *
 * 1. the client (Vite, `vite.config.ts`): hashed chunks per route, precompressed `.br`/`.gz` twins;
 * 2. the SSR bundle of the same app (`OUT/ssr/render.js`, self-contained: the control plane loads it
 *    from wherever the build is);
 * 3. the pre-render of the public pages (`scripts/prerender.ts`), and the static page Caddy serves
 *    while no panel answers (`scripts/maintenancePage.ts`).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'vite';
import { checkBudget } from './budget';
import { maintenancePage } from './maintenancePage';
import { prerender } from './prerender';

const root = resolve(import.meta.dirname, '..');
const at = process.argv.indexOf('--outDir');
const outDir = resolve(at > 0 && process.argv[at + 1] ? process.argv[at + 1]! : resolve(root, 'dist'));
const logLevel = process.argv.includes('--quiet') ? 'warn' : 'info';

// The production bundles of React, whatever the caller's environment (vitest sets NODE_ENV=test).
process.env.NODE_ENV = 'production';

await build({ root, logLevel, build: { outDir, emptyOutDir: true } });
await build({
  root,
  logLevel,
  ssr: { noExternal: true },
  // React's production build only (the bundle is self-contained; the server's NODE_ENV may be unset).
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    ssr: 'src/prerender/render.tsx',
    outDir: resolve(outDir, 'ssr'),
    emptyOutDir: true,
    copyPublicDir: false,
    sourcemap: false,
    manifest: false,
    rolldownOptions: { output: { entryFileNames: 'render.js' } },
  },
});
const started = performance.now();
const { pages, files } = await prerender(outDir);
console.log(
  `pre-render: ${pages} páginas públicas, ${files} variantes distintas en ${Math.round(performance.now() - started)} ms`,
);
writeFileSync(resolve(outDir, 'maintenance.html'), maintenancePage());

// The size budget (web/size-budget.ts): a build that passes it fails.
const failures = checkBudget(outDir);
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
