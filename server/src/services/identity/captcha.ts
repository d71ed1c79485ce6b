import { createChallenge, extractParams, verifySolution } from 'altcha-lib';
import type { Challenge } from 'altcha-lib/types';
import { lt, sql } from 'drizzle-orm';
import { msg } from '@vpn/contracts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { captchaSpent } from '../../db/schema.ts';
import { badRequest, HttpError } from '../../lib/errors.ts';

/** Proof-of-work difficulty: a browser solves it in well under a second. */
export const ALTCHA_MAX_NUMBER = 50_000;
/**
 * The hardest challenge a login under attack asks for: 16 × 50,000. Measured here (one Node thread,
 * altcha-lib's solver, a loaded 2-core machine): 0.36 s at 1×, 3.3 s at 8×, 32 s at 64× — too long
 * for a phone's manager to get in within a minute, hence 16× (≈ 7 s there; the browser widget's
 * workers are faster). A guessing script pays it for every guess.
 */
export const ALTCHA_MAX_FACTOR = 16;
const ALTCHA_TTL_MS = 10 * 60 * 1000;

export interface CaptchaService {
  /**
   * ALTCHA challenge for the widget (altcha provider only), `factor` (1–64) times the base work;
   * the factor travels signed inside the challenge's salt.
   */
  challenge(factor?: number): Promise<Challenge>;
  /**
   * Throws a 400 with a Spanish message unless the token proves a human (once). With `minFactor`,
   * an ALTCHA solution of an easier challenge is refused with 429 `captcha_required` (ask again).
   */
  verify(token: string, ip: string, minFactor?: number): Promise<void>;
}

export function createCaptchaService(
  db: Db,
  config: Config['captcha'],
  hmacKey: string,
  fetchImpl: typeof fetch = fetch,
): CaptchaService {
  if (config.provider === 'turnstile') {
    return {
      challenge: () => Promise.reject(badRequest(msg.invalidRequest)),
      async verify(token, ip) {
        const body = new URLSearchParams({ secret: config.secretKey, response: token, remoteip: ip });
        let ok = false;
        try {
          const res = await fetchImpl(config.verifyUrl, {
            method: 'POST',
            body,
            signal: AbortSignal.timeout(10_000),
          });
          const data = (await res.json()) as { success?: unknown };
          ok = res.ok && data.success === true;
        } catch {
          ok = false;
        }
        if (!ok) throw badRequest(msg.captchaInvalid);
      },
    };
  }
  return {
    challenge: (factor = 1) => {
      const f = Math.min(ALTCHA_MAX_FACTOR, Math.max(1, Math.floor(factor)));
      return createChallenge({
        hmacKey,
        maxNumber: ALTCHA_MAX_NUMBER * f,
        expires: new Date(Date.now() + ALTCHA_TTL_MS),
        params: { factor: String(f) },
      });
    },
    async verify(token, _ip, minFactor = 1) {
      let payload: { signature?: unknown; salt?: unknown };
      try {
        payload = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as typeof payload;
      } catch {
        throw badRequest(msg.captchaInvalid);
      }
      const valid = await verifySolution(token, hmacKey, true).catch(() => false);
      if (!valid || typeof payload.signature !== 'string') throw badRequest(msg.captchaInvalid);
      // Failures rose since the challenge was fetched: the widget asks for a harder one.
      if ((Number(extractParams(token).factor) || 1) < minFactor)
        throw new HttpError(429, msg.loginCaptchaHarder, 'captcha_required', undefined, {
          'retry-after': '1',
        });
      const expires = Number(extractParams(token).expires) * 1000 || Date.now() + ALTCHA_TTL_MS;
      // A solution is good once: the primary key refuses a second use, even from another instance.
      const inserted = await db
        .insert(captchaSpent)
        .values({ signature: payload.signature, expiresAt: new Date(expires) })
        .onConflictDoNothing()
        .returning({ signature: captchaSpent.signature });
      if (inserted.length === 0) throw badRequest(msg.captchaInvalid);
      await db.delete(captchaSpent).where(lt(captchaSpent.expiresAt, sql`now()`));
    },
  };
}
