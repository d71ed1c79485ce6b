import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { SignJWT, jwtVerify } from 'jose';
import { msg, type TokenPair } from '@vpn/contracts';
import type { Db } from '../db/client.ts';
import { customers, managers, refreshTokens } from '../db/schema.ts';
import { randomToken, sha256 } from '../lib/crypto.ts';
import { unauthorized } from '../lib/errors.ts';

/** Customers and managers are separate realms: a token of one never opens the other's API. */
export type Realm = 'customer' | 'manager';

export interface Principal {
  realm: Realm;
  id: number;
}

export const ACCESS_TTL_SECONDS = 15 * 60;
const REFRESH_TTL_REMEMBER_MS = 30 * 24 * 3600 * 1000;
const REFRESH_TTL_SESSION_MS = 24 * 3600 * 1000;
const ISSUER = 'vpn-platform';

export interface SessionMeta {
  ip?: string;
  userAgent?: string;
}

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly jwtKey: Uint8Array,
  ) {}

  async signAccess(p: Principal): Promise<string> {
    return new SignJWT({ realm: p.realm })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(p.id))
      .setIssuer(ISSUER)
      .setAudience(p.realm)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TTL_SECONDS}s`)
      .sign(this.jwtKey);
  }

  /**
   * Verifies an access token for one realm and that its subject is still active and its
   * sessions were not revoked after the token was issued. Throws 401 otherwise.
   */
  async verifyAccess(token: string, realm: Realm): Promise<Principal> {
    let sub: number;
    let iat: number;
    try {
      const { payload } = await jwtVerify(token, this.jwtKey, {
        issuer: ISSUER,
        audience: realm,
        algorithms: ['HS256'],
      });
      sub = Number(payload.sub);
      iat = payload.iat ?? 0;
      if (payload.realm !== realm || !Number.isInteger(sub)) throw new Error('realm');
    } catch {
      throw unauthorized();
    }
    const table = realm === 'customer' ? customers : managers;
    const [row] = await this.db
      .select({ active: table.active, validAfter: table.sessionsValidAfter })
      .from(table)
      .where(eq(table.id, sub));
    if (!row || !row.active) throw unauthorized();
    if (row.validAfter && iat * 1000 < Math.floor(row.validAfter.getTime() / 1000) * 1000)
      throw unauthorized();
    return { realm, id: sub };
  }

  /** Starts a session: a new refresh-token family. */
  async issue(p: Principal, remember: boolean, meta: SessionMeta = {}): Promise<TokenPair> {
    return this.mint(p, randomUUID(), remember, meta);
  }

  private async mint(
    p: Principal,
    familyId: string,
    remember: boolean,
    meta: SessionMeta,
  ): Promise<TokenPair> {
    const refresh = randomToken(32);
    await this.db.insert(refreshTokens).values({
      realm: p.realm,
      subjectId: p.id,
      familyId,
      tokenHash: sha256(refresh),
      remember,
      expiresAt: new Date(Date.now() + (remember ? REFRESH_TTL_REMEMBER_MS : REFRESH_TTL_SESSION_MS)),
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 300),
    });
    return { access: await this.signAccess(p), refresh };
  }

  /**
   * Rotates a refresh token: the presented one is spent and a new one of the same family returned.
   * Presenting a token that was already spent is treated as theft: the whole family is revoked.
   */
  async rotate(refresh: string, meta: SessionMeta = {}): Promise<TokenPair & { realm: Realm }> {
    const hash = sha256(refresh);
    // Spend it atomically: of two concurrent uses only one gets the row back.
    const [spent] = await this.db
      .update(refreshTokens)
      .set({ usedAt: sql`now()` })
      .where(
        and(
          eq(refreshTokens.tokenHash, hash),
          isNull(refreshTokens.usedAt),
          isNull(refreshTokens.revokedAt),
          sql`${refreshTokens.expiresAt} > now()`,
        ),
      )
      .returning();
    if (!spent) {
      const [known] = await this.db
        .select({ familyId: refreshTokens.familyId })
        .from(refreshTokens)
        .where(eq(refreshTokens.tokenHash, hash));
      if (known) await this.revokeFamily(known.familyId);
      throw unauthorized(msg.invalidRefresh);
    }
    const realm = spent.realm as Realm;
    const principal = { realm, id: spent.subjectId };
    const table = realm === 'customer' ? customers : managers;
    const [owner] = await this.db
      .select({ active: table.active, validAfter: table.sessionsValidAfter })
      .from(table)
      .where(eq(table.id, spent.subjectId));
    if (!owner || !owner.active || (owner.validAfter && owner.validAfter > spent.createdAt)) {
      await this.revokeFamily(spent.familyId);
      throw unauthorized(msg.invalidRefresh);
    }
    const pair = await this.mint(principal, spent.familyId, spent.remember, meta);
    return { ...pair, realm };
  }

  /** Logout: revokes the family of the presented token (unknown tokens are ignored). */
  async revoke(refresh: string): Promise<void> {
    const [row] = await this.db
      .select({ familyId: refreshTokens.familyId })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(refresh)));
    if (row) await this.revokeFamily(row.familyId);
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.db
      .update(refreshTokens)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
  }

  /** Ends every session of a subject (password change, account disabled), optionally but one family. */
  async revokeAll(p: Principal): Promise<void> {
    const table = p.realm === 'customer' ? customers : managers;
    await this.db
      .update(table)
      .set({ sessionsValidAfter: sql`now()` })
      .where(eq(table.id, p.id));
    await this.db
      .update(refreshTokens)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(refreshTokens.realm, p.realm),
          eq(refreshTokens.subjectId, p.id),
          isNull(refreshTokens.revokedAt),
        ),
      );
  }

  /** Deletes tokens that expired or were revoked more than a week ago. */
  async prune(): Promise<void> {
    await this.db
      .delete(refreshTokens)
      .where(
        or(
          lt(refreshTokens.expiresAt, sql`now() - interval '7 days'`),
          lt(refreshTokens.revokedAt, sql`now() - interval '7 days'`),
        ),
      );
  }
}
