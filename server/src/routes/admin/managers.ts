import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AdminManager,
  ErrorBody,
  ManagerListQuery,
  ManagerPatchBody,
  MessageBody,
  msgManagers,
  NewManagerBody,
  paged,
  RecoveryCodes,
  TotpConfirmBody,
  TotpDisableBody,
  TotpEnrolment,
  TotpStatus,
  IdParams,
  ReauthAnswer,
  ReauthBody,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf, principalOf } from '../../plugins/auth.ts';
import { ManagerAdminService } from '../../services/identity/managerConsole.ts';
import { twoFactorOf } from '../../services/identity/twoFactor.ts';
import { codeHash, ReauthService } from '../../plugins/reauth.ts';

const admin = { tags: ['admin'], security: [{ bearer: [] }] };

/** Managers (owner only) and every manager's own two-factor sign-in (`/api/admin/me/totp`). */
export const adminManagerRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const managers = new ManagerAdminService(ctx);
    const twoFactor = twoFactorOf(ctx);
    const reauth = new ReauthService(ctx);

    app.post(
      '/api/admin/me/reauth',
      {
        config: { permission: 'self' },
        schema: {
          ...admin,
          summary:
            'Confirma de nuevo la contraseña (y el código de verificación si está activado) antes de una operación sensible; ' +
            'devuelve una confirmación para la cabecera X-Reauth de esta sesión (5 minutos)',
          body: ReauthBody,
          response: { 200: ReauthAnswer, 400: ErrorBody, 429: ErrorBody },
        },
      },
      async (request) => reauth.confirm(request, request.body),
    );

    app.get(
      '/api/admin/managers',
      {
        config: { permission: 'managers.manage' },
        schema: {
          ...admin,
          summary: 'Gestores (búsqueda por usuario, filtro por rol)',
          querystring: ManagerListQuery,
          response: { 200: paged(AdminManager), 400: ErrorBody },
        },
      },
      async (request) => managers.list(request.query),
    );

    app.post(
      '/api/admin/managers',
      {
        config: { permission: 'managers.manage' },
        schema: {
          ...admin,
          summary: 'Crea un gestor con su rol (con X-Reauth: alguien nuevo podrá iniciar sesión)',
          body: NewManagerBody,
          response: { 201: AdminManager, 400: ErrorBody, 403: ErrorBody, 409: ErrorBody },
        },
      },
      async (request, reply) => {
        // A new manager of any role is someone new who can sign in: only with a fresh confirmation.
        await reauth.require(request);
        return reply.status(201).send(await managers.create(actorOf(request), request.body));
      },
    );

    app.patch(
      '/api/admin/managers/:id',
      {
        config: { permission: 'managers.manage' },
        schema: {
          ...admin,
          summary:
            'Cambia usuario, contraseña, rol o estado (con X-Reauth); deshabilitarlo o cambiar su rol o contraseña cierra sus sesiones',
          params: IdParams,
          body: ManagerPatchBody,
          response: { 200: AdminManager, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => {
        // Every field changes who can sign in (and with what): a stolen session alone must not set
        // another owner's password, rename an account away from its owner, or re-enable one.
        await reauth.require(request);
        return managers.update(actorOf(request), request.params.id, request.body);
      },
    );

    app.delete(
      '/api/admin/managers/:id',
      {
        config: { permission: 'managers.manage' },
        schema: {
          ...admin,
          summary: 'Elimina un gestor (con X-Reauth; no a sí mismo ni al último propietario activo)',
          params: IdParams,
          response: { 200: MessageBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => {
        await reauth.require(request);
        await managers.remove(actorOf(request), request.params.id);
        return { message: msgManagers.deleted };
      },
    );

    app.delete(
      '/api/admin/managers/:id/totp',
      {
        config: { permission: 'managers.manage' },
        schema: {
          ...admin,
          summary: 'Restablece la verificación en dos pasos de un gestor (teléfono perdido; con X-Reauth)',
          params: IdParams,
          response: { 200: MessageBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => {
        // Clearing another owner's two-factor is half of taking that account over (issue 26).
        await reauth.require(request);
        await twoFactor.reset(actorOf(request), request.params.id);
        return { message: msgManagers.totpReset };
      },
    );

    app.get(
      '/api/admin/me/totp',
      {
        config: { permission: 'self' },
        schema: {
          ...admin,
          summary: 'Estado de mi verificación en dos pasos',
          response: { 200: TotpStatus },
        },
      },
      async (request) => twoFactor.status(principalOf(request).id),
    );

    app.post(
      '/api/admin/me/totp',
      {
        config: { permission: 'self' },
        schema: {
          ...admin,
          summary:
            'Empieza a activar la verificación en dos pasos: secreto y URI otpauth:// para el código QR',
          response: { 200: TotpEnrolment, 409: ErrorBody },
        },
      },
      async (request) => {
        await reauth.require(request);
        return twoFactor.start(principalOf(request).id);
      },
    );

    app.post(
      '/api/admin/me/totp/confirm',
      {
        config: { permission: 'self' },
        schema: {
          ...admin,
          summary:
            'Activa la verificación en dos pasos con un primer código; devuelve los códigos de recuperación (una sola vez)',
          body: TotpConfirmBody,
          response: { 200: RecoveryCodes, 400: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => {
        const recovery_codes = await twoFactor.confirm(actorOf(request), request.body.code);
        // Whoever else holds a session of this manager must now sign in with the second factor.
        await ctx.sessions.revokeOtherSessions(principalOf(request));
        return { recovery_codes };
      },
    );

    app.delete(
      '/api/admin/me/totp',
      {
        config: { permission: 'self' },
        schema: {
          ...admin,
          summary:
            'Desactiva mi verificación en dos pasos (con X-Reauth, y un código o mi contraseña; los errores cuentan como intentos de inicio de sesión fallidos)',
          body: TotpDisableBody,
          response: { 200: MessageBody, 400: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody },
        },
      },
      async (request) => {
        const confirmed = await reauth.require(request);
        // The very code the confirmation just took (and spent) is not asked again: it would be
        // refused as replayed. Any other code, or a password, is checked, and counted if wrong.
        const { code } = request.body;
        const proof = code && confirmed.codeHash === codeHash(code) ? null : request.body;
        await reauth.guarded(request, () => twoFactor.disable(actorOf(request), proof));
        return { message: msgManagers.totpDisabled };
      },
    );
  };

export default adminManagerRoutes;
