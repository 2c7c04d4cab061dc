// The key-encryption key (KEK) that seals signing secrets at rest (secrets.ts).
// A signed link is checked by recomputing its HMAC, so the server must be able to read each key's
// signing secret: it cannot keep only a hash, as it does for API keys. The secrets are therefore
// stored encrypted (AES-256-GCM) under this KEK, which is kept apart from the store: a copy of the
// database alone reveals no secret.
// - LINK_SIGNING_KEK (32 bytes, hex or base64): the KEK, from the environment or a secret manager.
//   Needed with DATABASE_URL: every replica must read the same secrets.
// - Otherwise, with the embedded store: DATA_DIR/link-signing.kek, created on first use with 32
//   random bytes, mode 0600, beside (not inside) the database directory. Back it up with the data:
//   without it the secrets cannot be read, and every key needs `keys rotate-secret`.
// - With DATABASE_URL and no LINK_SIGNING_KEK, signed links are off (keys get no signing secret).
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

export const KEK_FILE = 'link-signing.kek';

export type KekConfig = Pick<Config, 'linkSigningKek' | 'databaseUrl' | 'dataDir'>;

/** The KEK to use, creating the DATA_DIR file when the embedded store needs one; null = signed links off. */
export function resolveKek(config: KekConfig): Buffer | null {
  if (config.linkSigningKek) return config.linkSigningKek;
  if (config.databaseUrl) return null;
  const file = path.join(config.dataDir, KEK_FILE);
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} must hold 64 hex characters (32 bytes); it was changed or damaged`);
  return Buffer.from(hex, 'hex');
}

/** Names a KEK without revealing it (stored beside each sealed secret). */
export function kekId(kek: Buffer): string {
  return createHash('sha256').update('link-signing-kek:').update(kek).digest('hex').slice(0, 16);
}
