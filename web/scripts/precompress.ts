/**
 * Build-time compression: every text file of the build gets a `.br` (brotli, quality 11) and a `.gz`
 * (gzip, level 9) twin, which the control plane serves as they are (`@fastify/static`'s
 * `preCompressed`) to browsers that ask for them. Done once here, at the highest settings, instead of
 * on every request. A twin that would not be smaller is not written. Source maps are left out: only
 * developer tools fetch them.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|xml|webmanifest)$/;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Writes the twins for every compressible file under `dir`; returns how many files it compressed. */
export function precompress(dir: string, skip: (path: string) => boolean = () => false): number {
  let count = 0;
  for (const path of files(dir)) {
    if (!COMPRESSIBLE.test(path) || skip(path)) continue;
    const source = readFileSync(path);
    if (source.length < 256) continue;
    const br = brotliCompressSync(source, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
      },
    });
    const gz = gzipSync(source, { level: 9 });
    if (br.length < source.length) writeFileSync(`${path}.br`, br);
    if (gz.length < source.length) writeFileSync(`${path}.gz`, gz);
    count++;
  }
  return count;
}

/** The Vite plugin: compresses the client build once it is written (not the SSR build). */
export function precompressPlugin(): Plugin {
  let outDir = '';
  let ssr = false;
  return {
    name: 'vpn-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
      ssr = Boolean(config.build.ssr);
    },
    closeBundle() {
      if (!ssr) precompress(outDir);
    },
  };
}
