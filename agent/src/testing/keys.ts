/** Key material for tests and the benchmark, made with node:crypto like the control plane does. */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';

export interface KeyPair {
  privateKey: string;
  publicKey: string;
}

/** A fresh X25519 key pair, base64 as in a `.conf`. */
export function genKeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  const priv = privateKey.export({ format: 'der', type: 'pkcs8' });
  const pub = publicKey.export({ format: 'der', type: 'spki' });
  return {
    privateKey: priv.subarray(priv.length - 32).toString('base64'),
    publicKey: pub.subarray(pub.length - 32).toString('base64'),
  };
}

/** The public key of a base64 private key. */
export function publicKeyOf(privateKey: string): string {
  const prefix = Buffer.from('302e020100300506032b656e04220420', 'hex');
  const key = createPrivateKey({
    key: Buffer.concat([prefix, Buffer.from(privateKey, 'base64')]),
    format: 'der',
    type: 'pkcs8',
  });
  const pub = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return pub.subarray(pub.length - 32).toString('base64');
}

/** A random 32-byte key (preshared keys; also fine as a public key where no handshake is needed). */
export function randomKey(): string {
  return randomBytes(32).toString('base64');
}
