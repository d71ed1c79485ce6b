import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { POOL_CIDR } from './lib/addressPool.ts';
import type { Limit, RateLimitPolicy } from './lib/rateLimitPolicy.ts';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
    message: 'debe ser true o false',
  })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const url = z.url({ message: 'debe ser una URL completa (https://…)' });

const isAddressOrCidr = (item: string): boolean => {
  const [address, prefix, ...rest] = item.split('/');
  const family = isIP(address ?? '');
  if (!family || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
};

/**
 * Whether an address or CIDR shares any address with the tunnel pool. Two CIDRs overlap only when
 * one holds the other, so: the item holds the pool's network address, or the pool holds the item's
 * address. IPv4-mapped IPv6 (`::ffff:10.64.0.1`, `::/0`) is matched against the pool too.
 */
function overlapsTunnelPool(item: string): boolean {
  const [address = '', prefixText] = item.split('/');
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  const [poolAddress = '', poolPrefix] = POOL_CIDR.split('/');
  const itemList = new BlockList();
  itemList.addSubnet(
    address,
    prefixText === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefixText),
    family,
  );
  const pool = new BlockList();
  pool.addSubnet(poolAddress, Number(poolPrefix), 'ipv4');
  return (
    itemList.check(poolAddress, 'ipv4') ||
    itemList.check(`::ffff:${poolAddress}`, 'ipv6') ||
    pool.check(address, family)
  );
}

/**
 * TRUST_PROXY: `false`; a number of proxy hops in front of the server; or a comma-separated list of
 * the proxies' addresses and CIDRs (recommended). `true` trusts every hop — then any client can
 * choose its own address with X-Forwarded-For, so per-address limits mean nothing: tests only.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): boolean | number | string => {
    if (['true', 'yes', 'on'].includes(v)) return true;
    if (['false', 'no', 'off', '0'].includes(v)) return false;
    // A number is a hop count (1 = one reverse proxy in front), not a boolean.
    if (/^\d{1,2}$/.test(v)) return Number(v);
    const items = v.split(',').map((i) => i.trim());
    if (items.length > 0 && items.every(isAddressOrCidr)) {
      // On one box the customers' tunnels reach the panel from the pool: trusting it would let
      // any customer send X-Forwarded-For and choose the address every per-address limit counts.
      const inPool = items.filter(overlapsTunnelPool);
      if (inPool.length === 0) return items.join(',');
      ctx.addIssue({
        code: 'custom',
        message: `${inPool.join(', ')} se solapa con ${POOL_CIDR}, la red de los túneles de los clientes: un cliente conectado a la VPN podría elegir su propia dirección con X-Forwarded-For. Indique solo las direcciones de los proxies (p. ej. 127.0.0.1 o 172.16.0.0/12)`,
      });
      return z.NEVER;
    }
    ctx.addIssue({
      code: 'custom',
      message:
        'debe ser false, un número de saltos o una lista de direcciones/CIDR de los proxies (127.0.0.1,172.16.0.0/12)',
    });
    return z.NEVER;
  });

/** `max/seconds`: a rate limit of the auth endpoints (RATE_LIMIT_* variables). */
const rateLimit = z
  .string()
  .regex(/^\d{1,7}\/\d{1,7}$/, { message: 'debe tener la forma máximo/segundos (p. ej. 30/600)' })
  .transform((v) => {
    const [max, windowSeconds] = v.split('/').map(Number) as [number, number];
    return { max, windowSeconds: Math.max(1, windowSeconds) };
  });

/** RATE_LIMIT_<NAME> → the policy key it sets (services/identity/rateLimit.ts has the defaults; lib/rateLimitPolicy.ts the meanings). */
export const RATE_LIMIT_VARS = [
  ['RATE_LIMIT_LOGIN_FAILURES_PER_IP', 'loginFailuresPerIp'],
  ['RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT', 'loginFailuresPerAccount'],
  ['RATE_LIMIT_MANAGER_LOGIN_PER_IP', 'loginPerIp'],
  ['RATE_LIMIT_MANAGER_LOGIN_PER_USERNAME', 'loginPerUsername'],
  ['RATE_LIMIT_REGISTER_PER_IP', 'registerPerIp'],
  ['RATE_LIMIT_REFRESH_PER_IP', 'refreshPerIp'],
  ['RATE_LIMIT_MIRROR_PER_IP', 'mirrorPerIp'],
  ['RATE_LIMIT_RECOVERY_PER_IP', 'recoveryPerIp'],
  ['RATE_LIMIT_RECOVERY_PER_USERNAME', 'recoveryPerUsername'],
  ['RATE_LIMIT_PASSWORD_CHANGE_PER_ACCOUNT', 'passwordChangePerAccount'],
  ['RATE_LIMIT_MANAGER_SENSITIVE', 'sensitivePerManager'],
  ['RATE_LIMIT_PEER_CHANGES', 'peerChangesPerPeer'],
  ['RATE_LIMIT_INVOICES_PER_CUSTOMER', 'invoicesPerCustomer'],
] as const satisfies readonly (readonly [string, keyof RateLimitPolicy])[];

/** Every environment variable the control plane reads; README.md has the same table. */
export const EnvSchema = z
  .object({
    PORT: z.coerce
      .number({ message: 'debe ser un número' })
      .int({ message: 'debe ser un número entero' })
      .min(1, { message: 'debe ser un puerto entre 1 y 65535' })
      .max(65535, { message: 'debe ser un puerto entre 1 y 65535' })
      .default(8080),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, { message: 'debe empezar por postgres:// o postgresql://' })
      .optional(),
    // A direct connection for LISTEN (the bus) and migrations when DATABASE_URL goes through a
    // pooler in transaction mode (PgBouncer): neither works through one (docs/scale.md).
    DATABASE_DIRECT_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, { message: 'debe empezar por postgres:// o postgresql://' })
      .optional(),
    DATABASE_POOL_SIZE: z.coerce
      .number({ message: 'debe ser un número' })
      .int({ message: 'debe ser un número entero' })
      .min(1, { message: 'debe estar entre 1 y 500' })
      .max(500, { message: 'debe estar entre 1 y 500' })
      .default(10),
    PUBLIC_URL: url.optional(),
    COMPANY_NAME: z.string().trim().min(1).max(80).default('VPN Service'),
    SUPPORT_URL: url.optional(),
    /** An APK the panel serves to customers (WireGuard for Android), e.g. /srv/vpn/wireguard.apk. */
    ANDROID_APK_FILE: z.string().min(1).optional(),
    CAPTCHA_PROVIDER: z
      .enum(['altcha', 'turnstile'], { message: 'debe ser altcha o turnstile' })
      .default('altcha'),
    TURNSTILE_SITE_KEY: z.string().min(1).optional(),
    TURNSTILE_SECRET_KEY: z.string().min(1).optional(),
    TURNSTILE_VERIFY_URL: url.default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
    SECRET_KEY: z.string().min(32, { message: 'debe tener al menos 32 caracteres' }).optional(),
    ADMIN_USERNAME: z
      .string()
      .regex(/^[A-Za-z0-9._-]{3,32}$/, { message: 'usuario no válido' })
      .default('admin'),
    ADMIN_PASSWORD: z.string().min(8, { message: 'debe tener al menos 8 caracteres' }).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    METRICS_TOKEN: z.string().min(16, { message: 'debe tener al menos 16 caracteres' }).optional(),
    TRUST_PROXY: trustProxy.default(false),
    SEED_DEMO: bool.optional(),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, { message: 'debe empezar por smtp:// o smtps://' })
      .optional(),
    MAIL_FROM: z.string().min(3).max(200).optional(),
    QVAPAY_APP_ID: z.string().min(1).optional(),
    QVAPAY_APP_SECRET: z.string().min(1).optional(),
    QVAPAY_API_URL: url.default('https://qvapay.com/api/v1'),
    REMESITA_API_KEY: z.string().min(1).optional(),
    REMESITA_API_SECRET: z.string().min(1).optional(),
    REMESITA_BUSINESS_ID: z.string().min(1).optional(),
    REMESITA_BASE_URL: url.default('https://api.remesita.com'),
    PAYMENTS_SANDBOX: bool.default(false),
    REMESITA_SANDBOX: bool.default(false),
    LOCAL_AGENT: bool.default(false),
    LOCAL_AGENT_ENDPOINT: z
      .string()
      .regex(/^(?:\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, { message: 'debe tener la forma host:puerto' })
      .optional(),
    LOCAL_AGENT_INTERFACE: z
      .string()
      .regex(/^[A-Za-z0-9_=+.-]{1,15}$/, { message: 'nombre de interfaz no válido' })
      .default('wg0'),
    LOCAL_AGENT_UPLINK: z
      .string()
      .regex(/^[A-Za-z0-9_=+.@-]{1,15}$/, { message: 'nombre de interfaz no válido' })
      .optional(),
    WEB_DIST: z.string().optional(),
    /** BotFather's token: `<digits>:<letters>` (Ajustes may save one instead). */
    TELEGRAM_BOT_TOKEN: z
      .string()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, {
        message: 'no parece un token de bot de Telegram (123456:ABC…)',
      })
      .optional(),
    TELEGRAM_API_URL: url.default('https://api.telegram.org'),
    TELEGRAM_WEBHOOK: bool.default(false),
    AGENT_CATCHUP_SECONDS: z.coerce
      .number({ message: 'debe ser un número' })
      .int({ message: 'debe ser un número entero' })
      .min(1, { message: 'debe ser al menos 1' })
      .max(3600, { message: 'debe ser como mucho 3600' })
      .default(60),
    METRICS_PEER_COUNTS_SECONDS: z.coerce
      .number({ message: 'debe ser un número' })
      .int({ message: 'debe ser un número entero' })
      .min(0, { message: 'debe ser al menos 0' })
      .max(3600, { message: 'debe ser como mucho 3600' })
      .default(60),
    ...Object.fromEntries(RATE_LIMIT_VARS.map(([name]) => [name, rateLimit.optional()])),
  })
  .superRefine((env, ctx) => {
    // Mail links (verification, password reset) carry one-time tokens: they are built from PUBLIC_URL
    // only, never from the request's Host / X-Forwarded-Host, which anyone can forge.
    if (env.SMTP_URL && !env.PUBLIC_URL)
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLIC_URL'],
        message: 'es obligatorio con SMTP_URL (los enlaces de los correos usan esta dirección)',
      });
    if (env.TELEGRAM_WEBHOOK && !env.PUBLIC_URL)
      ctx.addIssue({
        code: 'custom',
        path: ['TELEGRAM_WEBHOOK'],
        message: 'necesita PUBLIC_URL (Telegram envía las actualizaciones a PUBLIC_URL/api/telegram/webhook)',
      });
    if (env.CAPTCHA_PROVIDER === 'turnstile') {
      for (const k of ['TURNSTILE_SITE_KEY', 'TURNSTILE_SECRET_KEY'] as const) {
        if (!env[k])
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: 'es obligatorio con CAPTCHA_PROVIDER=turnstile',
          });
      }
    }
  });

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** LISTEN and migrations (DATABASE_DIRECT_URL, else DATABASE_URL). */
  databaseDirectUrl: string | undefined;
  /** Connections this instance's pool opens at most (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  publicUrl: string | undefined;
  companyName: string;
  supportUrl: string | undefined;
  /** ANDROID_APK_FILE: the APK served at /descargas/wireguard-android.apk (services/site/links.ts). */
  androidApkFile: string | undefined;
  captcha:
    { provider: 'altcha' } | { provider: 'turnstile'; siteKey: string; secretKey: string; verifyUrl: string };
  secretKey: string;
  adminUsername: string;
  adminPassword: string | undefined;
  logLevel: Env['LOG_LEVEL'];
  /** Bearer token of `/metrics` (Prometheus); unset → `/metrics` answers 404. */
  metricsToken: string | undefined;
  /** Fastify's trustProxy: false, true (every hop: tests only), a hop count, or proxy addresses/CIDRs. */
  trustProxy: boolean | number | string;
  /** Seed demo content on an empty database: default on for PGlite, off for PostgreSQL. */
  seedDemo: boolean;
  webDist: string;
  payments: {
    /** From the environment; credentials saved in Ajustes take precedence (services/billing/gatewayCredentials.ts). */
    qvapay: { appId: string; appSecret: string; apiUrl: string } | null;
    qvapayApiUrl: string;
    remesita: { apiKey: string; apiSecret: string; businessId: string } | null;
    /** Remesita's REST API base (REMESITA_BASE_URL), unless Ajustes names another. */
    remesitaBaseUrl: string;
    /** REMESITA_SANDBOX: Remesita's payment links in its sandbox (`"sandbox": true`), no real money. */
    remesitaSandbox: boolean;
    /** The built-in gateway that "pays" with a click: demos and tests only, never production. */
    sandbox: boolean;
  };
  /** Rate limits set from the environment (RATE_LIMIT_*); the rest keep their defaults. */
  rateLimits: Partial<RateLimitPolicy>;
  /** Outgoing mail; null when SMTP_URL is unset (mail off). */
  mail: MailConfig | null;
  /** The Telegram bot (services/telegram/): the environment's token (Ajustes may save another). */
  telegram: { token: string | undefined; apiUrl: string; webhook: boolean };
  /** How often agents lagging their desired revision are caught up (a change notice may be lost). */
  agentCatchupMs: number;
  /**
   * How often /metrics' per-server peer counts are taken, by one instance's scheduler for the
   * cluster (METRICS_PEER_COUNTS_SECONDS; 0: each scrape counts; telemetry.ts).
   */
  metricsPeerCountsMs: number;
  /** One box: also run an agent for a server on this machine (opt-in). */
  localAgent: {
    enabled: boolean;
    endpoint: string | undefined;
    interfaceName: string;
    uplink: string | undefined;
  };
}

/** Outgoing mail. `publicUrl` (PUBLIC_URL, required with SMTP_URL) is the only base of mailed links. */
export interface MailConfig {
  url: string;
  from: string;
  publicUrl: string;
}

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError with one line per bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  // A misspelt limit would leave the default in force unnoticed (bench:fleet's peer-change limit, issue 33).
  const limits: string[] = RATE_LIMIT_VARS.map(([name]) => name);
  const unknown = Object.keys(cleaned)
    .filter((k) => k.startsWith('RATE_LIMIT_') && !limits.includes(k))
    .map((k) => `  ${k}: no existe; los límites son ${limits.join(', ')}`);
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success || unknown.length > 0) {
    const lines = (result.error?.issues ?? []).map((i) => {
      const key = String(i.path[0] ?? '');
      // A secret's value is never printed, even a malformed one (a typo'd bot token is still a token).
      const shown = /TOKEN|SECRET|PASSWORD|_KEY$/.test(key) ? '[oculto]' : JSON.stringify(cleaned[key] ?? '');
      return `  ${key}=${shown}: ${i.message}`;
    });
    throw new ConfigError(`Configuración no válida:\n${[...lines, ...unknown].join('\n')}`);
  }
  return result.data;
}

/** SECRET_KEY from the environment, else the one kept in DATA_DIR (generated on first start). */
function loadSecret(env: Env, dataDir: string): string {
  if (env.SECRET_KEY) return env.SECRET_KEY;
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const env = parseEnv(source);
  const dataDir = resolve(env.DATA_DIR);
  const publicUrl = env.PUBLIC_URL?.replace(/\/+$/, '');
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir,
    databaseUrl: env.DATABASE_URL,
    databaseDirectUrl: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    publicUrl,
    companyName: env.COMPANY_NAME,
    supportUrl: env.SUPPORT_URL,
    androidApkFile: env.ANDROID_APK_FILE ? resolve(env.ANDROID_APK_FILE) : undefined,
    captcha:
      env.CAPTCHA_PROVIDER === 'turnstile'
        ? {
            provider: 'turnstile',
            siteKey: env.TURNSTILE_SITE_KEY ?? '',
            secretKey: env.TURNSTILE_SECRET_KEY ?? '',
            verifyUrl: env.TURNSTILE_VERIFY_URL,
          }
        : { provider: 'altcha' },
    secretKey: loadSecret(env, dataDir),
    adminUsername: env.ADMIN_USERNAME,
    adminPassword: env.ADMIN_PASSWORD,
    logLevel: env.LOG_LEVEL,
    metricsToken: env.METRICS_TOKEN,
    trustProxy: env.TRUST_PROXY,
    seedDemo: env.SEED_DEMO ?? !env.DATABASE_URL,
    webDist: resolve(env.WEB_DIST ?? new URL('../../web/dist', import.meta.url).pathname),
    payments: {
      qvapay:
        env.QVAPAY_APP_ID && env.QVAPAY_APP_SECRET
          ? {
              appId: env.QVAPAY_APP_ID,
              appSecret: env.QVAPAY_APP_SECRET,
              apiUrl: env.QVAPAY_API_URL.replace(/\/+$/, ''),
            }
          : null,
      qvapayApiUrl: env.QVAPAY_API_URL.replace(/\/+$/, ''),
      remesita:
        env.REMESITA_API_KEY && env.REMESITA_API_SECRET && env.REMESITA_BUSINESS_ID
          ? {
              apiKey: env.REMESITA_API_KEY,
              apiSecret: env.REMESITA_API_SECRET,
              businessId: env.REMESITA_BUSINESS_ID,
            }
          : null,
      remesitaBaseUrl: env.REMESITA_BASE_URL.replace(/\/+$/, ''),
      remesitaSandbox: env.REMESITA_SANDBOX,
      sandbox: env.PAYMENTS_SANDBOX,
    },
    rateLimits: Object.fromEntries(
      RATE_LIMIT_VARS.flatMap(([name, key]) => {
        const limit = (env as Record<string, unknown>)[name] as Limit | undefined;
        return limit ? [[key, limit]] : [];
      }),
    ),
    mail:
      env.SMTP_URL && publicUrl
        ? {
            url: env.SMTP_URL,
            from: env.MAIL_FROM ?? `${env.COMPANY_NAME} <no-reply@${new URL(env.SMTP_URL).hostname}>`,
            publicUrl,
          }
        : null,
    telegram: {
      token: env.TELEGRAM_BOT_TOKEN,
      apiUrl: env.TELEGRAM_API_URL.replace(/\/+$/, ''),
      webhook: env.TELEGRAM_WEBHOOK,
    },
    agentCatchupMs: env.AGENT_CATCHUP_SECONDS * 1000,
    metricsPeerCountsMs: env.METRICS_PEER_COUNTS_SECONDS * 1000,
    localAgent: {
      enabled: env.LOCAL_AGENT,
      endpoint: env.LOCAL_AGENT_ENDPOINT,
      interfaceName: env.LOCAL_AGENT_INTERFACE,
      uplink: env.LOCAL_AGENT_UPLINK,
    },
  };
}
