// API key format, hashing and the Bearer header (spec §5; DESIGN §3).
// A key is `sk_` + 32 random bytes in base64url (256 bits). Only its SHA-256 is stored: a fast
// hash is enough because generated keys are random, not passwords, and it lets authentication be
// one indexed lookup.
import { createHash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'sk_';
/** How many leading characters of a key are kept in clear to recognise it in `keys list`. */
export const SHOWN_PREFIX_CHARS = 10;

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyPrefix(key: string): string {
  return key.slice(0, SHOWN_PREFIX_CHARS);
}

/** A random identifier such as `acc_3f9a0c1b2d4e5f60` (hex: safe as a CLI argument). */
export function newId(kind: 'acc' | 'key' | 'res'): string {
  return `${kind}_${randomBytes(8).toString('hex')}`;
}

/** An identifier derived from a key's hash, so that replicas syncing API_KEYS agree on it. */
export function derivedId(kind: 'acc' | 'key', hash: string): string {
  return `${kind}_${createHash('sha256').update(`${kind}:${hash}`).digest('hex').slice(0, 16)}`;
}
