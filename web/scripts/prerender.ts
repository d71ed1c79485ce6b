/**
 * Pre-renders the public pages (issue 8, docs/performance.md). Run by `scripts/build.ts` after the
 * client build (`OUT/`) and the SSR build (`OUT/ssr/render.js`); writes `OUT/ssr/manifest.json` and
 * one HTML file per distinct page variant under `OUT/ssr/pages/`, which the control plane completes
 * and serves (`server/src/plugins/webPages.ts`; keep the manifest format in step with it).
 *
 * A page's markup depends on the public switches and on two facts of the configuration (is there a
 * support URL, is the captcha Turnstile), so every combination is rendered once, with the SPA's own
 * gate deciding where a combination redirects instead; identical results share one file. What only
 * the installation knows goes in as markers: the company name, the support URL, the year. The
 * plan list of /plans is left as a marker too (the plans are data, rendered when served).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PublicSettings, RuntimeConfig } from '@vpn/contracts';
import type * as Render from '../src/prerender/render';
import { classesOf, pageCss } from './pageCss';
import { LOGIN_WARM_KIB } from '../size-budget';
import { TAP_CAPTURE } from './tapCapture';

/** The variant key's fields, in order; the server reads this order from the manifest. */
const SETTING_FIELDS = [
  'maintenance',
  'show_landing',
  'allow_registration',
  'allow_password_recovery',
  'allow_email',
  'allow_payments_qvapay',
  'allow_payments_remesita',
] as const satisfies readonly (keyof PublicSettings)[];
const KEY_FIELDS = [...SETTING_FIELDS, 'support', 'turnstile'];

const MARK = {
  boot: '<!--vpn:boot-->',
  plans: '<!--vpn:plans-->',
  company: '__VPN_COMPANY__',
  support: '__VPN_SUPPORT_URL__',
  year: '__VPN_YEAR__',
};

interface ViteChunk {
  file: string;
  src?: string;
  imports?: string[];
  css?: string[];
  isEntry?: boolean;
}

type Variant = { redirect: string } | { file: string };

/** What every dashboard page needs beyond the entry: the live connection and the layout. */
const DASHBOARD_LAYOUT = ['src/routes/RealtimeLayout.tsx', 'src/routes/dashboard/DashboardLayout.tsx'];
/** Each dashboard page's module (`src/routes/index.tsx`), by path: the shell preloads its chunks. */
const DASHBOARD_PAGES: Record<string, string> = {
  '/dashboard/home': 'src/routes/dashboard/Home.tsx',
  '/dashboard/peers': 'src/routes/dashboard/peers/Peers.tsx',
  '/dashboard/partys': 'src/routes/dashboard/Rooms.tsx',
  '/dashboard/plans': 'src/routes/dashboard/Plans.tsx',
  '/dashboard/help': 'src/routes/dashboard/Help.tsx',
  '/dashboard/settings': 'src/routes/dashboard/Settings.tsx',
  '/dashboard/payment': 'src/routes/dashboard/Payment.tsx',
};

/** The chunks a module needs, itself first, then what it imports (transitively), for modulepreload. */
function chunksOf(manifest: Record<string, ViteChunk>, key: string, seen = new Set<string>()): string[] {
  const chunk = manifest[key];
  if (!chunk || seen.has(key)) return [];
  seen.add(key);
  return [chunk.file, ...(chunk.imports ?? []).flatMap((k) => chunksOf(manifest, k, seen))];
}

export async function prerender(outDir: string): Promise<{ pages: number; files: number }> {
  const ssrDir = join(outDir, 'ssr');
  const render = (await import(pathToFileURL(join(ssrDir, 'render.js')).href)) as typeof Render;
  const shell = readFileSync(join(outDir, 'index.html'), 'utf8');
  const vite = JSON.parse(readFileSync(join(outDir, '.vite', 'manifest.json'), 'utf8')) as Record<
    string,
    ViteChunk
  >;
  const entry = Object.keys(vite).find((k) => vite[k]?.isEntry && vite[k]?.src === 'index.html');
  if (!entry) throw new Error('el manifiesto de Vite no tiene entrada');
  const entryChunks = new Set(chunksOf(vite, entry));
  if (!shell.includes('<div id="root"></div>') || !shell.includes('</head>'))
    throw new Error('index.html no tiene la forma esperada');

  mkdirSync(join(ssrDir, 'pages'), { recursive: true });
  const written = new Map<string, string>(); // content hash → file
  const loadingList = render.renderPlanList();

  // A pre-rendered page carries its own CSS inline and one small script (`src/boot.ts`) that loads
  // the application when the visitor starts using the page (issue 28): the shell's entry script,
  // preloads and stylesheet come out of it, and go into the boot script's data attributes.
  const bootKey = Object.keys(vite).find((k) => vite[k]?.src === 'src/boot.ts');
  const entryChunk = vite[entry]!;
  const stylesheet = entryChunk.css?.[0];
  if (!bootKey || !stylesheet)
    throw new Error('el manifiesto de Vite no tiene src/boot.ts o la hoja de estilos');
  const bootFile = vite[bootKey]!.file;
  const bootLoginKey = Object.keys(vite).find((k) => vite[k]?.src === 'src/bootLogin.ts');
  if (!bootLoginKey) throw new Error('el manifiesto de Vite no tiene src/bootLogin.ts');
  const bootLoginFile = vite[bootLoginKey]!.file;
  const assetTags =
    /\s*<(?:script type="module"|link rel="modulepreload"|link rel="stylesheet")[^>]*>(?:<\/script>)?/g;
  if (!shell.includes(`src="/${entryChunk.file}"`)) throw new Error('index.html no carga la entrada');
  /** What the login page fetches while the customer types: the dashboard home's chunks. */
  const dashboardChunks = [
    'src/routes/RealtimeLayout.tsx',
    'src/routes/dashboard/DashboardLayout.tsx',
    'src/routes/dashboard/Home.tsx',
  ].flatMap((key) => chunksOf(vite, key));
  /**
   * What /login fetches (without running it) once it is painted and idle: the largest of the chunks
   * the login and the dashboard home need, as many as fit in `LOGIN_WARM_KIB` gzip (size-budget.ts),
   * so the page stays within its 100 KiB and a form sent at once (autofill) waits for less.
   */
  const warmUp = (files: string[]) => {
    const sized = files
      .filter((f) => f.endsWith('.js'))
      .map((file) => ({ file, bytes: gzipSync(readFileSync(join(outDir, file)), { level: 9 }).length }))
      .sort((a, b) => b.bytes - a.bytes || a.file.localeCompare(b.file));
    let room = LOGIN_WARM_KIB * 1024;
    const chosen: string[] = [];
    for (const { file, bytes } of sized) {
      if (bytes > room) continue;
      chosen.push(file);
      room -= bytes;
    }
    return chosen;
  };
  // Classes the plan list of /plans uses once the server renders it with the current plans.
  const unlimited = {
    speed_down_mbit: null,
    speed_up_mbit: null,
    on_data_exhausted: 'cut',
    reduced_kbit: 256,
    grace_days: 0,
  } as const;
  const planListClasses = classesOf(
    render.renderPlanList([
      {
        id: 1,
        name: 'Plan',
        description: 'Plan',
        price: 1,
        validity: '30 days 00:00:00',
        data_gb: null,
        ...unlimited,
      },
      {
        id: 2,
        name: 'Plan',
        description: 'Plan',
        price: 1,
        validity: '30 days 00:00:00',
        data_gb: 10,
        ...unlimited,
        speed_down_mbit: 2,
      },
    ]) + render.renderPlanList([]),
  );

  /** The document around a rendered body: title, boot data marker, its CSS, the boot script. */
  async function document(page: Render.PrerenderPage, body: string): Promise<string> {
    const preload = [...new Set([...entryChunks, ...chunksOf(vite, page.module)])];
    const prefetch =
      page.name === 'login' ? [...new Set(dashboardChunks)].filter((f) => !preload.includes(f)) : [];
    const warm = page.name === 'login' ? warmUp([...preload, ...prefetch]) : [];
    const attr = (files: string[]) => files.map((file) => `/${file}`).join(' ');
    const boot =
      `<script type="module" crossorigin src="/${bootFile}" data-app="/${entryChunk.file}" ` +
      `data-css="/${stylesheet}" data-preload="${attr(preload)}"` +
      (prefetch.length ? ` data-prefetch="${attr(prefetch)}"` : '') +
      '></script>' +
      // /login's own script: its early login and its warm-up (src/bootLogin.ts).
      (page.name === 'login'
        ? `<script type="module" crossorigin src="/${bootLoginFile}" data-warm="${attr(warm)}"></script>`
        : '');
    let html = shell
      .replace(assetTags, '')
      .replace(/<title>[^<]*<\/title>/, `<title>${MARK.company} - ${page.title}</title>`)
      .replace('<div id="root"></div>', `<div id="root" data-prerendered="">${body}</div>`);
    // The note that the app needs JavaScript stays only where a form does.
    if (!page.form) html = html.replace(/<noscript>[\s\S]*?<\/noscript>/, '');
    const css = await pageCss(html, page.name === 'plans' ? planListClasses : []);
    // The tap capture runs inline, as the document is parsed: a tap before the boot script has
    // arrived is kept for it (scripts/tapCapture.ts).
    return html.replace(
      '</head>',
      `<style>${css}</style><script>${TAP_CAPTURE}</script>${boot}${MARK.boot}</head>`,
    );
  }

  function store(page: Render.PrerenderPage, html: string): string {
    const hash = createHash('sha256').update(html).digest('hex').slice(0, 10);
    let file = written.get(hash);
    if (!file) {
      file = `pages/${page.name}-${hash}.html`;
      writeFileSync(join(ssrDir, file), html);
      written.set(hash, file);
    }
    return file;
  }

  const pages: Record<string, { paths: string[]; variants: Record<string, Variant> }> = {};
  const cache = new Map<string, string>(); // rendered body → file (same body, same document)
  const configFor = (support: boolean, turnstile: boolean): RuntimeConfig => ({
    company_name: MARK.company,
    support_url: support ? MARK.support : null,
    public_url: null,
    captcha: turnstile
      ? { provider: 'turnstile', site_key: 'turnstile' }
      : { provider: 'altcha', challenge_url: '/api/client/captcha' },
  });
  const bit = (bits: number, i: number) => (bits & (1 << i)) !== 0;
  for (const page of render.PAGES) {
    const variants: Record<string, Variant> = {};
    for (let bits = 0; bits < 2 ** SETTING_FIELDS.length; bits++) {
      const settings = Object.fromEntries(SETTING_FIELDS.map((f, i) => [f, bit(bits, i)])) as PublicSettings;
      const settingsKey = SETTING_FIELDS.map((_, i) => (bit(bits, i) ? '1' : '0')).join('');
      const redirect = render.publicRedirect(page.name, settings);
      const renders = new Map<string, string>();
      const body = async (support: boolean, turnstile: boolean) => {
        const key = `${support}${turnstile}`;
        let html = renders.get(key);
        if (html === undefined) {
          html = await render.renderPage(page.renderAt, settings, configFor(support, turnstile), MARK.year);
          if (page.name === 'plans') {
            if (!html.includes(loadingList)) throw new Error('/plans: no se encontró la lista de planes');
            html = html.replace(loadingList, MARK.plans);
          }
          renders.set(key, html);
        }
        return html;
      };
      // The configuration facts change only the pages that show them: rendered with a support URL
      // and the ALTCHA widget first, a page that shows neither is the same for every configuration.
      const probe = redirect ? '' : await body(true, false);
      const supportShown = probe.includes(MARK.support);
      const captchaShown = probe.includes('altcha-widget');
      for (const support of [false, true]) {
        for (const turnstile of [false, true]) {
          const key = `${settingsKey}${support ? '1' : '0'}${turnstile ? '1' : '0'}`;
          if (redirect) {
            variants[key] = { redirect };
            continue;
          }
          const html = await body(supportShown ? support : true, captchaShown ? turnstile : false);
          const cacheKey = `${page.name}\n${html}`;
          let file = cache.get(cacheKey);
          if (!file) {
            file = store(page, await document(page, html));
            cache.set(cacheKey, file);
          }
          variants[key] = { file };
        }
      }
    }
    pages[page.name] = { paths: page.paths, variants };
  }

  const manifest = {
    version: 1,
    keyFields: KEY_FIELDS,
    shell: 'pages/shell.html',
    spaPrefixes: render.SPA_PREFIXES,
    notFound: 'notFound',
    pages,
  };
  // The shell of the pages rendered in the browser only: the boot data, the company in the title,
  // the app's full-screen wait drawn from the start, and before the entry the script that asks for a dashboard page's chunks and data at once
  // (`src/shellBoot.ts`, issue 32): every dashboard page's chunks, and each page's own.
  const shellBootKey = Object.keys(vite).find((k) => vite[k]?.src === 'src/shellBoot.ts');
  if (!shellBootKey) throw new Error('el manifiesto de Vite no tiene src/shellBoot.ts');
  const beyondEntry = (keys: string[]) =>
    [...new Set(keys.flatMap((key) => chunksOf(vite, key)))].filter((f) => !entryChunks.has(f));
  const dashboardCommon = beyondEntry(DASHBOARD_LAYOUT);
  const dashboardRoutes = Object.fromEntries(
    Object.entries(DASHBOARD_PAGES).map(([path, key]) => {
      if (!vite[key]) throw new Error(`el manifiesto de Vite no tiene ${key}`);
      const own = beyondEntry([key]).filter((f) => !dashboardCommon.includes(f));
      return [path, own.map((f) => `/${f}`).join(' ')];
    }),
  );
  const shellBoot =
    `<script type="module" crossorigin src="/${vite[shellBootKey]!.file}" ` +
    `data-chunks="${dashboardCommon.map((f) => `/${f}`).join(' ')}" ` +
    `data-routes='${JSON.stringify(dashboardRoutes)}'></script>`;
  const entryTag = /<script type="module"[^>]*src="\/assets\/index-[^"]*"[^>]*><\/script>/;
  if (!entryTag.test(shell)) throw new Error('index.html no carga la entrada');
  writeFileSync(
    join(ssrDir, manifest.shell),
    shell
      .replace(/<title>[^<]*<\/title>/, `<title>${MARK.company}</title>`)
      .replace(entryTag, (entryScript) => `${shellBoot}${entryScript}`)
      // Painted as soon as the stylesheet is there; React replaces it with its first render.
      .replace('<div id="root"></div>', () => `<div id="root">${render.renderShellBody()}</div>`)
      .replace('</head>', `${MARK.boot}</head>`),
  );
  writeFileSync(join(ssrDir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  return { pages: render.PAGES.length, files: written.size };
}
