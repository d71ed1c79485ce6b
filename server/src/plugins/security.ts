/**
 * Security headers (issue 10, "Deliver as well" 1; the policy is explained in docs/security.md), set
 * with `@fastify/helmet` on every answer as it leaves (`onSend`, where its content type is known):
 *
 * - every answer: helmet's defaults (nosniff, `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`,
 *   same-origin COOP/CORP, …), none of which a JSON client or a WireGuard app reading its mirror link
 *   looks at;
 * - HTML answers: the Content-Security-Policy of {@link contentSecurityPolicy} and a
 *   `Permissions-Policy` (helmet has no option for it: {@link PERMISSIONS_POLICY});
 * - answers over https only (TLS here, or `X-Forwarded-Proto: https` from a proxy TRUST_PROXY trusts:
 *   Fastify's `request.protocol`): `Strict-Transport-Security` and `upgrade-insecure-requests`. On
 *   plain http they would send browsers to an https that may not exist.
 */
import fastifyHelmet from '@fastify/helmet';
import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.ts';

/** Cloudflare Turnstile's script and its challenge frame come from here (only with CAPTCHA_PROVIDER=turnstile). */
export const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';

/**
 * The one inline script of the pre-rendered public pages, allowed by its hash: it keeps the taps that
 * come before the page's boot script has arrived (`web/scripts/tapCapture.ts`, issue 32; change the
 * two together — the browser tests fail otherwise). Every other script stays a file of this origin.
 */
export const TAP_CAPTURE_HASH = "'sha256-LK8ppRDzvo+t95TUjKotD5E5IX8P8ZQ7VUsslT/4wgk='";

/** Browser features no page of the product uses, refused to the pages and anything they embed. */
export const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'autoplay=()',
  'bluetooth=()',
  'camera=()',
  'display-capture=()',
  'geolocation=()',
  'gyroscope=()',
  'hid=()',
  'magnetometer=()',
  'microphone=()',
  'midi=()',
  'payment=()',
  'serial=()',
  'usb=()',
  'xr-spatial-tracking=()',
].join(', ');

/** One year; not `includeSubDomains`/`preload`: other hosts of the operator's domain are not ours to decide. */
export const HSTS_MAX_AGE = 31_536_000;

/** A Host (or trusted X-Forwarded-Host) fit to be written into the policy: a name or an address, and a port. */
const PLAIN_HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The page's Content-Security-Policy directives for this installation's captcha and this request.
 *
 * - ALTCHA (the default) runs its proof of work in Web Workers it builds from a `blob:` URL of code
 *   bundled in the widget (`altcha/dist/altcha.js`), hence `worker-src 'self' blob:` — not `data:`,
 *   its fallback when `blob:` fails.
 * - Turnstile loads Cloudflare's script and shows its challenge in a Cloudflare frame.
 * - `style-src 'unsafe-inline'`: the app's own libraries write inline styles — ALTCHA injects its
 *   stylesheet as a `<style>` element, the toasts (react-hot-toast → goober) theirs, the dialogs'
 *   scroll lock (Radix → react-remove-scroll) one with values measured at run time, and the toaster's
 *   container is pre-rendered with a `style` attribute. Scripts stay strict, which is what matters.
 * - The websocket (`/ws`, same origin) is named explicitly besides `'self'`: browsers before CSP 3
 *   (Safari < 15.4) do not let `'self'` cover `ws:`/`wss:`.
 */
export function contentSecurityPolicy(
  captcha: Config['captcha']['provider'],
  request: Pick<FastifyRequest, 'protocol' | 'host'>,
): Record<string, string[]> {
  const https = request.protocol === 'https';
  const turnstile = captcha === 'turnstile';
  const connect = ["'self'"];
  if (PLAIN_HOST.test(request.host)) connect.push(`${https ? 'wss' : 'ws'}://${request.host}`);
  return {
    'default-src': ["'self'"],
    'script-src': turnstile ? ["'self'", TAP_CAPTURE_HASH, TURNSTILE_ORIGIN] : ["'self'", TAP_CAPTURE_HASH],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': connect,
    'worker-src': turnstile ? ["'self'"] : ["'self'", 'blob:'],
    'frame-src': turnstile ? [TURNSTILE_ORIGIN] : ["'none'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    ...(https ? { 'upgrade-insecure-requests': [] } : {}),
  };
}

/** What every answer gets; CSP and HSTS are added per answer in the hook below. */
const BASE: FastifyHelmetOptions = {
  global: false,
  contentSecurityPolicy: false,
  strictTransportSecurity: false,
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
};

async function securityPlugin(app: FastifyInstance, { config }: { config: Config }) {
  await app.register(fastifyHelmet, BASE);

  app.addHook('onSend', async (request, reply, payload) => {
    // Answers Fastify makes before the hooks that decorate the reply (a malformed URL) keep their own.
    if (typeof reply.helmet !== 'function') return payload;
    const https = request.protocol === 'https';
    const html = String(reply.getHeader('content-type') ?? '').startsWith('text/html');
    reply.helmet({
      contentSecurityPolicy: html
        ? { useDefaults: false, directives: contentSecurityPolicy(config.captcha.provider, request) }
        : false,
      strictTransportSecurity: https ? { maxAge: HSTS_MAX_AGE, includeSubDomains: false } : false,
    });
    if (html) reply.header('permissions-policy', PERMISSIONS_POLICY);
    return payload;
  });
}

export const security = fp(securityPlugin, { name: 'security', fastify: '5.x' });
