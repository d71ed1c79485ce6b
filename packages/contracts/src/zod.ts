/**
 * The `z` every schema of this package is built with. In a browser, zod's compiled parsers are off
 * before the first schema exists: zod builds them with `new Function`, and finds out whether it may
 * by trying once when an object schema is created, which the SPA's Content-Security-Policy (no
 * 'unsafe-eval', server/src/plugins/security.ts) reports as a violation. Every schema module imports
 * `z` from here, so this runs first whatever order a bundler gives the modules. The server keeps
 * the faster compiled parsers.
 */
import { z } from 'zod';

if ('document' in globalThis) z.config({ jitless: true });

export { z };
