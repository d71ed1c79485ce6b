/**
 * axe-core in the browser journeys: one helper every page test calls on a page state it has
 * reached (a loaded list, an open dialog…). axe's own script is evaluated in the page through the
 * DevTools protocol, so the page's Content-Security-Policy (scripts from the build only) neither
 * blocks it nor has to be loosened for tests.
 *
 * A state passes with no violation of impact `serious` or `critical` among the WCAG 2.x A/AA rules
 * and axe's best practices. Lesser ones (`moderate`, `minor`) are returned, not failed on, so a test
 * can print or assert them where it wants to.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** What a violation says in a failure message: rule, impact, axe's help and the first elements. */
export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

let source: string | undefined;
/** axe.min.js, read once per worker from the installed package (no browser download). */
function axeSource(): string {
  source ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return source;
}

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/**
 * Every axe violation on the page as it is now (`exclude`: CSS selectors left out, e.g. a
 * third-party widget). The page must have rendered the state to check: wait for it first.
 */
export async function axeViolations(page: Page, exclude: string[] = []): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(axeSource());
  return page.evaluate(
    async ({ tags, exclude }) => {
      const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<unknown> } })
        .axe;
      const result = (await axe.run(
        { include: [document], exclude: exclude.map((s) => [s]) },
        { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] },
      )) as { violations: AxeViolation[] };
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        helpUrl: v.helpUrl,
        nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
      }));
    },
    { tags: TAGS, exclude },
  );
}

const BLOCKING = new Set(['serious', 'critical']);

/** A readable list: one line per rule, then up to three of its elements with axe's summary. */
export function describeViolations(violations: readonly AxeViolation[]): string {
  return violations
    .map((v) => {
      const nodes = v.nodes
        .slice(0, 3)
        .map(
          (n) =>
            `    ${n.target.join(' ')}${n.failureSummary ? `\n      ${n.failureSummary.replace(/\n/g, '\n      ')}` : ''}`,
        )
        .join('\n');
      const more = v.nodes.length > 3 ? `\n    … y ${v.nodes.length - 3} más` : '';
      return `  [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length})\n${nodes}${more}`;
    })
    .join('\n');
}

/**
 * Fails (throws, naming `state` and each rule with its elements) when axe finds a serious or
 * critical violation on the page as it is now. Answers the lesser violations.
 */
export async function expectAccessible(
  page: Page,
  state: string,
  { exclude = [] }: { exclude?: string[] } = {},
): Promise<AxeViolation[]> {
  const violations = await axeViolations(page, exclude);
  const blocking = violations.filter((v) => v.impact !== null && BLOCKING.has(v.impact));
  if (blocking.length > 0)
    throw new Error(
      `axe: ${blocking.length} infracción(es) graves en «${state}» (${page.url()}):\n${describeViolations(blocking)}`,
    );
  return violations.filter((v) => !blocking.includes(v));
}
