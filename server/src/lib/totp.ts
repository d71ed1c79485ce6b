import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP), written on node:crypto so no
 * dependency sits in the login path. Managers' authenticator apps use the defaults: HMAC-SHA1,
 * 30-second steps, 6 digits.
 */
export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (what `otpauth://` URIs carry). */
export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (case, spaces and padding ignored, as authenticator apps display it). */
export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const index = BASE32.indexOf(ch);
    if (index < 0) throw new Error('invalid base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP: HMAC of the 8-byte big-endian counter, dynamically truncated. */
export function hotp(key: Buffer, counter: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1') {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(binary).padStart(digits, '0');
}

/** The time step a moment falls in. */
export const totpStep = (unixMs: number, stepSeconds = TOTP_STEP_SECONDS) =>
  Math.floor(unixMs / 1000 / stepSeconds);

/** The code of the step a moment falls in. */
export function totp(
  key: Buffer,
  unixMs: number,
  opts: { digits?: number; algorithm?: TotpAlgorithm; stepSeconds?: number } = {},
): string {
  return hotp(key, totpStep(unixMs, opts.stepSeconds), opts.digits, opts.algorithm);
}

/**
 * The step a 6-digit code belongs to, accepting the previous, current and next step (±30 s of clock
 * drift between the phone and the server), or null. Callers reject a step at or before the last
 * one accepted, so an observed code cannot be replayed.
 */
export function matchTotp(key: Buffer, code: string, unixMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(unixMs);
  for (const step of [now - 1, now, now + 1]) {
    if (timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code))) return step;
  }
  return null;
}

/** A new shared secret: 20 random bytes (160 bits, RFC 4226's recommended length), base32. */
export const newTotpSecret = () => base32Encode(randomBytes(20));

/** The `otpauth://totp/…` URI authenticator apps scan (Key Uri Format). */
export function otpauthUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret,
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
