/**
 * The size budget check (issue 28, limits and reasons in `size-budget.ts`): for each journey, the
 * gzip size of every file it needs in the build at `outDir`, summed and compared with its limit.
 * `scripts/build.ts` runs it last, so a build that passes a budget fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { JOURNEY_MODULES, JOURNEY_PAGE, SIZE_BUDGET } from '../size-budget';

interface ViteChunk {
  file: string;
  imports?: string[];
  css?: string[];
  assets?: string[];
}

interface PrerenderManifest {
  pages: Record<string, { paths: string[]; variants: Record<string, { file?: string }> }>;
}

export interface JourneyCost {
  journey: keyof typeof SIZE_BUDGET;
  /** Every file counted (paths relative to the build, documents under `ssr/pages/`) → gzip bytes. */
  files: Map<string, number>;
  bytes: number;
  limitBytes: number;
}

const gzipSize = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;

/** Files (relative to the build) a document references: scripts, preloads, stylesheets, its icon. */
export function referencedFiles(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="\/([^"]+)"[^>]*>/g)) {
    const tag = m[0];
    if (tag.startsWith('<link') && !/rel="(?:modulepreload|stylesheet|icon|preload)"/.test(tag)) continue;
    found.push(m[1]!);
  }
  return found;
}

/**
 * What /login's boot script fetches once the page is idle (`data-warm`, src/boot.ts): each file
 * alone (a modulepreload fetches the module it names, not its imports; delivery.e2e checks it).
 */
export function warmFiles(html: string): string[] {
  return [...html.matchAll(/\bdata-warm="([^"]*)"/g)].flatMap((m) =>
    m[1]!
      .split(' ')
      .filter(Boolean)
      .map((href) => href.replace(/^\//, '')),
  );
}

/** What each journey costs in the build at `outDir`. */
export function measureJourneys(outDir: string): JourneyCost[] {
  const vite = JSON.parse(readFileSync(join(outDir, '.vite', 'manifest.json'), 'utf8')) as Record<
    string,
    ViteChunk
  >;
  const byFile = new Map(Object.entries(vite).map(([key, chunk]) => [chunk.file, key]));
  const pages = (JSON.parse(readFileSync(join(outDir, 'ssr', 'manifest.json'), 'utf8')) as PrerenderManifest)
    .pages;

  return (Object.keys(SIZE_BUDGET) as (keyof typeof SIZE_BUDGET)[]).map((journey) => {
    const files = new Map<string, number>();
    const add = (file: string) => {
      if (!files.has(file)) files.set(file, gzipSize(join(outDir, file)));
    };
    const addChunk = (key: string, seen = new Set<string>()) => {
      const chunk = vite[key];
      if (!chunk) throw new Error(`size-budget.ts: «${key}» no está en el manifiesto de Vite`);
      if (seen.has(key)) return;
      seen.add(key);
      add(chunk.file);
      for (const css of chunk.css ?? []) add(css);
      for (const imported of chunk.imports ?? []) addChunk(imported, seen);
    };

    // The document: the heaviest variant the pre-render made for the journey's page.
    const path = JOURNEY_PAGE[journey];
    const page = Object.values(pages).find((p) => p.paths.includes(path));
    if (!page) throw new Error(`size-budget.ts: la página ${path} no está pre-renderizada`);
    const documents = [
      ...new Set(Object.values(page.variants).flatMap((v) => (v.file ? [`ssr/${v.file}`] : []))),
    ];
    const heaviest = documents
      .map((file) => ({ file, bytes: gzipSize(join(outDir, file)) }))
      .sort((a, b) => b.bytes - a.bytes)[0]!;
    files.set(heaviest.file, heaviest.bytes);
    const html = readFileSync(join(outDir, heaviest.file), 'utf8');
    for (const file of referencedFiles(html)) {
      const key = byFile.get(file);
      if (key) addChunk(key);
      else add(file);
    }
    for (const file of warmFiles(html)) add(file);
    for (const key of JOURNEY_MODULES[journey]) addChunk(key);

    const bytes = [...files.values()].reduce((a, b) => a + b, 0);
    return { journey, files, bytes, limitBytes: SIZE_BUDGET[journey].limitKiB * 1024 };
  });
}

/** Prints each journey's sum against its limit; the messages of the journeys over budget. */
export function checkBudget(outDir: string): string[] {
  const failures: string[] = [];
  for (const cost of measureJourneys(outDir)) {
    const kib = (n: number) => (n / 1024).toFixed(1);
    const line = `presupuesto ${cost.journey}: ${kib(cost.bytes)} KiB gzip de ${kib(cost.limitBytes)} KiB (${cost.files.size} archivos)`;
    console.log(line);
    if (cost.bytes > cost.limitBytes) {
      const heaviest = [...cost.files]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([file, bytes]) => `  ${kib(bytes)} KiB ${file}`)
        .join('\n');
      failures.push(
        `${line}: excede el presupuesto (web/size-budget.ts: ${SIZE_BUDGET[cost.journey].reason})\n${heaviest}`,
      );
    }
  }
  return failures;
}
