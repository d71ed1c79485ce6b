import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** What every route file of an area exports by default. */
export type RouteFactory = (ctx: AppContext) => FastifyPluginAsync;

/**
 * An area registers itself: every route file in its folder (tests and index aside) default-exports
 * a factory of its routes, and is registered in name order. Adding a page's routes is adding a
 * file; app.ts only composes areas (as fastify/demo's autoloaded folders do).
 */
export function area(dir: string, ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    const files = readdirSync(dir)
      .filter((f) => /\.(ts|js)$/.test(f) && !/\.(test|d)\.(ts|js)$/.test(f) && !/^index\./.test(f))
      .sort();
    for (const file of files) {
      const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: RouteFactory };
      if (typeof mod.default !== 'function')
        throw new Error(`${file}: un archivo de rutas debe exportar por defecto su fábrica de rutas`);
      await app.register(mod.default(ctx));
    }
  };
}
