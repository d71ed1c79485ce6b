import { and, eq, sql } from 'drizzle-orm';
import { msg } from '@vpn/contracts';
import type { Db } from '../db/client.ts';
import { rateLimits } from '../db/schema.ts';
import { HttpError } from '../lib/errors.ts';
import type { CaptchaService } from './captcha.ts';
import {
  clear,
  hit,
  LOGIN_DELAY_AFTER,
  LOGIN_DELAY_MAX_SECONDS,
  peek,
  type RateLimitPolicy,
} from './rateLimit.ts';

/** The row keeping an account's last wrong password (seconds since the epoch, in `hits`). */
const LAST_WINDOW = new Date(0);

const tooMany = (message: string, code: string, retryAfter: number) =>
  new HttpError(429, message, code, undefined, { 'retry-after': String(Math.max(1, Math.ceil(retryAfter))) });

/**
 * Customer login throttling that stops guessing without locking customers out:
 *  - a successful login counts against nothing (and forgets the account's failures);
 *  - per address, only failed logins count (one address may be a whole carrier-grade NAT);
 *  - per account, wrong passwords slow the next try down (1, 2, 4… s, at most 60 s);
 *  - past either limit, the password is only checked together with a solved captcha — so someone
 *    sending wrong passwords for a customer's username (or from the customer's shared address)
 *    cannot keep that customer out: the right password and a captcha still get in.
 */
export class LoginThrottle {
  constructor(
    private readonly db: Db,
    private readonly captcha: CaptchaService,
    private readonly policy: RateLimitPolicy,
  ) {}

  private accountKey = (username: string) => `login:fail:user:${username.trim().toLowerCase()}`;
  private lastKey = (username: string) => `login:last:user:${username.trim().toLowerCase()}`;
  private ipKey = (ip: string) => `login:fail:ip:${ip}`;

  /**
   * Before the password is checked: a solved captcha passes; otherwise an address or an account
   * past its failure limit must solve one (429 `captcha_required`), and an account with a few
   * recent failures waits its growing delay (429 `login_delay`, Retry-After).
   */
  async admit(
    ip: string,
    username: string,
    captchaToken: string | undefined,
    now = Date.now(),
  ): Promise<void> {
    const { loginFailuresPerIp: perIp, loginFailuresPerAccount: perAccount } = this.policy;
    if (captchaToken) {
      await this.captcha.verify(captchaToken, ip);
      return;
    }
    const ipFailures = await peek(this.db, this.ipKey(ip), perIp, now);
    const failures = await peek(this.db, this.accountKey(username), perAccount, now);
    if (ipFailures >= perIp.max || failures >= perAccount.max)
      throw tooMany(msg.loginCaptchaRequired, 'captcha_required', 1);
    if (failures >= LOGIN_DELAY_AFTER) {
      const wait = Math.min(2 ** (failures - LOGIN_DELAY_AFTER), LOGIN_DELAY_MAX_SECONDS);
      const [last] = await this.db
        .select({ at: rateLimits.hits })
        .from(rateLimits)
        .where(and(eq(rateLimits.key, this.lastKey(username)), eq(rateLimits.windowStart, LAST_WINDOW)));
      const remaining = (last?.at ?? 0) + wait - now / 1000;
      if (remaining > 0) throw tooMany(msg.loginSlowDown(Math.ceil(remaining)), 'login_delay', remaining);
    }
  }

  /** A wrong password (or unknown user): counts for the address and the account. */
  async failed(ip: string, username: string, now = Date.now()): Promise<void> {
    await hit(this.db, this.ipKey(ip), this.policy.loginFailuresPerIp, now);
    await hit(this.db, this.accountKey(username), this.policy.loginFailuresPerAccount, now);
    const at = Math.floor(now / 1000);
    await this.db
      .insert(rateLimits)
      .values({ key: this.lastKey(username), windowStart: LAST_WINDOW, hits: at })
      .onConflictDoUpdate({ target: [rateLimits.key, rateLimits.windowStart], set: { hits: sql`${at}` } });
  }

  /** The right password: the account's failures are forgotten. */
  async succeeded(username: string): Promise<void> {
    await clear(this.db, this.accountKey(username));
    await clear(this.db, this.lastKey(username));
  }
}
