import {
  createCipheriv,
  createDecipheriv,
  createHash,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  scrypt as scryptCb,
  timingSafeEqual,
} from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { WorkGate, type Lane } from './workGate.ts';

const scryptRaw = promisify(scryptCb) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/**
 * Every password hash goes through one gate (issue 17, M2): as many at once as there are cores (at
 * most 4, libuv's default thread pool), 200 waiting per lane. Login routes run a try from an address
 * that has been failing in the `suspect` lane (passwordLane), so guesses queue behind real logins.
 */
const scryptGate = new WorkGate(Math.max(1, Math.min(4, availableParallelism())), 200);
const passwordWork = new AsyncLocalStorage<{ lane: Lane; beforeCheck?: () => Promise<void> }>();

/**
 * Runs `work` with its password hashing in `lane`. `beforeCheck` runs once, when the first hash
 * leaves the gate's queue, just before it starts (the login throttle claims a customer's address
 * there, issue 31 §4); if it throws, no hash runs and `work` fails with its error.
 */
export const passwordLane = <T>(
  lane: Lane,
  work: () => Promise<T>,
  beforeCheck?: () => Promise<void>,
): Promise<T> => passwordWork.run({ lane, beforeCheck }, work);

const scrypt: typeof scryptRaw = (password, salt, keylen, options) => {
  const store = passwordWork.getStore();
  return scryptGate.run(async () => {
    const before = store?.beforeCheck;
    if (store) store.beforeCheck = undefined;
    await before?.();
    return scryptRaw(password, salt, keylen, options);
  }, store?.lane ?? 'normal');
};

/** Keys derived from SECRET_KEY, one per purpose, so no key is used for two things. */
/** One key per purpose, each derived from SECRET_KEY with its own HKDF label. */
export interface Keys {
  jwt: Uint8Array;
  encryption: Buffer;
  captcha: string;
  /** HMAC key of the servers' mesh-link preshared keys (never the at-rest encryption key). */
  mesh: Buffer;
}

export function deriveKeys(secret: string): Keys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'vpn-platform', info, 32));
  return {
    jwt: derive('jwt'),
    encryption: derive('at-rest'),
    captcha: derive('captcha').toString('hex'),
    mesh: derive('mesh-psk'),
  };
}

// scrypt: N=2^15, r=8, p=3 → 32 MiB of memory per hash, one of OWASP's equivalent minimum
// settings (N=2^17 p=1 would need 128 MiB per login). Stored hashes name their own parameters, so
// older ones still verify and are upgraded at the next successful login (needsRehash).
const PRODUCTION_SCRYPT = { N: 32768, r: 8, p: 3, maxmem: 64 * 1024 * 1024 };
let SCRYPT = PRODUCTION_SCRYPT;
/** getDummyHash's hash, made at the current parameters. */
let dummyHash: Promise<string> | undefined;

/**
 * Tests only (server/test/setup.ts, before every server test file): a cheaper scrypt, so the
 * suites' hundreds of logins cost milliseconds instead of 0.3 s of CPU each. `null` restores the
 * production parameters, which crypto.test.ts checks. The product never calls it: nothing in the
 * configuration can lower the cost of a password hash.
 */
export function setPasswordCostForTests(cost: { N: number; r: number; p: number } | null): void {
  SCRYPT = cost ? { ...cost, maxmem: PRODUCTION_SCRYPT.maxmem } : PRODUCTION_SCRYPT;
  dummyHash = undefined;
}

/** Whether a stored hash was made with weaker parameters than today's (rehash it after a good login). */
export function needsRehash(stored: string): boolean {
  const [alg, n, r, p] = stored.split('$');
  return alg !== 'scrypt' || Number(n) < SCRYPT.N || Number(r) < SCRYPT.r || Number(p) < SCRYPT.p;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize('NFKC'), salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** A hash that costs the same as a real one: used when the user does not exist (no timing oracle). */
export const getDummyHash = () => (dummyHash ??= hashPassword(randomBytes(16).toString('hex')));

export const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** AES-256-GCM: "v1:" + base64(iv | tag | ciphertext). */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return 'v1:' + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function decrypt(key: Buffer, sealed: string): string {
  if (!sealed.startsWith('v1:')) throw new Error('unknown ciphertext version');
  const raw = Buffer.from(sealed.slice(3), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/** DER prefixes of an X25519 key: the raw 32 bytes follow them (RFC 8410). */
const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/**
 * A WireGuard (X25519) key pair as the base64 strings wg uses. Generated straight to DER and cut
 * to the raw 32 bytes. Not through KeyObject's JWK export: on Node 20.20 (OpenSSL 3.0.19) a loop of
 * `generateKeyPairSync('x25519')` and `.export({ format: 'jwk' })` parks the main thread on a futex
 * for good after one or two thousand keys, which froze the whole panel (docs/decisions.md).
 */
export function generateWireguardKeyPair(): { privateKey: string; publicKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('x25519', {
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  const raw = (der: Buffer, prefix: Buffer) => {
    if (der.length !== prefix.length + 32 || !der.subarray(0, prefix.length).equals(prefix))
      throw new Error('x25519 export failed');
    return der.subarray(prefix.length).toString('base64');
  };
  return { privateKey: raw(privateKey, X25519_PKCS8_PREFIX), publicKey: raw(publicKey, X25519_SPKI_PREFIX) };
}

export const generatePresharedKey = () => randomBytes(32).toString('base64');
