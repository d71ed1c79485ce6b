/**
 * Delivery of the SPA to customers on slow, metered mobile data (issue 8, docs/performance.md):
 *
 * - Compression (`@fastify/compress`): brotli or gzip as the browser asks, for every answer of 1 KiB
 *   or more (JSON, HTML). Static files are compressed once at build time (`.br`/`.gz` beside each
 *   file, `web/vite.config.ts`) and `@fastify/static` serves those (`preCompressed`).
 * - Caching: hashed files under `/assets/` are immutable for a year; everything whose name does not
 *   change with its content (the HTML, `/config.json`, the favicon) is `no-cache` with an ETag
 *   (`@fastify/etag` for what is generated here), so a warm visit costs one small revalidation.
 * - HTML: the public pages pre-rendered at build time (`web/scripts/prerender.ts`) are completed here
 *   with the runtime configuration, the current public settings and (on /plans) the plans, all inline,
 *   so the first view needs no other round trip; see `./webPages.ts`.
 *
 * Registered before the routes: the compression hook attaches to every route declared after it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyCompress from '@fastify/compress';
import fastifyEtag from '@fastify/etag';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { msg, type RuntimeConfig } from '@vpn/contracts';
import type { AppContext } from '../context.ts';
import { ANDROID_APK_PATH, androidApkSize, getSiteLinks } from '../services/site/links.ts';
import { realmOfPath } from './auth.ts';
import { WebPages } from './webPages.ts';

/** Files whose names carry a content hash (Vite's `assets/name-HASH.ext`): cacheable for good. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else the browser keeps but must revalidate (ETag / Last-Modified) before use. */
export const REVALIDATE = 'no-cache';
/** Answers smaller than this are sent as they are: compressing them saves less than it costs. */
export const COMPRESS_THRESHOLD = 1024;

/**
 * `/config.json`: what one build needs to know about this installation (architecture decision 10).
 * Read per page: the support link and the Android app's links are set in the console (issue 32).
 */
export async function runtimeConfig(ctx: Pick<AppContext, 'config' | 'db'>): Promise<RuntimeConfig> {
  const { config } = ctx;
  const [links, apkSize] = await Promise.all([getSiteLinks(ctx.db), androidApkSize(config.androidApkFile)]);
  return {
    company_name: config.companyName,
    support_url: links.support_url ?? config.supportUrl ?? null,
    public_url: config.publicUrl ?? null,
    captcha:
      config.captcha.provider === 'turnstile'
        ? { provider: 'turnstile', site_key: config.captcha.siteKey }
        : { provider: 'altcha', challenge_url: '/api/client/captcha' },
    android: {
      app_url: links.android_app_url,
      apk: apkSize === null ? null : { url: ANDROID_APK_PATH, size: apkSize },
    },
  };
}

const isApiPath = (url: string) => url.startsWith('/api/') || url === '/api' || realmOfPath(url) !== null;

async function webPlugin(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const { config } = ctx;
  await app.register(fastifyCompress, {
    threshold: COMPRESS_THRESHOLD,
    encodings: ['br', 'gzip'],
  });

  const hasWeb = existsSync(join(config.webDist, 'index.html'));
  const pages = hasWeb ? await WebPages.load(ctx, () => runtimeConfig(ctx)) : null;

  // The generated documents (HTML, config.json) get ETags and 304s; encapsulated so the API's
  // answers (no-store) are not hashed for nothing.
  await app.register(async (documents) => {
    await documents.register(fastifyEtag, { weak: true });

    documents.get('/config.json', { schema: { hide: true } }, async (_req, reply) => {
      reply.header('cache-control', REVALIDATE);
      return runtimeConfig(ctx);
    });

    if (!pages) {
      documents.setNotFoundHandler(async (_request, reply) =>
        reply.status(404).send({ message: msg.notFound, code: 'not_found' }),
      );
      return;
    }
    const sendPage = async (url: string, reply: FastifyReply) => {
      const page = await pages.render(url);
      if (page.redirect) return reply.header('cache-control', REVALIDATE).redirect(page.redirect, 302);
      return reply
        .status(page.status)
        .header('cache-control', REVALIDATE)
        .type('text/html; charset=utf-8')
        .send(page.html);
    };
    // "/" is the landing; @fastify/static's wildcard would treat it as a directory.
    documents.get('/', { schema: { hide: true } }, (req, reply) => sendPage(req.url, reply));
    // Client-side routes (and unknown paths): the page the SPA would show, as HTML.
    documents.setNotFoundHandler(async (request, reply) => {
      if (!isApiPath(request.url) && (request.method === 'GET' || request.method === 'HEAD'))
        return sendPage(request.url, reply);
      return reply.status(404).send({ message: msg.notFound, code: 'not_found' });
    });

    // In this context too: a file that is not there falls through to the handler above, with its hooks.
    await documents.register(fastifyStatic, {
      root: config.webDist,
      // Files are looked up per request (a rebuilt web/dist needs no restart); misses fall through.
      wildcard: true,
      index: false,
      preCompressed: true,
      cacheControl: false,
      // The pre-render templates are read by WebPages, never served as they are.
      allowedPath: (pathName) => !pathName.startsWith('/ssr/') && pathName !== '/index.html',
      setHeaders: (reply: FastifyReply, path: string) => {
        reply.header('cache-control', path.includes('/assets/') ? IMMUTABLE : REVALIDATE);
      },
    });
  });
}

export const web = fp(webPlugin, { name: 'web', fastify: '5.x' });
