/**
 * The HTML documents of the SPA, completed per request from what the build left in `WEB_DIST/ssr/`
 * (`web/scripts/prerender.ts` writes it; see docs/performance.md):
 *
 * - `manifest.json`: which paths are which public page and, for every combination of the public
 *   switches (and of the two configuration facts that change markup: a support URL, Turnstile), the
 *   pre-rendered file to serve or the redirect the SPA's own gate would make.
 * - the files themselves, with markers for what only this installation knows: the company name, the
 *   support URL, the year, and `<!--vpn:boot-->` where the runtime configuration and the public
 *   settings go inline (the SPA reads them instead of asking: no round trip before the first view).
 * - `render.js`: the SPA's renderer, used for the one part of a public page that is data, the plan
 *   list of /plans (re-rendered only when the plans change).
 *
 * Without a manifest (a build without pre-render, the tests' fake builds) every path gets
 * `index.html` with the boot data, as a plain SPA.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plan, PublicSettings, RuntimeConfig } from '@vpn/contracts';
import type { AppContext } from '../context.ts';
import { listActivePlans } from '../services/billing/plans.ts';
import { customerPublicSettings } from '../services/telegram/recovery.ts';

type Variant = { redirect: string } | { file: string };

/** What `web/scripts/prerender.ts` writes; keep the two in step (version bumps on change). */
export interface PrerenderManifest {
  version: 1;
  /** The variant key: one '0'/'1' per field, in this order. */
  keyFields: string[];
  shell: string;
  /** Paths the SPA renders in the browser only (dashboard, manager, e-mailed links). */
  spaPrefixes: string[];
  notFound: string;
  pages: Record<string, { paths: string[]; variants: Record<string, Variant> }>;
}

export interface RenderedPage {
  status: number;
  html: string;
  redirect?: string;
}

interface Renderer {
  renderPlanList(plans: Plan[]): string;
}

const MARK = {
  boot: '<!--vpn:boot-->',
  plans: '<!--vpn:plans-->',
  company: '__VPN_COMPANY__',
  support: '__VPN_SUPPORT_URL__',
  year: '__VPN_YEAR__',
};

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

/** JSON inside <script>: `<` escaped so no value can close the element. */
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export class WebPages {
  private templates = new Map<string, string>();
  private planList: { key: string; html: string } | null = null;

  private constructor(
    private readonly ctx: AppContext,
    private readonly configOf: () => Promise<RuntimeConfig>,
    private readonly manifest: PrerenderManifest | null,
    private readonly renderer: Renderer | null,
  ) {}

  static async load(ctx: AppContext, config: () => Promise<RuntimeConfig>): Promise<WebPages> {
    const dir = join(ctx.config.webDist, 'ssr');
    const manifestFile = join(dir, 'manifest.json');
    if (!existsSync(manifestFile)) return new WebPages(ctx, config, null, null);
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as PrerenderManifest;
    if (manifest.version !== 1) throw new Error(`${manifestFile}: versión ${manifest.version} desconocida`);
    const renderer = (await import(pathToFileURL(join(dir, 'render.js')).href)) as Renderer;
    return new WebPages(ctx, config, manifest, renderer);
  }

  /** The document for `url` (path and query), as the SPA would show it right now. */
  async render(url: string): Promise<RenderedPage> {
    const path = url.split(/[?#]/, 1)[0] ?? '/';
    const [settings, config] = await Promise.all([customerPublicSettings(this.ctx), this.configOf()]);
    const manifest = this.manifest;
    if (!manifest)
      return { status: 200, html: this.fill(this.template('index.html', false), config, settings) };

    const name = Object.keys(manifest.pages).find((p) => manifest.pages[p]?.paths.includes(path));
    if (!name && manifest.spaPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)))
      return { status: 200, html: this.fill(this.template(manifest.shell), config, settings) };

    const pageName = name ?? manifest.notFound;
    const variant = manifest.pages[pageName]?.variants[this.variantKey(manifest, config, settings)];
    if (!variant) throw new Error(`pre-render sin variante para ${pageName}`);
    if ('redirect' in variant) return { status: 302, html: '', redirect: variant.redirect };

    let html = this.template(variant.file);
    let plans: Plan[] | undefined;
    if (html.includes(MARK.plans)) {
      plans = await listActivePlans(this.ctx.db);
      html = html.replace(MARK.plans, () => this.renderPlans(plans ?? []));
    }
    return { status: name ? 200 : 404, html: this.fill(html, config, settings, plans) };
  }

  private variantKey(manifest: PrerenderManifest, config: RuntimeConfig, settings: PublicSettings): string {
    const facts: Record<string, boolean> = {
      ...settings,
      support: config.support_url !== null,
      turnstile: config.captcha.provider === 'turnstile',
    };
    return manifest.keyFields.map((field) => (facts[field] ? '1' : '0')).join('');
  }

  private template(file: string, prerendered = true): string {
    let html = this.templates.get(file);
    if (html === undefined) {
      const dir = prerendered ? join(this.ctx.config.webDist, 'ssr') : this.ctx.config.webDist;
      html = readFileSync(join(dir, file), 'utf8');
      // A build without pre-render has no boot marker: the data goes before the app's script.
      if (!html.includes(MARK.boot)) html = html.replace('</head>', `${MARK.boot}</head>`);
      this.templates.set(file, html);
    }
    return html;
  }

  private renderPlans(plans: Plan[]): string {
    const key = JSON.stringify(plans);
    if (!this.renderer) throw new Error('falta ssr/render.js');
    if (this.planList?.key !== key) this.planList = { key, html: this.renderer.renderPlanList(plans) };
    return this.planList.html;
  }

  private fill(html: string, config: RuntimeConfig, settings: PublicSettings, plans?: Plan[]): string {
    const boot = { config, settings, ...(plans ? { plans } : {}) };
    return html
      .replaceAll(MARK.company, escapeHtml(config.company_name))
      .replaceAll(MARK.support, escapeHtml(config.support_url ?? ''))
      .replaceAll(MARK.year, String(new Date().getFullYear()))
      .replace(MARK.boot, () => `<script id="vpn-boot" type="application/json">${inlineJson(boot)}</script>`);
  }
}
