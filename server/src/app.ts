import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/client.ts';
import { deriveKeys } from './lib/crypto.ts';
import { redactUrl } from './lib/redact.ts';
import { serializeError } from './lib/dbErrorLog.ts';
import { fastifyTrustProxy } from './lib/trustProxy.ts';
import { registerAccessControl } from './plugins/auth.ts';
import { answerFrameworkError, registerErrorHandling } from './plugins/errors.ts';
import { registerInputGuards } from './plugins/input.ts';
import { security } from './plugins/security.ts';
import { web } from './plugins/web.ts';
import { prometheus } from './plugins/prometheus.ts';
import { sessionRoutes } from './routes/session/index.ts';
import { adminArea } from './routes/admin/index.ts';
import { clientArea } from './routes/client/index.ts';
import { mirrorRoutes } from './routes/mirror.ts';
import { backupRoutes } from './routes/backup.ts';
import { BROWSER_WS_MAX_PAYLOAD, limitWebsocketPayloads, realtimeRoutes } from './routes/realtime.ts';
import { AgentHub } from './agents/hub.ts';
import { agentReleaseRoutes } from './routes/agentRelease.ts';
import { createBus, type Bus } from './realtime/bus.ts';
import { SocketRegistry } from './realtime/sockets.ts';
import { startScheduler } from './scheduler.ts';
import { paymentRoutes } from './routes/payments.ts';
import { telegramRoutes } from './routes/telegram.ts';
import type { Mailer } from './services/site/mailer.ts';
import type { CaptchaService } from './services/identity/captcha.ts';
import type { RateLimitPolicy } from './services/identity/rateLimit.ts';
import { createSite } from './services/site/index.ts';
import { createIdentity } from './services/identity/index.ts';
import { createFleet } from './services/fleet/index.ts';
import { createPeers } from './services/peers/index.ts';
import { createRooms } from './services/rooms/index.ts';
import { createBilling } from './services/billing/index.ts';
import { createTelegram } from './services/telegram/index.ts';
import { isDatabaseUnavailable } from './lib/errors.ts';

export interface AppOptions {
  config: Config;
  database: Database;
  rateLimits?: Partial<RateLimitPolicy>;
  captcha?: CaptchaService;
  /** Pino logger options, or false for none (tests). */
  logger?: boolean | { level: string };
  /** Where log lines go (default stdout); tests read them to prove no secret is logged. */
  logStream?: NodeJS.WritableStream;
  /** An existing bus (tests share one between two app instances); default: made from the database. */
  bus?: Bus;
  mailer?: Mailer;
  /** Run the periodic tasks (expiry, busy timeouts); tests call them directly. Default true. */
  scheduler?: boolean;
  /** Sees every route as it is registered (the permission-matrix test reads the route table). */
  onRoute?: (route: RouteOptions) => void;
  /** Peers per message of a snapshot sent in parts (default AGENT_SNAPSHOT_CHUNK_PEERS; tests). */
  snapshotChunkPeers?: number;
  /**
   * How often agents report stats (default STATS_INTERVAL_MS, 10 s): data-plane tests sample
   * endpoints faster to see an alternation within their time budget (docs/decisions.md, issue 19).
   */
  statsIntervalMs?: number;
  /** The agent file served to VPN servers (default agent/dist/vpn-agent.mjs; tests). */
  agentFile?: string;
  /** Run the Telegram bot's cycle (default true; it does nothing without a token). */
  telegram?: boolean;
}

/** Builds the whole control plane from its dependencies; does not listen (main.ts does). */
export async function buildApp(opts: AppOptions): Promise<{ app: FastifyInstance; ctx: AppContext }> {
  const { config, database } = opts;
  const keys = deriveKeys(config.secretKey);
  const ownBus = !opts.bus;
  const bus = opts.bus ?? (await createBus(database));
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: typeof opts.logger === 'object' ? opts.logger.level : config.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            redact: ['req.headers.authorization', 'req.headers.cookie'],
            serializers: {
              err: serializeError,
              req: (req: { method: string; url: string; ip?: string }) => ({
                method: req.method,
                url: redactUrl(req.url),
                ip: req.ip,
              }),
            },
          },
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 64 * 1024,
    // Route areas import their files while registering; on a loaded machine that passed avvio's
    // default 10 s and the start failed (AVV_ERR_PLUGIN_EXEC_TIMEOUT). A slow start is not an error.
    pluginTimeout: 120_000,
    // Refusals the router makes before any route or error handler runs (a path segment past
    // maxParamLength, a malformed %-escape): Fastify's own answers are English.
    frameworkErrors: answerFrameworkError,
    // While an instance closes (systemctl stop, an upgrade) a request that reaches it on a
    // connection the proxy already holds is answered, not refused: Fastify's default 503 would go
    // to the user as is (Caddy retries a connection that fails, not an answer). New connections
    // are refused and go to another instance; close() waits for the requests under way.
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>();

  // One entry point per domain, lowest first (docs/architecture.md): each builds its services.
  const db = database.db;
  const log = app.log;
  const { telemetry, mailer } = createSite({ config, log, mailer: opts.mailer });
  bus.onLag?.((seconds) => telemetry.busNotifyLag.observe(seconds));
  const identity = createIdentity({
    config,
    db,
    keys,
    mailer,
    captcha: opts.captcha,
    rateLimits: opts.rateLimits,
  });
  const { agentRelease } = createFleet({ agentFile: opts.agentFile });
  const { peers, allowances, concurrentUse, mailNotices } = createPeers({
    config,
    db,
    bus,
    keys,
    mailer,
    log,
  });
  const { rooms } = createRooms({ db, bus, keys, peers });
  const billing = createBilling({ config, db, bus, keys, mailer, peers, log });
  const { telegram } = createTelegram({
    config,
    db,
    keys,
    peers,
    invoices: billing.invoices,
    log,
    notices: opts.scheduler !== false,
  });
  const { sessions } = identity;
  const ctx: AppContext = {
    config,
    agentRelease,
    concurrentUse,
    database,
    db,
    keys,
    ...identity,
    bus,
    peers,
    agents: new AgentHub({
      db,
      bus,
      encryptionKey: keys.encryption,
      meshKey: keys.mesh,
      peers,
      log,
      catchupMs: config.agentCatchupMs,
      snapshotChunkPeers: opts.snapshotChunkPeers,
      statsIntervalMs: opts.statsIntervalMs,
      release: agentRelease,
      concurrentUse,
      onUpdateBuilt: (seconds) => telemetry.agentUpdateBuild.observe(seconds),
      // A quarter of the pool stores stats reports; the rest stays for requests.
      statsConcurrency: Math.max(1, Math.floor(config.databasePoolSize / 4)),
    }),
    sockets: new SocketRegistry(bus, (token, realm) =>
      sessions.verifyAccess(token, realm).then(
        () => true,
        () => false,
      ),
    ),
    mailer,
    rooms,
    ...billing,
    allowances,
    telegram,
  };
  peers.onSettled = () => ctx.rooms.settle();
  const stopScheduler =
    opts.scheduler === false
      ? () => {}
      : startScheduler({
          db: ctx.db,
          peers,
          sessions: ctx.sessions,
          invoices: ctx.invoices,
          reminders: ctx.reminders,
          allowances: ctx.allowances,
          notices: mailNotices,
          concurrentUse,
          log: app.log,
          telemetry,
        });
  if (opts.telegram !== false) ctx.telegram.start();
  // The database answering 503 is a manager alert (services/telegram).
  app.addHook('onError', async (_request, _reply, error) => {
    if (isDatabaseUnavailable(error)) ctx.telegram.databaseUnavailable();
  });
  app.addHook('onClose', async () => {
    stopScheduler();
    await ctx.telegram.stop();
    ctx.agents.close();
    ctx.sockets.close();
    ctx.mailer.close();
    if (ownBus) await bus.close();
  });

  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerInputGuards(app);

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

  // Before everything else, so its timing hook wraps every route, page and 404.
  await app.register(prometheus, { ctx, telemetry });
  // Helmet's headers on every answer, the CSP and Permissions-Policy on HTML, HSTS over https.
  await app.register(security, { config });
  await app.register(fastifyWebsocket, { options: { maxPayload: BROWSER_WS_MAX_PAYLOAD } });
  limitWebsocketPayloads(app.websocketServer);
  // Compression, static files and the SPA's documents; first, so compression wraps every route.
  await app.register(web, { ctx });
  registerAccessControl(app, ctx.sessions, ctx.db);

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/api/'))
      reply.header('cache-control', reply.getHeader('cache-control') ?? 'no-store');
    return payload;
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));

  await app.register(clientArea(ctx));
  await app.register(adminArea(ctx));
  await app.register(sessionRoutes(ctx));
  await app.register(paymentRoutes(ctx));
  await app.register(mirrorRoutes(ctx));
  await app.register(realtimeRoutes(ctx));
  await app.register(agentReleaseRoutes(ctx));
  await app.register(backupRoutes(ctx));
  await app.register(telegramRoutes(ctx));

  app.get('/api/docs', { schema: { hide: true } }, async () => app.swagger());

  return { app, ctx };
}
