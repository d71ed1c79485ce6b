/**
 * Two-factor codes as an authenticator app computes them (RFC 6238 on node:crypto), independently
 * of the server's code: the journeys enrol managers and sign them in with these.
 */
import { createHmac } from 'node:crypto';

/** RFC 4648 base32 (spaces ignored) → bytes. */
function base32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of text.replace(/\s/g, '').toUpperCase()) {
    value = (value << 5) | alphabet.indexOf(ch);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The 6-digit TOTP code of a 30-second step (HMAC-SHA1), as an authenticator app computes it. */
export function totpAt(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}
export const currentStep = () => Math.floor(Date.now() / 30_000);
