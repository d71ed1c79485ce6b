import type { Config } from '../../config.ts';
import type { RateLimitPolicy } from '../../lib/rateLimitPolicy.ts';
import type { Db } from '../../db/client.ts';
import type { Keys } from '../../lib/crypto.ts';
import type { Mailer } from '../site/mailer.ts';
import { AccountService } from './account.ts';
import { createCaptchaService, type CaptchaService } from './captcha.ts';
import { LoginThrottle } from './loginThrottle.ts';
import { DEFAULT_RATE_LIMITS } from './rateLimit.ts';
import { SessionService } from './sessions.ts';

/**
 * The identity domain's entry point: sessions, the captcha, the rate limits in force, both login
 * throttles and customers' accounts. The consoles (customers, managers), 2FA and e-mail tokens are
 * built per use by their routes from the context.
 */
export interface IdentityDeps {
  config: Pick<Config, 'captcha' | 'rateLimits' | 'companyName' | 'publicUrl'>;
  db: Db;
  keys: Keys;
  mailer: Mailer;
  /** Tests: a captcha that always passes or always fails. */
  captcha?: CaptchaService;
  /** Tests tighten or loosen limits over the environment's. */
  rateLimits?: Partial<RateLimitPolicy>;
}

export interface Identity {
  sessions: SessionService;
  captcha: CaptchaService;
  rateLimits: RateLimitPolicy;
  /** Customers' login limits. */
  loginThrottle: LoginThrottle;
  /** Managers' login limits. */
  managerLoginThrottle: LoginThrottle;
  account: AccountService;
}

export function createIdentity(deps: IdentityDeps): Identity {
  const { config, db, keys, mailer } = deps;
  const sessions = new SessionService(db, keys.jwt);
  const captcha = deps.captcha ?? createCaptchaService(db, config.captcha, keys.captcha);
  const rateLimits = { ...DEFAULT_RATE_LIMITS, ...config.rateLimits, ...deps.rateLimits };
  return {
    sessions,
    captcha,
    rateLimits,
    loginThrottle: new LoginThrottle(db, captcha, {
      prefix: 'login',
      perIp: rateLimits.loginFailuresPerIp,
      perAccount: rateLimits.loginFailuresPerAccount,
      ipFull: 'captcha',
    }),
    managerLoginThrottle: new LoginThrottle(db, captcha, {
      prefix: 'admin-login',
      perIp: rateLimits.loginPerIp,
      perAccount: rateLimits.loginPerUsername,
      ipFull: 'wait',
    }),
    account: new AccountService({
      db,
      sessions,
      mailer,
      companyName: config.companyName,
      publicUrl: config.publicUrl,
      rateLimits,
    }),
  };
}
