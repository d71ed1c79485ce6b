/**
 * Fresh confirmation before a manager's sensitive operations (issue 17, M3): an access token alone —
 * a stolen session — must not change the manager's own password or two-factor, enrol two-factor,
 * create an owner, change a role or set gateway credentials. The manager gives the password again
 * (and a two-factor code when enabled) to `POST /api/admin/me/reauth` and gets a confirmation bound
 * to this session and manager for five minutes, sent as the `X-Reauth` header. Wrong passwords and
 * codes count like login failures (and have a limit of their own per manager).
 */
import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import {
  msgManagers,
  REAUTH_REQUIRED,
  TOTP_REQUIRED,
  type ReauthAnswer,
  type ReauthBody,
} from '@vpn/contracts';
import type { AppContext } from '../context.ts';
import { managers } from '../db/schema.ts';
import { sha256, verifyPassword } from '../lib/crypto.ts';
import { badRequest, HttpError } from '../lib/errors.ts';
import { principalOf } from './auth.ts';
import { consume, giveBack } from '../services/identity/rateLimit.ts';
import { twoFactorOf } from '../services/identity/twoFactor.ts';

export const REAUTH_TTL_SECONDS = 300;
const AUDIENCE = 'manager-reauth';
const ISSUER = 'vpn-platform';

/** A code as typed (spaces, dashes, case aside), hashed: the confirmation names it, never holds it. */
export const codeHash = (code: string) => sha256(code.replace(/[\s-]/g, '').toLowerCase());

const reauthRequired = () => new HttpError(403, msgManagers.reauthRequired, REAUTH_REQUIRED);

export class ReauthService {
  constructor(
    private readonly ctx: Pick<
      AppContext,
      'db' | 'keys' | 'bus' | 'config' | 'rateLimits' | 'managerLoginThrottle' | 'sessions'
    >,
  ) {}

  private key = (id: number) => `reauth:manager:${id}`;

  /** Checks the password (and code) again; answers a confirmation for this session. */
  async confirm(request: FastifyRequest, body: ReauthBody): Promise<ReauthAnswer> {
    const p = principalOf(request);
    const [row] = await this.ctx.db
      .select({ hash: managers.passwordHash, username: managers.username })
      .from(managers)
      .where(eq(managers.id, p.id));
    if (!row) throw reauthRequired();
    await this.claimed(request, row.username, async () => {
      if (!(await verifyPassword(body.password, row.hash))) throw badRequest(msgManagers.wrongPassword);
      const twoFactor = twoFactorOf(this.ctx);
      if (await twoFactor.enabled(p.id)) {
        if (!body.code) throw new HttpError(400, msgManagers.reauthCodeRequired, TOTP_REQUIRED);
        if (!(await twoFactor.checkCode(p.id, body.code))) throw badRequest(msgManagers.totpInvalid);
      }
    });
    const token = await new SignJWT({
      sid: p.session ?? null,
      ...(body.code ? { ch: codeHash(body.code) } : {}),
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(p.id))
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${REAUTH_TTL_SECONDS}s`)
      .sign(this.ctx.keys.jwt);
    return { token, expires_in: REAUTH_TTL_SECONDS };
  }

  /**
   * Throws 403 `reauth_required` unless the request carries a confirmation of its own session.
   * Answers the hash of the two-factor code that confirmation took, if any.
   */
  async require(request: FastifyRequest): Promise<{ codeHash: string | null }> {
    const p = principalOf(request);
    const header = request.headers['x-reauth'];
    if (typeof header !== 'string' || !header) throw reauthRequired();
    try {
      const { payload } = await jwtVerify(header, this.ctx.keys.jwt, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
      });
      if (payload.sub !== String(p.id) || (payload.sid ?? null) !== (p.session ?? null))
        throw new Error('other');
      return { codeHash: typeof payload.ch === 'string' ? payload.ch : null };
    } catch {
      throw reauthRequired();
    }
  }

  /**
   * A wrong password or code sent to DELETE /api/admin/me/totp: counted like a login failure, and
   * against the per-manager limit before the guess is looked at.
   */
  async guarded<T>(request: FastifyRequest, check: () => Promise<T>): Promise<T> {
    const p = principalOf(request);
    return this.claimed(request, p.username ?? String(p.id), check);
  }

  /**
   * Runs a check of the manager's password or code with one try claimed first against the
   * per-manager limit (429 past it), in one statement, so guesses sent at the same moment see each
   * other (issue 26). A wrong answer (400, not the question for a code) keeps the claim and counts as
   * the username's login failure; anything else gives it back.
   */
  private async claimed<T>(request: FastifyRequest, username: string, check: () => Promise<T>): Promise<T> {
    const key = this.key(principalOf(request).id);
    const limit = this.ctx.rateLimits.sensitivePerManager;
    await consume(this.ctx.db, key, limit);
    let result: T;
    try {
      result = await check();
    } catch (error) {
      if (error instanceof HttpError && error.status === 400 && error.code !== TOTP_REQUIRED)
        await this.ctx.managerLoginThrottle.failed(request.ip, username);
      else await giveBack(this.ctx.db, key, limit);
      throw error;
    }
    await giveBack(this.ctx.db, key, limit);
    return result;
  }
}
