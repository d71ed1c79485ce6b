/**
 * WireGuard keys travel as base64 in the protocol and in `.conf` files, but as lowercase hex on the
 * UAPI socket. These helpers convert between the two and never put a key into an error message.
 */

const BASE64_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/** The all-zero key: what UAPI reports as the preshared key of a peer that has none. */
export const ZERO_KEY_HEX = '0'.repeat(64);

export function isBase64Key(key: string): boolean {
  return BASE64_KEY.test(key);
}

/** Converts a base64 WireGuard key to the 64-character hex form UAPI expects. */
export function keyToHex(base64: string): string {
  if (!BASE64_KEY.test(base64)) throw new Error('clave WireGuard no válida (se esperaba base64 de 32 bytes)');
  return Buffer.from(base64, 'base64').toString('hex');
}

/**
 * Converts a UAPI hex key back to base64. Hot path (twice per peer in a `get` of 50,000 peers), so
 * no regex: Buffer's hex decoder stops at the first bad digit, which the length check catches.
 */
export function keyFromHex(hex: string): string {
  const buf = hex.length === 64 ? Buffer.from(hex, 'hex') : null;
  if (!buf || buf.length !== 32) throw new Error('clave WireGuard no válida (se esperaban 64 dígitos hex)');
  return buf.toString('base64');
}
