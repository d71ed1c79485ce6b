import { msg } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { HttpError } from '../../lib/errors.ts';
import { passwordLane } from '../../lib/crypto.ts';
import type { Lane } from '../../lib/workGate.ts';
import { ALTCHA_MAX_FACTOR, type CaptchaService } from './captcha.ts';
import {
  clear,
  FAILURE_CAP,
  fullError,
  giveBack,
  hit,
  hitLocked,
  lockKey,
  LOGIN_DELAY_AFTER,
  LOGIN_DELAY_MAX_SECONDS,
  peek,
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

/** An admitted attempt's claim on the limits (`LoginThrottle.admit`). */
export interface LoginClaim {
  /** The work gate's lane for the password check. */
  lane: Lane;
  /**
   * Run as the password check leaves the gate's queue (a customer's address is claimed then, so a
   * burst from it gets at most its limit plus the hashes in flight checked before the captcha).
   */
  beforeCheck?: () => Promise<void>;
  /** A wrong password, an unknown user or a wrong code: the claim stays, as the failure. */
  failed(): Promise<void>;
  /** The right password: the account's failures are forgotten and the address's claim given back. */
  succeeded(): Promise<void>;
  /** Neither (a question, a disabled account, a busy server): the claim is given back. */
  release(): Promise<void>;
}

/**
 * Login throttling that stops guessing without letting anyone lock an account out (issue 17, M1/M2):
 *  - every attempt is counted before its password is checked, and a success gives that count back
 *    (and forgets the account's failures): only failures stay counted, and concurrent attempts
 *    see each other; a customer's address is counted when its password check leaves the hashing
 *    queue (so a carrier-grade NAT's many sign-ins at once do not ask for a captcha, issue 31 §4);
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
   * Before the password is checked, counts the attempt as a failure (a claim, which the outcome
   * keeps or gives back), under row locks, so attempts sent at the same moment see each other and a
   * burst gets no more checks than the policy allows (issue 26). Refuses, counting nothing:
   * this address's delay for this account (429 `login_delay`, Retry-After); a manager's address past
   * its limit (429 `rate_limited`); past the account's (or a customer address's) limit, an attempt
   * without a solved captcha (429 `captcha_required`). A captcha is verified first, at the difficulty
   * the failures so far call for; one sent when none is needed is still checked and spent.
   * The password check runs in the `suspect` lane for an address that has been failing.
   */
  async admit(
    ip: string,
    username: string,
    captchaToken: string | undefined,
    now = Date.now(),
  ): Promise<LoginClaim> {
    const { perIp, perAccount, ipFull } = this.realm;
    if (captchaToken) {
      const factor = await this.captchaFactor(ip, username, now);
      await this.captcha.verify(captchaToken, ip, factor > 1 ? factor / 2 : 1);
    }
    const keys = { pair: this.pairKey(ip, username), account: this.accountKey(username), ip: this.ipKey(ip) };
    // A customer's address may be a whole carrier-grade NAT: claimed here, its sign-ins waiting in the
    // hashing queue would ask its customers for a captcha whenever many sign in at once. It is claimed
    // as its password check leaves that queue instead (`beforeCheck`): a burst of wrong passwords from
    // it gets at most its limit plus the hashes in flight (the gate runs 4) checked before the captcha,
    // and right passwords give their claims back as they go (issue 31 §4). A manager's address is
    // claimed here like the account.
    const claimAddress = ipFull === 'wait';
    const lane = await this.db.transaction(async (tx) => {
      // Always this order (pair, account, address): two attempts never wait on each other crosswise.
      const pair = await lockKey(tx, keys.pair, perAccount, now);
      const account = await lockKey(tx, keys.account, perAccount, now);
      const address = claimAddress ? await lockKey(tx, keys.ip, perIp, now) : null;
      const ipLevel = address ? address.level : await peek(tx, keys.ip, perIp, now);
      if (pair.level >= LOGIN_DELAY_AFTER) {
        const wait = Math.min(2 ** (pair.level - LOGIN_DELAY_AFTER), LOGIN_DELAY_MAX_SECONDS);
        const remaining = (pair.lastAt?.getTime() ?? 0) / 1000 + wait - now / 1000;
        if (remaining > 0) throw tooMany(msg.loginSlowDown(Math.ceil(remaining)), 'login_delay', remaining);
      }
      if (address && address.level >= perIp.max) throw fullError(address, now);
      const needed = (ipFull === 'captcha' && ipLevel >= perIp.max) || account.level >= perAccount.max;
      if (needed && !captchaToken) throw tooMany(msg.loginCaptchaRequired, 'captcha_required', 1);
      for (const key of [pair, account, address]) if (key) await hitLocked(tx, key, now);
      return ipLevel > 0 || pair.level > 0 ? ('suspect' as const) : ('normal' as const);
    });
    let addressClaimed = claimAddress;
    const beforeCheck = async () => {
      if (addressClaimed) return;
      const at = Date.now();
      await this.db.transaction(async (tx) => {
        const address = await lockKey(tx, keys.ip, perIp, at);
        if (address.level >= perIp.max && !captchaToken)
          throw tooMany(msg.loginCaptchaRequired, 'captcha_required', 1);
        await hitLocked(tx, address, at);
      });
      addressClaimed = true;
    };
    return {
      lane,
      beforeCheck,
      failed: async () => {
        // No check ran (nothing to claim before it): counted after the fact.
        if (!addressClaimed) await hit(this.db, keys.ip, perIp);
      },
      succeeded: async () => {
        await clear(this.db, keys.account);
        await clear(this.db, keys.pair);
        if (addressClaimed) await giveBack(this.db, keys.ip, perIp);
      },
      release: async () => {
        await giveBack(this.db, keys.pair, perAccount);
        await giveBack(this.db, keys.account, perAccount);
        if (addressClaimed) await giveBack(this.db, keys.ip, perIp);
      },
    };
  }

  /**
   * One sign-in attempt under the limits: admitted (and counted) first, then `check` runs in its
   * lane (its password hashing, through lib/crypto.ts's gate, claims the address as it starts); an error `isFailure` calls a failure keeps the count, a success forgets the account's
   * failures, anything else (a question, a disabled account, a busy server) gives the count back.
   */
  async attempt<T>(
    ip: string,
    username: string,
    captchaToken: string | undefined,
    check: () => Promise<T>,
    isFailure: (error: unknown) => boolean,
  ): Promise<T> {
    const claim = await this.admit(ip, username, captchaToken);
    let result: T;
    try {
      result = await passwordLane(claim.lane, check, claim.beforeCheck);
    } catch (error) {
      await (isFailure(error) ? claim.failed() : claim.release());
      throw error;
    }
    await claim.succeeded();
    return result;
  }

  /**
   * A wrong password or code found outside a sign-in (the console's re-confirmation): counts for the
   * address, the account and both, after the fact.
   */
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
