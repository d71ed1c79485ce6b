import type { FastifyInstance, FastifyRequest } from 'fastify';
import { can, msg, ROLE_LABELS, type Permission, type Role } from '@vpn/contracts';
import { forbidden, unauthorized, unavailable } from '../lib/errors.ts';
import type { Principal, Realm, SessionService } from '../services/identity/sessions.ts';
import type { Actor } from '../services/site/audit.ts';
import type { Db } from '../db/client.ts';
import { getSiteSettings } from '../services/site/settings.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** 'public' opens a route under /api/client or /api/admin to anonymous callers. */
    auth?: 'public';
    /** Answers even while the site is in maintenance. */
    maintenanceExempt?: boolean;
    /**
     * Manager routes: the permission of the matrix (packages/contracts/src/admin.ts) a role needs.
     * Every non-public /api/admin route must declare one; registering one without it fails at start.
     */
    permission?: Permission;
  }
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m?.[1] ?? null;
}

/** Which realm a path belongs to: every /api/client route is a customer's, every /api/admin a manager's. */
export function realmOfPath(url: string): Realm | null {
  if (url === '/api/client' || url.startsWith('/api/client/')) return 'customer';
  if (url === '/api/admin' || url.startsWith('/api/admin/')) return 'manager';
  return null;
}

/**
 * Authorization that cannot be forgotten: every route under /api/client and /api/admin needs an
 * access token of its realm unless the route itself declares `config: { auth: 'public' }`.
 * Customer routes also answer 503 while maintenance is on, except those marked exempt.
 */
export function registerAccessControl(app: FastifyInstance, sessions: SessionService, db: Db): void {
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { auth?: string; permission?: Permission };
    if (realmOfPath(route.url) === 'manager' && config.auth !== 'public' && !config.permission)
      throw new Error(`La ruta ${route.method} ${route.url} no declara su permiso (config.permission)`);
  });
  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    if (!url) return;
    const realm = realmOfPath(url);
    if (!realm) return;
    const config = request.routeOptions.config;
    if (realm === 'customer' && !config.maintenanceExempt && (await getSiteSettings(db)).maintenance) {
      throw unavailable();
    }
    if (config.auth === 'public') return;
    const token = bearerToken(request);
    if (!token) throw unauthorized();
    request.principal = await sessions.verifyAccess(token, realm);
    if (realm === 'manager' && config.permission && !can(request.principal.role ?? '', config.permission))
      throw forbidden(roleForbidden(request.principal.role));
  });
}

/** The principal a guarded route was admitted with. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

/** The 403 a manager whose role lacks a permission gets: names the role, in Spanish. */
export function roleForbidden(role: string | undefined): string {
  const label = ROLE_LABELS[role as Role] ?? role ?? '';
  return msg.roleForbidden.replace('{role}', label);
}

/** The role of the manager a guarded admin route was admitted with. */
export function managerRoleOf(request: FastifyRequest): Role {
  const p = principalOf(request);
  return (p.role ?? 'support') as Role;
}

/**
 * The manager acting on a guarded admin route, for services that write the audit entry inside
 * their own transaction.
 */
export function actorOf(request: FastifyRequest): Actor {
  const p = principalOf(request);
  return { id: p.id, username: p.username ?? String(p.id), ip: request.ip };
}
