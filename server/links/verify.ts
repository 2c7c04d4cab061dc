// Checking a signed link: which key signed it, whether the signature matches the
// canonical query under that key's secret (constant time), and whether it has expired; then its
// options. Errors (server/errors.ts): 400 bad_request for a malformed link parameter, 403
// link_key_invalid, 403 link_signature_invalid, 410 link_expired. The signature is checked before
// the expiry, so that a changed `expires` reads as a bad signature, never as "expired".
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../store/index.ts';
import type { Account } from '../accounts/index.ts';
import { badRequest, ServiceError } from '../errors.ts';
import { fromQuery, type Pair, stringToSign } from './canonical.ts';
import { signingKey, type KeyProblem } from './secrets.ts';

/** Lower-case hex HMAC-SHA256 of the canonical query under the secret (its UTF-8 text). */
export function signPairs(secret: string, pairs: Pair[], path?: string): string {
  return createHmac('sha256', secret).update(stringToSign(pairs, path), 'utf8').digest('hex');
}

/** Constant-time comparison of the given signature with each secret's (lengths are not secret). */
export function signatureMatches(secrets: string[], pairs: Pair[], given: string, path?: string): boolean {
  const got = Buffer.from(given.toLowerCase(), 'utf8');
  let ok = false;
  for (const s of secrets) {
    const want = Buffer.from(signPairs(s, pairs, path), 'utf8');
    ok = (want.length === got.length && timingSafeEqual(want, got)) || ok; // every secret is tried
  }
  return ok;
}

const KEY_MESSAGES: Record<KeyProblem | 'disabled', string> = {
  unknown: 'the key that signed this link does not exist',
  revoked: 'the key that signed this link has been revoked',
  'no-secret': 'the key that signed this link has no signing secret (npm run keys -- rotate-secret <key_id> makes one)',
  unreadable: "the signing secret of this key cannot be read with this server's key-encryption key (LINK_SIGNING_KEK changed?); rotate it",
  disabled: 'signed links are not configured on this server (LINK_SIGNING_KEK is not set)',
};

export interface VerifiedLink {
  account: Account;
  /** Unix seconds. */
  expires: number;
  /** The options, as a JSON body would give them (validated later by the capture service). */
  options: Record<string, unknown>;
}

export interface VerifyDeps {
  db: Queryable | undefined;
  kek: Buffer | null;
  /** Unix seconds now. */
  now?: () => number;
}

function single(pairs: Pair[], name: string): string {
  const found = pairs.filter(([n]) => n === name);
  if (found.length !== 1)
    throw badRequest(
      found.length
        ? `${name} is given more than once in the link`
        : `${name} is required in a signed link (keyId, expires and signature; docs/signed-links.md)`,
    );
  return found[0]![1];
}

/** Checks a link to `path` (GET /v1/screenshot by default; GET /v1/compare signs its own path). */
export async function verifyLink(pairs: Pair[], deps: VerifyDeps, path?: string): Promise<VerifiedLink> {
  const signature = single(pairs, 'signature');
  const keyId = single(pairs, 'keyId');
  const expiresText = single(pairs, 'expires');
  if (!/^\d{1,12}$/.test(expiresText)) throw badRequest('expires must be a Unix time in whole seconds');
  if (!/^key_[0-9a-f]{16}$/.test(keyId))
    throw new ServiceError('link_key_invalid', 'keyId must be the id of an API key (key_ and 16 hex digits, as `keys list` shows)');
  if (!deps.db || !deps.kek) throw new ServiceError('link_key_invalid', KEY_MESSAGES.disabled);
  const key = await signingKey(deps.db, deps.kek, keyId);
  if (typeof key === 'string') throw new ServiceError('link_key_invalid', KEY_MESSAGES[key]);
  if (!/^[0-9a-fA-F]{64}$/.test(signature) || !signatureMatches(key.secrets, pairs, signature, path)) {
    throw new ServiceError(
      'link_signature_invalid',
      'the signature does not match the link: a parameter was changed, added or removed, or another secret signed it',
    );
  }
  const expires = Number(expiresText);
  const now = (deps.now ?? (() => Math.floor(Date.now() / 1000)))();
  if (expires <= now) throw new ServiceError('link_expired', 'this signed link has expired');
  return { account: { id: key.accountId, keyId: key.keyId }, expires, options: fromQuery(pairs) };
}
