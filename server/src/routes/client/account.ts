import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AdvertisementList,
  ClientVersion,
  ErrorBody,
  MessageBody,
  RecoveryBody,
  ResetPasswordBody,
  SettingsAnswer,
  SettingsPatchBody,
  VerifyEmailBody,
  msg,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { badRequest, forbidden, HttpError } from '../../lib/errors.ts';
import { consume, hit, peek } from '../../services/identity/rateLimit.ts';
import { customerPublicSettings } from '../../services/telegram/recovery.ts';
import { latestClientVersion, listAnnouncements } from '../../services/site/content.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody };

/** Dashboard home data, account settings, e-mail verification and password recovery. */
export const accountRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/client/advertisements',
      {
        schema: {
          tags: ['account'],
          summary: 'Anuncios',
          security: [{ bearer: [] }],
          response: { 200: AdvertisementList },
        },
      },
      async () => listAnnouncements(ctx.db),
    );

    app.get(
      '/api/client/agent',
      {
        schema: {
          tags: ['account'],
          summary: 'Versión más reciente de la app cliente',
          security: [{ bearer: [] }],
          response: { 200: ClientVersion },
        },
      },
      async () => latestClientVersion(ctx.db),
    );

    app.patch(
      '/api/client/settings',
      {
        schema: {
          tags: ['account'],
          summary: 'Cambia el email, el alias o la contraseña (uno por vez)',
          security: [{ bearer: [] }],
          body: SettingsPatchBody,
          response: { 200: SettingsAnswer, ...errors },
        },
      },
      async (request) => {
        const me = principalOf(request).id;
        const body = request.body;
        if ('email' in body) return ctx.account.changeEmail(me, body.email, body.password);
        if ('alias' in body) return ctx.account.setAlias(me, body.alias);
        return ctx.account.changePassword(me, body.old_password, body.new_password, {
          ip: request.ip,
          userAgent: request.headers['user-agent'],
        });
      },
    );

    app.delete(
      '/api/client/settings',
      {
        schema: {
          tags: ['account'],
          summary: 'Elimina el email de la cuenta',
          security: [{ bearer: [] }],
          response: { 200: SettingsAnswer, ...errors },
        },
      },
      async (request) => ctx.account.deleteEmail(principalOf(request).id),
    );

    app.post(
      '/api/client/password-recovery',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['account'],
          summary:
            'Envía un enlace de restablecimiento al email verificado y al chat de Telegram vinculado (misma respuesta exista o no la cuenta)',
          body: RecoveryBody,
          response: { 200: MessageBody, ...errors },
        },
      },
      async (request) => {
        // Off also while no channel can carry a link (no mail, no Telegram bot): nothing would come.
        if (!(await customerPublicSettings(ctx)).allow_password_recovery)
          throw forbidden(msg.recoveryDisabled);
        const username = request.body.username.trim();
        if (!username) throw badRequest(msg.credentialsRequired);
        await consume(ctx.db, `recovery:ip:${request.ip}`, ctx.rateLimits.recoveryPerIp);
        // Past the name's limit a request needs a solved captcha: anyone may send requests for any
        // name, so a hard limit would let them keep its owner from recovering the account.
        const userKey = `recovery:user:${username.toLowerCase()}`;
        const limit = ctx.rateLimits.recoveryPerUsername;
        if ((await peek(ctx.db, userKey, limit)) >= limit.max) {
          const token = request.body.captcha_token;
          if (!token)
            throw new HttpError(429, msg.recoveryCaptchaRequired, 'captcha_required', undefined, {
              'retry-after': '1',
            });
          await ctx.captcha.verify(token, request.ip);
        }
        await hit(ctx.db, userKey, limit);
        await ctx.account.requestRecovery(username, ctx.telegram);
        return { message: msg.recoverySent };
      },
    );

    app.post(
      '/api/client/reset-password',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['account'],
          summary: 'Fija una contraseña nueva con el enlace recibido por email',
          body: ResetPasswordBody,
          response: { 200: MessageBody, ...errors },
        },
      },
      async (request) => {
        await consume(ctx.db, `reset:ip:${request.ip}`, ctx.rateLimits.recoveryPerIp);
        await ctx.account.resetPassword(request.body.token, request.body.password);
        return { message: msg.resetDone };
      },
    );

    app.post(
      '/api/client/verify-email',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['account'],
          summary: 'Confirma el email con el enlace recibido',
          body: VerifyEmailBody,
          response: { 200: MessageBody, ...errors },
        },
      },
      async (request) => {
        await consume(ctx.db, `verify:ip:${request.ip}`, ctx.rateLimits.recoveryPerIp);
        if (!(await ctx.account.verifyEmail(request.body.token))) throw badRequest(msg.resetInvalid);
        return { message: msg.emailVerified };
      },
    );
  };

export default accountRoutes;
