// Accounts: API keys, the credits ledger and rate limits (spec §1 billing, §5; DESIGN §3).
// PLACEHOLDER in memory: keys from API_KEYS (each with the free allowance). The accounts issue
// replaces this with the embedded store / PostgreSQL behind the same interface.
import { ServiceError } from '../errors.ts';

export interface Account {
  id: string;
}

export interface Reservation {
  id: string;
  accountId: string;
}

export interface Accounts {
  /** The account of a bearer key, or null for an unknown key. */
  authenticate(key: string): Promise<Account | null>;
  /** Throws ServiceError('rate_limited') with Retry-After when over the per-key rate. */
  checkRateLimit(account: Account): Promise<void>;
  /** Holds one credit; throws ServiceError('insufficient_credits') when none are left. */
  reserve(account: Account): Promise<Reservation>;
  /** Spends the held credit; returns the balance afterwards. */
  commit(r: Reservation): Promise<number>;
  /** Gives the held credit back (any failure). */
  release(r: Reservation): Promise<void>;
  balance(account: Account): Promise<number>;
  close(): Promise<void>;
}

export function memoryAccounts(keys: string[], freeCredits: number): Accounts {
  const balances = new Map<string, number>(keys.map((k) => [k, freeCredits]));
  const held = new Map<string, string>();
  let seq = 0;
  return {
    async authenticate(key) {
      return balances.has(key) ? { id: key } : null;
    },
    async checkRateLimit() {},
    async reserve(a) {
      const b = balances.get(a.id) ?? 0;
      if (b <= 0) throw new ServiceError('insufficient_credits', 'this API key has no credits left');
      balances.set(a.id, b - 1);
      const id = String(++seq);
      held.set(id, a.id);
      return { id, accountId: a.id };
    },
    async commit(r) {
      held.delete(r.id);
      return balances.get(r.accountId) ?? 0;
    },
    async release(r) {
      if (held.delete(r.id)) balances.set(r.accountId, (balances.get(r.accountId) ?? 0) + 1);
    },
    async balance(a) {
      return balances.get(a.id) ?? 0;
    },
    async close() {},
  };
}
