// Operator actions on keys and balances (the CLI, API_KEYS at start-up, the development key).
// A key belongs to an account; the account holds the credits. `keys create` makes a new account
// with the free allowance (spec §1, §8: 100 for new users), or adds a key to an existing account
// (rotation) without granting anything. Revoking a key never touches the account's credits.
import { lockFor, type Db, type Queryable } from '../store/index.ts';
import { derivedId, generateKey, hashKey, keyPrefix, newId } from './keys.ts';

export interface CreatedKey {
  /** The plaintext key: shown once, never stored. */
  key: string;
  keyId: string;
  accountId: string;
  credits: number;
}

export interface KeyRow {
  keyId: string;
  prefix: string;
  label: string | null;
  source: string;
  accountId: string;
  credits: number;
  held: number;
  createdAt: string;
  revokedAt: string | null;
}

export class AdminError extends Error {}

async function openAccount(q: Queryable, id: string, label: string | null, credits: number, kind: string): Promise<boolean> {
  const made = await q.query('INSERT INTO accounts (id, label, credits) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id', [id, label, credits]);
  if (made.length && credits !== 0) {
    await q.query('INSERT INTO ledger (account_id, delta, kind) VALUES ($1, $2, $3)', [id, credits, kind]);
  }
  return made.length > 0;
}

export async function createKey(db: Db, opts: { label?: string; accountId?: string; credits: number; source?: 'cli' | 'dev' }): Promise<CreatedKey> {
  const key = generateKey();
  return db.tx(async (q) => {
    let accountId = opts.accountId;
    if (accountId) {
      const found = await q.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
      if (!found.length) throw new AdminError(`no account ${accountId}`);
    } else {
      accountId = newId('acc');
      await openAccount(q, accountId, opts.label ?? null, opts.credits, 'free_allowance');
    }
    const keyId = newId('key');
    await q.query('INSERT INTO api_keys (id, account_id, hash, prefix, label, source) VALUES ($1, $2, $3, $4, $5, $6)', [
      keyId,
      accountId,
      hashKey(key),
      keyPrefix(key),
      opts.label ?? null,
      opts.source ?? 'cli',
    ]);
    const bal = await q.query<{ available: unknown }>('SELECT credits - held AS available FROM accounts WHERE id = $1', [accountId]);
    return { key, keyId, accountId, credits: Number(bal[0]!.available) };
  });
}

export async function listKeys(db: Db, opts: { includeRevoked?: boolean } = {}): Promise<KeyRow[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT k.id, k.prefix, k.label, k.source, k.account_id, a.credits, a.held, k.created_at, k.revoked_at
     FROM api_keys k JOIN accounts a ON a.id = k.account_id
     WHERE $1::boolean OR k.revoked_at IS NULL
     ORDER BY k.created_at, k.id`,
    [opts.includeRevoked === true],
  );
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v == null ? null : String(v));
  return rows.map((r) => ({
    keyId: String(r.id),
    prefix: String(r.prefix),
    label: (r.label as string | null) ?? null,
    source: String(r.source),
    accountId: String(r.account_id),
    credits: Number(r.credits),
    held: Number(r.held),
    createdAt: iso(r.created_at)!,
    revokedAt: iso(r.revoked_at),
  }));
}

/** Revokes a key by its id (key_...). Returns false when it does not exist or is already revoked. */
export async function revokeKey(db: Db, keyId: string): Promise<boolean> {
  const rows = await db.query("UPDATE api_keys SET revoked_at = now(), revoked_by = 'cli' WHERE id = $1 AND revoked_at IS NULL RETURNING id", [keyId]);
  return rows.length > 0;
}

/**
 * Adds (or with a negative amount, removes) credits of an account, named by its id or by the id
 * of one of its keys. Never takes the balance below the credits on hold. Returns the spendable
 * balance afterwards.
 */
export async function grant(db: Db, accountOrKeyId: string, amount: number, note?: string): Promise<{ accountId: string; credits: number }> {
  if (!Number.isSafeInteger(amount) || amount === 0) throw new AdminError('the amount must be a non-zero integer');
  return db.tx(async (q) => {
    const acc = await q.query<{ id: string }>('SELECT id FROM accounts WHERE id = $1 UNION SELECT account_id FROM api_keys WHERE id = $1', [accountOrKeyId]);
    if (!acc.length) throw new AdminError(`no account or key ${accountOrKeyId}`);
    const accountId = acc[0]!.id;
    const upd = await q.query<{ available: unknown }>(
      'UPDATE accounts SET credits = credits + $2 WHERE id = $1 AND credits + $2 >= held RETURNING credits - held AS available',
      [accountId, amount],
    );
    if (!upd.length) throw new AdminError(`account ${accountId} has fewer than ${-amount} spendable credits`);
    await q.query('INSERT INTO ledger (account_id, delta, kind, note) VALUES ($1, $2, $3, $4)', [accountId, amount, 'grant', note ?? null]);
    return { accountId, credits: Number(upd[0]!.available) };
  });
}

/**
 * Makes the keys of API_KEYS valid: each gets an account with the free allowance the first time it
 * is seen (not again on restart). Ids are derived from the key's hash, so replicas starting
 * together agree. Keys that came from API_KEYS and are no longer listed are revoked, and come
 * back if listed again; a key an operator revoked with the CLI stays revoked.
 */
export async function syncEnvKeys(db: Db, keys: string[], freeCredits: number): Promise<void> {
  const hashes = [...new Set(keys.map(hashKey))];
  await db.tx(async (q) => {
    // Serialise concurrent start-ups of replicas (one lock for this whole sync).
    await lockFor(q, 'env-keys');
    for (const [i, hash] of hashes.entries()) {
      if ((await q.query('SELECT 1 FROM api_keys WHERE hash = $1', [hash])).length) continue;
      const accountId = derivedId('acc', hash);
      await openAccount(q, accountId, 'API_KEYS', freeCredits, 'free_allowance');
      const key = keys.find((k) => hashKey(k) === hash)!;
      await q.query("INSERT INTO api_keys (id, account_id, hash, prefix, label, source) VALUES ($1, $2, $3, $4, $5, 'env')", [
        derivedId('key', hash),
        accountId,
        hash,
        keyPrefix(key),
        `API_KEYS #${i + 1}`,
      ]);
    }
    await q.query("UPDATE api_keys SET revoked_at = NULL, revoked_by = NULL WHERE hash = ANY($1::text[]) AND revoked_by = 'env'", [hashes]);
    await q.query("UPDATE api_keys SET revoked_at = now(), revoked_by = 'env' WHERE source = 'env' AND revoked_at IS NULL AND hash <> ALL($1::text[])", [
      hashes,
    ]);
  });
}

export async function activeKeyCount(db: Db): Promise<number> {
  const rows = await db.query<{ n: unknown }>('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL');
  return Number(rows[0]!.n);
}
