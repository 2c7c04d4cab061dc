// Signing secrets of signed links: one per API key, made with the key (`keys create`)
// and shown once, replaced with `keys rotate-secret` (the previous one may stay valid for a grace
// period), gone with the key (a revoked key's links stop working at once). Stored sealed with the
// KEK (kek.ts): AES-256-GCM, a fresh 96-bit IV each time, the key id as associated data so that a
// sealed secret moved to another key's row does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../store/index.ts';
import { kekId } from './kek.ts';

export const SECRET_PREFIX = 'lss_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** base64url(iv 12 bytes | tag 16 bytes | ciphertext). */
export function seal(kek: Buffer, keyId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The secret, or null when it does not open with this KEK and key id. */
export function unseal(kek: Buffer, keyId: string, sealed: string): string | null {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', kek, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(keyId, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** Gives the key a new signing secret (the first one, or a replacement); returns it in clear, once. */
export async function setSigningSecret(q: Queryable, kek: Buffer, keyId: string, graceSeconds = 0): Promise<string> {
  const secret = generateSecret();
  await q.query(
    `INSERT INTO link_secrets (key_id, sealed, kek_id) VALUES ($1, $2, $3)
     ON CONFLICT (key_id) DO UPDATE SET
       previous = CASE WHEN $4::integer > 0 THEN link_secrets.sealed END,
       previous_until = CASE WHEN $4::integer > 0 THEN now() + make_interval(secs => $4::integer) END,
       sealed = EXCLUDED.sealed, kek_id = EXCLUDED.kek_id, rotated_at = now()`,
    [keyId, seal(kek, keyId, secret), kekId(kek), graceSeconds],
  );
  return secret;
}

export class LinkKeyError extends Error {}

/** `keys rotate-secret`: a new secret for an active key; the old one stays valid for graceSeconds. */
export async function rotateSigningSecret(db: Db, kek: Buffer, keyId: string, graceSeconds: number): Promise<string> {
  return db.tx(async (q) => {
    const key = await q.query('SELECT 1 FROM api_keys WHERE id = $1 AND revoked_at IS NULL', [keyId]);
    if (!key.length) throw new LinkKeyError(`no active key ${keyId}`);
    return setSigningSecret(q, kek, keyId, graceSeconds);
  });
}

export interface SigningKey {
  accountId: string;
  keyId: string;
  /** The secrets a link may be signed with now: the current one, and the previous one during its grace. */
  secrets: string[];
}

/** Why a key cannot check links (the link_key_invalid message says which). */
export type KeyProblem = 'unknown' | 'revoked' | 'no-secret' | 'unreadable';

export async function signingKey(q: Queryable, kek: Buffer, keyId: string): Promise<SigningKey | KeyProblem> {
  const rows = await q.query<{ account_id: string; revoked_at: unknown; sealed: string | null; previous: string | null; previous_valid: boolean | null }>(
    `SELECT k.account_id, k.revoked_at, s.sealed, s.previous, s.previous_until > now() AS previous_valid
     FROM api_keys k LEFT JOIN link_secrets s ON s.key_id = k.id WHERE k.id = $1`,
    [keyId],
  );
  const r = rows[0];
  if (!r) return 'unknown';
  if (r.revoked_at) return 'revoked';
  if (!r.sealed) return 'no-secret';
  const current = unseal(kek, keyId, r.sealed);
  if (current === null) return 'unreadable';
  const previous = r.previous && r.previous_valid ? unseal(kek, keyId, r.previous) : null;
  return { accountId: r.account_id, keyId, secrets: previous ? [current, previous] : [current] };
}
