import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
    message: 'debe ser true o false',
  })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const url = z.url({ message: 'debe ser una URL completa (https://…)' });

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
    PUBLIC_URL: url.optional(),
    COMPANY_NAME: z.string().trim().min(1).max(80).default('VPN Service'),
    SUPPORT_URL: url.optional(),
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
    TRUST_PROXY: bool.default(false),
    SEED_DEMO: bool.optional(),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, { message: 'debe empezar por smtp:// o smtps://' })
      .optional(),
    MAIL_FROM: z.string().min(3).max(200).optional(),
    QVAPAY_APP_ID: z.string().min(1).optional(),
    QVAPAY_APP_SECRET: z.string().min(1).optional(),
    QVAPAY_API_URL: url.default('https://qvapay.com/api/v1'),
    PAYMENTS_SANDBOX: bool.default(false),
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
  })
  .superRefine((env, ctx) => {
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
  publicUrl: string | undefined;
  companyName: string;
  supportUrl: string | undefined;
  captcha:
    { provider: 'altcha' } | { provider: 'turnstile'; siteKey: string; secretKey: string; verifyUrl: string };
  secretKey: string;
  adminUsername: string;
  adminPassword: string | undefined;
  logLevel: Env['LOG_LEVEL'];
  trustProxy: boolean;
  /** Seed demo content on an empty database: default on for PGlite, off for PostgreSQL. */
  seedDemo: boolean;
  webDist: string;
  payments: {
    qvapay: { appId: string; appSecret: string; apiUrl: string } | null;
    /** The built-in gateway that "pays" with a click: demos and tests only, never production. */
    sandbox: boolean;
  };
  /** Outgoing mail; null when SMTP_URL is unset (mail off). */
  mail: { url: string; from: string } | null;
  /** One box: also run an agent for a server on this machine (opt-in). */
  localAgent: {
    enabled: boolean;
    endpoint: string | undefined;
    interfaceName: string;
    uplink: string | undefined;
  };
}

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError with one line per bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => {
      const key = String(i.path[0] ?? '');
      return `  ${key}=${JSON.stringify(cleaned[key] ?? '')}: ${i.message}`;
    });
    throw new ConfigError(`Configuración no válida:\n${lines.join('\n')}`);
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
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir,
    databaseUrl: env.DATABASE_URL,
    publicUrl: env.PUBLIC_URL?.replace(/\/+$/, ''),
    companyName: env.COMPANY_NAME,
    supportUrl: env.SUPPORT_URL,
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
      sandbox: env.PAYMENTS_SANDBOX,
    },
    mail: env.SMTP_URL
      ? {
          url: env.SMTP_URL,
          from: env.MAIL_FROM ?? `${env.COMPANY_NAME} <no-reply@${new URL(env.SMTP_URL).hostname}>`,
        }
      : null,
    localAgent: {
      enabled: env.LOCAL_AGENT,
      endpoint: env.LOCAL_AGENT_ENDPOINT,
      interfaceName: env.LOCAL_AGENT_INTERFACE,
      uplink: env.LOCAL_AGENT_UPLINK,
    },
  };
}
