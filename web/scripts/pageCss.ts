/**
 * The CSS one pre-rendered page uses (issue 28): Tailwind compiled from the app's stylesheet
 * (`src/index.css`, the same theme and base layer) for exactly the classes in the page's markup,
 * inlined in its `<style>`, so the first paint waits for no stylesheet. The whole stylesheet, for
 * what the app draws later (errors, dialogs, other pages), comes with the application
 * (`src/boot.ts`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { compile } from 'tailwindcss';

const require = createRequire(import.meta.url);
const stylesheet = resolve(import.meta.dirname, '../src/index.css');
const tailwindDir = dirname(require.resolve('tailwindcss/index.css'));

/** Every class named in a `class` attribute of `html`. */
export function classesOf(html: string): string[] {
  const found = new Set<string>();
  for (const m of html.matchAll(/\sclass="([^"]*)"/g))
    for (const name of m[1]!.replaceAll('&amp;', '&').split(/\s+/)) if (name) found.add(name);
  return [...found].sort();
}

/** A minified stylesheet with the theme, the base layer and the utilities `html` uses. */
export async function pageCss(html: string, extraClasses: readonly string[] = []): Promise<string> {
  // A new compiler per page: a compiler's `build` adds to what earlier builds asked for.
  const compiler = await compile(readFileSync(stylesheet, 'utf8'), {
    base: dirname(stylesheet),
    loadStylesheet: async (id, base) => {
      const path = id === 'tailwindcss' ? resolve(tailwindDir, 'index.css') : resolve(base, id);
      return { path, base: dirname(path), content: readFileSync(path, 'utf8') };
    },
  });
  return minify(compiler.build([...classesOf(html), ...extraClasses]));
}

/** Comments and layout whitespace out (Tailwind writes one declaration a line, indented). */
function minify(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s*\n\s*/g, '')
    .replace(/\s*([{};,>])\s*/g, '$1')
    .replace(/:\s+/g, ':')
    .replace(/;}/g, '}');
}
