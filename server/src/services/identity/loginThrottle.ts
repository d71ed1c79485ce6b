import { msg } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { HttpError } from '../../lib/errors.ts';
import type { Lane } from '../../lib/workGate.ts';
import { ALTCHA_MAX_FACTOR, type CaptchaService } from './captcha.ts';
import {
  clear,
  FAILURE_CAP,
  hit,
  lastHitAt,
  LOGIN_DELAY_AFTER,
  LOGIN_DELAY_MAX_SECONDS,
  peek,
  refuseWhenFull,
  type Limit,
} from './rateLimit.ts';

const tooMany = (message: string, code: string, retryAfter: number) =>
  new HttpError(429, message, code, undefined, { 'retry-after': String(Math.max(1, Math.ceil(retryAfter))) });

export interface ThrottleRealm {
  /** Key prefix: `login` (customers) or `admin-login` (managers). */
  prefix: string;
  perIp: Limit;
  perAccount: Limit;
  /**
   * What a full address gets: customers share addresses (carrier-grade NAT), so it asks for a
   * captcha; a manager's address waits until it drains (a delay per address, never per account).
   */
  ipFull: 'captcha' | 'wait';
}

/**
 * Login throttling that stops guessing without letting anyone lock an account out (issue 17, M1/M2):
 *  - a successful login counts against nothing (and forgets the account's failures);
 *  - per address, only failures count;
 *  - per account, failures never lock and never delay everyone: past the limit the password is
 *    checked only with a solved captcha, whose work grows with how far past the limit the account
 *    (or the address) is — so the real owner, from an address that has not failed, still gets in;
 *  - per address *and* account, wrong passwords slow that address's next tries for that account down
 *    (1, 2, 4… s, at most 60 s), captcha or not: a solved captcha never skips a delay or a limit;
 *  - counts are GCRA states shared through the database (services/identity/rateLimit.ts).
 */
export class LoginThrottle {
  constructor(
    private readonly db: Db,
    private readonly captcha: CaptchaService,
    private readonly realm: ThrottleRealm,
  ) {}

  private accountKey = (username: string) =>
    `${this.realm.prefix}:fail:user:${username.trim().toLowerCase()}`;
  private pairKey = (ip: string, username: string) =>
    `${this.realm.prefix}:fail:pair:${username.trim().toLowerCase()}@${ip}`;
  private ipKey = (ip: string) => `${this.realm.prefix}:fail:ip:${ip}`;

  /**
   * How much harder than usual the captcha for this account and address is (1…64): doubling from
   * the limit on, as failures go on past it (they are counted up to FAILURE_CAP times the limit).
   */
  async captchaFactor(ip: string, username: string, now = Date.now()): Promise<number> {
    const { perIp, perAccount } = this.realm;
    const ratio = Math.max(
      username.trim()
        ? (await peek(this.db, this.accountKey(username), perAccount, now)) / perAccount.max
        : 0,
      (await peek(this.db, this.ipKey(ip), perIp, now)) / perIp.max,
    );
    if (ratio < 1) return 1;
    const steps = Math.log2(ALTCHA_MAX_FACTOR);
    return 2 ** Math.min(steps, 1 + Math.floor(((ratio - 1) * (steps - 1)) / (FAILURE_CAP - 1)));
  }

  /**
   * Before the password is checked: this address's delay for this account (429 `login_delay`,
   * Retry-After); a manager's address past its limit waits (429 `rate_limited`); past the account's
   * (or a customer address's) limit a solved captcha of the current difficulty is needed
   * (429 `captcha_required`). A captcha sent when none is needed is still checked and spent.
   * Answers the lane the password check runs in: `suspect` for an address that has been failing.
   */
  async admit(
    ip: string,
    username: string,
    captchaToken: string | undefined,
    now = Date.now(),
  ): Promise<Lane> {
    const { perIp, perAccount, ipFull } = this.realm;
    const pairFailures = await peek(this.db, this.pairKey(ip, username), perAccount, now);
    if (pairFailures >= LOGIN_DELAY_AFTER) {
      const wait = Math.min(2 ** (pairFailures - LOGIN_DELAY_AFTER), LOGIN_DELAY_MAX_SECONDS);
      const last = await lastHitAt(this.db, this.pairKey(ip, username));
      const remaining = (last?.getTime() ?? 0) / 1000 + wait - now / 1000;
      if (remaining > 0) throw tooMany(msg.loginSlowDown(Math.ceil(remaining)), 'login_delay', remaining);
    }
    if (ipFull === 'wait') await refuseWhenFull(this.db, this.ipKey(ip), perIp, now);
    const ipFailures = await peek(this.db, this.ipKey(ip), perIp, now);
    const failures = await peek(this.db, this.accountKey(username), perAccount, now);
    const needed = (ipFull === 'captcha' && ipFailures >= perIp.max) || failures >= perAccount.max;
    if (needed && !captchaToken) throw tooMany(msg.loginCaptchaRequired, 'captcha_required', 1);
    if (captchaToken)
      await this.captcha.verify(
        captchaToken,
        ip,
        needed ? (await this.captchaFactor(ip, username, now)) / 2 : 1,
      );
    return ipFailures > 0 || pairFailures > 0 ? 'suspect' : 'normal';
  }

  /** A wrong password, an unknown user or a wrong code: counts for the address, the account and both. */
  async failed(ip: string, username: string, now = Date.now()): Promise<void> {
    await hit(this.db, this.ipKey(ip), this.realm.perIp, now);
    await hit(this.db, this.accountKey(username), this.realm.perAccount, now);
    await hit(this.db, this.pairKey(ip, username), this.realm.perAccount, now);
  }

  /** The right password: the account's failures (and this address's for it) are forgotten. */
  async succeeded(ip: string, username: string): Promise<void> {
    await clear(this.db, this.accountKey(username));
    await clear(this.db, this.pairKey(ip, username));
  }
}
