/**
 * The web build of another commit, for `web.bench.ts` to measure beside the current one in the same
 * run (issue 32: the public pages' bytes and LCP within 5 % of the build the issue started from).
 *
 * The commit's `web/` and `packages/` (its own `@vpn/contracts`) are taken with `git archive` into a
 * temporary directory outside the repository, its `node_modules` made of links to this checkout's
 * packages (the lock file has not moved for the web's dependencies since 34cf308), and its own
 * `scripts/build.ts` run there: the commit's code with the same bundler and libraries, so what
 * differs between the two builds is the code (34cf308's client files come out byte for byte the same
 * built there or inside this checkout's tree). The result is kept in `node_modules/.cache/bench-web-baseline/<commit>/` and reused;
 * the temporary sources are removed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The build of `commit` (anything `git rev-parse` takes), built now or taken from the cache. */
export function baselineDist(
  repoRoot: string,
  commit: string,
): { sha: string; dist: string; cached: boolean } {
  let sha: string;
  try {
    sha = execFileSync('git', ['-C', repoRoot, 'rev-parse', '--verify', `${commit}^{commit}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch {
    throw new Error(`BENCH_WEB_BASELINE: el commit ${commit} no está en este repositorio`);
  }
  const cacheDir = join(repoRoot, 'node_modules/.cache/bench-web-baseline');
  const dist = join(cacheDir, sha);
  if (existsSync(join(dist, 'ssr/manifest.json'))) return { sha, dist, cached: true };

  const src = mkdtempSync(join(tmpdir(), `vpn-bench-web-${sha.slice(0, 7)}-`));
  const building = `${dist}.${process.pid}`;
  try {
    const tar = join(src, 'tree.tar');
    execFileSync('git', [
      '-C',
      repoRoot,
      'archive',
      `--output=${tar}`,
      sha,
      'web',
      'packages',
      'tsconfig.base.json',
      'package.json',
    ]);
    execFileSync('tar', ['-x', '-f', tar, '-C', src]);
    // This checkout's packages, but the commit's own workspace package.
    const modules = join(repoRoot, 'node_modules');
    mkdirSync(join(src, 'node_modules/@vpn'), { recursive: true });
    for (const name of readdirSync(modules)) {
      if (name === '@vpn' || name === '.cache') continue;
      symlinkSync(join(modules, name), join(src, 'node_modules', name));
    }
    symlinkSync(join(src, 'packages/contracts'), join(src, 'node_modules/@vpn/contracts'));
    const webModules = join(repoRoot, 'web/node_modules');
    if (existsSync(webModules)) symlinkSync(webModules, join(src, 'web/node_modules'));

    console.log(`Compilando la web de ${sha.slice(0, 7)} (la base) en ${src}…`);
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/build.ts', '--outDir', building, '--quiet'],
      { cwd: join(src, 'web'), stdio: 'inherit' },
    );
    if (run.status !== 0)
      throw new Error(
        `la web de ${sha.slice(0, 7)} no compila con las dependencias de esta copia (código ${run.status}); ` +
          `pruebe "npm ci" en una copia de ese commit y BENCH_WEB_BASELINE_DIST con su compilación`,
      );
    rmSync(dist, { recursive: true, force: true });
    renameSync(building, dist);
    return { sha, dist, cached: false };
  } finally {
    rmSync(building, { recursive: true, force: true });
    rmSync(src, { recursive: true, force: true });
  }
}
