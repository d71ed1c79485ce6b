import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { msg, type RuntimeConfig } from '@vpn/contracts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/client.ts';
import { deriveKeys } from './lib/crypto.ts';
import { registerAccessControl, realmOfPath } from './plugins/auth.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { adminAuthRoutes } from './routes/admin/auth.ts';
import { customerAuthRoutes } from './routes/client/auth.ts';
import { publicRoutes } from './routes/client/public.ts';
import { sessionRoutes } from './routes/session/index.ts';
import { adminServerRoutes } from './routes/admin/servers.ts';
import { adminSettingsRoutes } from './routes/admin/settings.ts';
import { peerRoutes } from './routes/client/peers.ts';
import { mirrorRoutes } from './routes/mirror.ts';
import { realtimeRoutes } from './routes/realtime.ts';
import { AgentHub } from './agents/hub.ts';
import { createBus, type Bus } from './realtime/bus.ts';
import { SocketRegistry } from './realtime/sockets.ts';
import { PeerService } from './services/peers.ts';
import { startScheduler } from './services/scheduler.ts';
import { AccountService } from './services/account.ts';
import { Mailer } from './services/mailer.ts';
import { accountRoutes } from './routes/client/account.ts';
import { partyRoutes } from './routes/client/parties.ts';
import { PartyService } from './services/parties.ts';
import { InvoiceService } from './services/invoices.ts';
import { QvaPayGateway, SandboxGateway } from './services/gateways.ts';
import { invoiceRoutes } from './routes/client/invoices.ts';
import { paymentRoutes } from './routes/payments.ts';
import { adminOverviewRoutes } from './routes/admin/overview.ts';
import { registerAudit } from './plugins/audit.ts';
import { adminContentRoutes } from './routes/admin/content.ts';
import { createCaptchaService, type CaptchaService } from './services/captcha.ts';
import { DEFAULT_RATE_LIMITS, type RateLimitPolicy } from './services/rateLimit.ts';
import { SessionService } from './services/sessions.ts';

export interface AppOptions {
  config: Config;
  database: Database;
  rateLimits?: Partial<RateLimitPolicy>;
  captcha?: CaptchaService;
  /** Pino logger options, or false for none (tests). */
  logger?: boolean | { level: string };
  /** An existing bus (tests share one between two app instances); default: made from the database. */
  bus?: Bus;
  mailer?: Mailer;
  /** Run the periodic tasks (expiry, busy timeouts); tests call them directly. Default true. */
  scheduler?: boolean;
}

/** Hides secrets from request logs: bearer tokens and the websocket's token query parameter. */
const redactUrl = (url: string) => url.replace(/([?&]token=)[^&]*/g, '$1[redactado]');

/** Builds the whole control plane from its dependencies; does not listen (main.ts does). */
export async function buildApp(opts: AppOptions): Promise<{ app: FastifyInstance; ctx: AppContext }> {
  const { config, database } = opts;
  const keys = deriveKeys(config.secretKey);
  const ownBus = !opts.bus;
  const bus = opts.bus ?? (await createBus(database));
  const peers = new PeerService({
    db: database.db,
    encryptionKey: keys.encryption,
    bus,
    publicUrl: config.publicUrl,
  });

  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: typeof opts.logger === 'object' ? opts.logger.level : config.logLevel,
            redact: ['req.headers.authorization', 'req.headers.cookie'],
            serializers: {
              req: (req: { method: string; url: string; ip?: string }) => ({
                method: req.method,
                url: redactUrl(req.url),
                ip: req.ip,
              }),
            },
          },
    trustProxy: config.trustProxy,
    bodyLimit: 64 * 1024,
  }).withTypeProvider<ZodTypeProvider>();

  const sessions = new SessionService(database.db, keys.jwt);
  const mailer = opts.mailer ?? new Mailer(config.mail, app.log);
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    keys,
    sessions,
    captcha: opts.captcha ?? createCaptchaService(database.db, config.captcha, keys.captcha),
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...opts.rateLimits },
    bus,
    peers,
    agents: new AgentHub({ db: database.db, bus, encryptionKey: keys.encryption, peers, log: app.log }),
    sockets: new SocketRegistry(bus),
    mailer,
    account: new AccountService({ db: database.db, sessions, mailer, companyName: config.companyName }),
    parties: new PartyService({ db: database.db, encryptionKey: keys.encryption, bus, peers }),
    invoices: new InvoiceService({
      db: database.db,
      bus,
      peers,
      qvapay: config.payments.qvapay ? new QvaPayGateway(config.payments.qvapay) : null,
      sandbox: config.payments.sandbox ? new SandboxGateway() : null,
    }),
  };
  peers.onSettled = () => ctx.parties.settle();
  const stopScheduler =
    opts.scheduler === false
      ? () => {}
      : startScheduler({ db: ctx.db, peers, sessions: ctx.sessions, log: app.log });
  app.addHook('onClose', async () => {
    stopScheduler();
    ctx.agents.close();
    ctx.sockets.close();
    ctx.mailer.close();
    if (ownBus) await bus.close();
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);

  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: `${config.companyName} API`,
        version: '1.0.0',
        description: 'API del panel de clientes y gestores.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    transform: jsonSchemaTransform,
  });

  await app.register(fastifyWebsocket, { options: { maxPayload: 16 * 1024 * 1024 } });
  registerAccessControl(app, ctx.sessions, ctx.db);
  registerAudit(app, ctx.db);

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (request.url.startsWith('/api/'))
      reply.header('cache-control', reply.getHeader('cache-control') ?? 'no-store');
    return payload;
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));

  app.get('/config.json', { schema: { hide: true } }, async (_req, reply): Promise<RuntimeConfig> => {
    reply.header('cache-control', 'no-cache');
    return {
      company_name: config.companyName,
      support_url: config.supportUrl ?? null,
      public_url: config.publicUrl ?? null,
      captcha:
        config.captcha.provider === 'turnstile'
          ? { provider: 'turnstile', site_key: config.captcha.siteKey }
          : { provider: 'altcha', challenge_url: '/api/client/captcha' },
    };
  });

  await app.register(publicRoutes(ctx));
  await app.register(customerAuthRoutes(ctx));
  await app.register(sessionRoutes(ctx));
  await app.register(adminAuthRoutes(ctx));
  await app.register(peerRoutes(ctx));
  await app.register(accountRoutes(ctx));
  await app.register(partyRoutes(ctx));
  await app.register(invoiceRoutes(ctx));
  await app.register(paymentRoutes(ctx));
  await app.register(mirrorRoutes(ctx));
  await app.register(adminServerRoutes(ctx));
  await app.register(adminSettingsRoutes(ctx));
  await app.register(adminContentRoutes(ctx));
  await app.register(adminOverviewRoutes(ctx));
  await app.register(realtimeRoutes(ctx));

  app.get('/api/docs', { schema: { hide: true } }, async () => app.swagger());

  const hasWeb = existsSync(join(config.webDist, 'index.html'));
  if (hasWeb) {
    // wildcard: files are looked up per request (a rebuilt web/dist needs no restart); misses fall to the SPA.
    await app.register(fastifyStatic, { root: config.webDist, wildcard: true, index: false });
    // The wildcard route would answer "/" as a directory listing request; the SPA shell it is.
    app.get('/', { schema: { hide: true } }, (_req, reply) =>
      reply.header('cache-control', 'no-cache').sendFile('index.html'),
    );
  }
  app.setNotFoundHandler(async (request, reply) => {
    const isApi =
      request.url.startsWith('/api/') || request.url === '/api' || realmOfPath(request.url) !== null;
    if (!isApi && hasWeb && (request.method === 'GET' || request.method === 'HEAD')) {
      // Client-side routes: the SPA decides what a path shows (including its own "not found").
      reply.header('cache-control', 'no-cache');
      return reply.sendFile('index.html');
    }
    return reply.status(404).send({ message: msg.notFound, code: 'not_found' });
  });

  return { app, ctx };
}
