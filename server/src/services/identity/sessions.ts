import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { SignJWT, jwtVerify } from 'jose';
import { msg, type TokenPair } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, managers, refreshTokens } from '../../db/schema.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import { UUID_RE, unauthorized } from '../../lib/errors.ts';
import { notifyInTransaction, type BusEvent } from '../../realtime/bus.ts';

/** Customers and managers are separate realms: a token of one never opens the other's API. */
export type Realm = 'customer' | 'manager';

export interface Principal {
  realm: Realm;
  id: number;
  /** Managers only: the role of the permission matrix (packages/contracts/src/admin.ts). */
  role?: string;
  /** Managers only: the username, for the audit log. */
  username?: string;
  /** The session (refresh-token family) the access token belongs to; tokens of old versions have none. */
  session?: string;
  /** When the access token expires (ms since the epoch); the push socket it opened closes then. */
  expiresAt?: number;
}

export const ACCESS_TTL_SECONDS = 15 * 60;
const REFRESH_TTL_REMEMBER_MS = 30 * 24 * 3600 * 1000;
const REFRESH_TTL_SESSION_MS = 24 * 3600 * 1000;
/**
 * How long after its rotation a spent refresh token may be presented again while its successor is
 * unused (an answer lost on a mobile link). A phone may be without signal for minutes; a thief
 * replaying within it gains nothing a stolen unspent token would not, and is found out at the
 * owner's next refresh (the successor is expired, so presenting it revokes the family).
 */
export const REFRESH_REUSE_GRACE_MS = 10 * 60 * 1000;
const ISSUER = 'vpn-platform';

export interface SessionMeta {
  ip?: string;
  userAgent?: string;
}

/**
 * The instant from which a subject's earlier tokens stop working. Tokens are stamped with the
 * application's clock in milliseconds, so the cut-off is taken from the same clock, not the database's.
 */
export function revocationTime(): Date {
  return new Date();
}

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly jwtKey: Uint8Array,
  ) {}

  /** An access token of session `p.session` (its logout ends the token too); `ttlSeconds` for tests. */
  async signAccess(p: Principal, ttlSeconds = ACCESS_TTL_SECONDS): Promise<string> {
    const now = Date.now();
    // `ims`: the issue time in milliseconds. `iat` has whole seconds, so a token issued in the same
    // second as a revocation (login, then disabled at once) would outlive it.
    return new SignJWT({ realm: p.realm, ims: now, ...(p.session ? { sid: p.session } : {}) })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(p.id))
      .setIssuer(ISSUER)
      .setAudience(p.realm)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.jwtKey);
  }

  /**
   * Verifies an access token for one realm and that its subject is still active, its sessions
   * were not revoked after the token was issued and its own session was not logged out. Throws 401
   * otherwise.
   */
  async verifyAccess(token: string, realm: Realm): Promise<Principal> {
    let sub: number;
    let issuedMs: number;
    let exp: number;
    let sid: string | undefined;
    try {
      const { payload } = await jwtVerify(token, this.jwtKey, {
        issuer: ISSUER,
        audience: realm,
        algorithms: ['HS256'],
      });
      sub = Number(payload.sub);
      issuedMs = typeof payload.ims === 'number' ? payload.ims : (payload.iat ?? 0) * 1000;
      exp = payload.exp ?? 0;
      sid = typeof payload.sid === 'string' && UUID_RE.test(payload.sid) ? payload.sid : undefined;
      if (payload.realm !== realm || !Number.isInteger(sub)) throw new Error('realm');
    } catch {
      throw unauthorized();
    }
    // Logout and a detected refresh-token theft revoke the family: its access tokens end with it.
    const loggedOut = sid
      ? sql<boolean>`exists (select 1 from ${refreshTokens} where ${refreshTokens.familyId} = ${sid} and ${refreshTokens.revokedAt} is not null)`
      : sql<boolean>`false`;
    const [row] =
      realm === 'customer'
        ? await this.db
            .select({
              active: customers.active,
              validAfter: customers.sessionsValidAfter,
              role: sql<string | null>`null`,
              username: sql<string | null>`null`,
              loggedOut,
            })
            .from(customers)
            .where(eq(customers.id, sub))
        : await this.db
            .select({
              active: managers.active,
              validAfter: managers.sessionsValidAfter,
              role: managers.role,
              username: managers.username,
              loggedOut,
            })
            .from(managers)
            .where(eq(managers.id, sub));
    if (!row || !row.active || row.loggedOut) throw unauthorized();
    if (row.validAfter && issuedMs < row.validAfter.getTime()) throw unauthorized();
    const session = { session: sid, expiresAt: exp * 1000 };
    return realm === 'manager'
      ? { realm, id: sub, role: row.role ?? undefined, username: row.username ?? undefined, ...session }
      : { realm, id: sub, ...session };
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
      // The application's clock, like sessionsValidAfter: both are compared with each other.
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + (remember ? REFRESH_TTL_REMEMBER_MS : REFRESH_TTL_SESSION_MS)),
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 300),
    });
    return { access: await this.signAccess({ ...p, session: familyId }), refresh };
  }

  /**
   * Rotates a refresh token: the presented one is spent and a new one of the same family returned.
   * Presenting a token that was already spent is treated as theft: the whole family is revoked —
   * except within REFRESH_REUSE_GRACE_MS of its rotation while the token it was exchanged for was
   * never used: on mobile data the answer of a rotation is sometimes lost, and the client can only
   * present the old token again. It then gets a new pair and the unused one is taken back (expired),
   * so a thief who replays the token inside the grace is found out as soon as the owner refreshes.
   */
  async rotate(refresh: string, meta: SessionMeta = {}): Promise<TokenPair & { realm: Realm }> {
    const hash = sha256(refresh);
    // Spend it atomically: of two concurrent uses only one gets the row back.
    const [fresh] = await this.db
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
    const spent = fresh ?? (await this.retakeLostRotation(hash));
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

  /**
   * The grace of `rotate`: the presented token was spent less than REFRESH_REUSE_GRACE_MS ago and
   * the family's one live token (its successor) was never used: that successor is expired and the
   * presented row returned to be rotated again. Anything else is undefined (a reuse).
   */
  private async retakeLostRotation(hash: string): Promise<typeof refreshTokens.$inferSelect | undefined> {
    const [known] = await this.db
      .select()
      .from(refreshTokens)
      .where(
        and(
          eq(refreshTokens.tokenHash, hash),
          isNull(refreshTokens.revokedAt),
          sql`${refreshTokens.expiresAt} > now()`,
          sql`${refreshTokens.usedAt} > now() - (${REFRESH_REUSE_GRACE_MS} * interval '1 millisecond')`,
        ),
      );
    if (!known) return undefined;
    // Its successor must be the family's last token: one used since means the session went on.
    const [later] = await this.db
      .select({ id: refreshTokens.id })
      .from(refreshTokens)
      .where(
        and(
          eq(refreshTokens.familyId, known.familyId),
          // Compared in SQL: the column keeps microseconds, a JavaScript Date only milliseconds.
          sql`${refreshTokens.usedAt} > (select r.used_at from refresh_tokens r where r.id = ${known.id})`,
        ),
      )
      .limit(1);
    if (later) return undefined;
    // Taken back by expiring it, not revoking it: a revoked token ends the session's access tokens
    // (verifyAccess), and presenting an expired one is still a reuse that revokes the family.
    const taken = await this.db
      .update(refreshTokens)
      .set({ expiresAt: sql`now()` })
      .where(
        and(
          eq(refreshTokens.familyId, known.familyId),
          isNull(refreshTokens.usedAt),
          isNull(refreshTokens.revokedAt),
          sql`${refreshTokens.expiresAt} > now()`,
        ),
      )
      .returning({ id: refreshTokens.id });
    return taken.length === 1 ? known : undefined;
  }

  /** Logout: revokes the family of the presented token (unknown tokens are ignored). */
  async revoke(refresh: string): Promise<void> {
    const [row] = await this.db
      .select({ familyId: refreshTokens.familyId })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(refresh)));
    if (row) await this.revokeFamily(row.familyId);
  }

  /** Ends one session; its open push sockets close on every instance when this commits. */
  async revokeFamily(familyId: string, db: Db = this.db): Promise<void> {
    const rows = await db
      .update(refreshTokens)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
      .returning({ realm: refreshTokens.realm, subjectId: refreshTokens.subjectId });
    if (rows[0])
      await announceRevoked(db, {
        kind: 'revoked',
        realm: rows[0].realm as Realm,
        userId: rows[0].subjectId,
        session: familyId,
      });
  }

  /**
   * Ends every session of a subject except the one `p` acts in (a manager enrolling two-factor):
   * their refresh tokens are revoked, and with them their access tokens and push sockets.
   */
  async revokeOtherSessions(p: Principal): Promise<void> {
    const families = await this.db
      .selectDistinct({ id: refreshTokens.familyId })
      .from(refreshTokens)
      .where(
        and(
          eq(refreshTokens.realm, p.realm),
          eq(refreshTokens.subjectId, p.id),
          isNull(refreshTokens.revokedAt),
        ),
      );
    for (const { id } of families) if (id !== p.session) await this.revokeFamily(id);
  }

  /**
   * Ends every session of a subject (password change, account disabled): access tokens stop working
   * at once, refresh tokens are revoked, open push sockets close on every instance. Pass `db` (a
   * transaction) to revoke with the change itself. The cut-off is the application's clock
   * (`revocationTime`), the clock that stamps the tokens.
   */
  async revokeAll(p: Principal, db: Db = this.db): Promise<void> {
    const table = p.realm === 'customer' ? customers : managers;
    await db.update(table).set({ sessionsValidAfter: revocationTime() }).where(eq(table.id, p.id));
    await db
      .update(refreshTokens)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(refreshTokens.realm, p.realm),
          eq(refreshTokens.subjectId, p.id),
          isNull(refreshTokens.revokedAt),
        ),
      );
    await announceRevoked(db, { kind: 'revoked', realm: p.realm, userId: p.id });
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

/**
 * Tells every instance to close the revoked sockets. Notified by the database in the revoking
 * transaction, so it is heard when (and only if) the revocation commits, after which a socket's
 * token no longer verifies.
 */
async function announceRevoked(db: Db, event: Extract<BusEvent, { kind: 'revoked' }>): Promise<void> {
  await notifyInTransaction(db, event);
}
