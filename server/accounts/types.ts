// What the HTTP and MCP layers see of accounts (the `Accounts` interface) and the values it deals
// in. A file of its own so that the ledger, which implements it, and index.ts, which opens the
// ledger, both import it without importing each other.
export interface Account {
  id: string;
  /** The key that authenticated (an account may have several keys). */
  keyId?: string;
}

export interface Reservation {
  id: string;
  accountId: string;
}

export interface ReserveOptions {
  /**
   * The reservation's id, for work that may run more than once (a batch item after a crash): an
   * id is committed at most once ever, so a second run's commit charges 0. Default: a fresh id.
   */
  id?: string;
}

/** What a commit did: 1 when it spent the held credit, 0 when the reservation was already gone (committed, released, or swept after its lease ran out). */
export interface Committed {
  charged: 0 | 1;
  remaining: number;
}

export interface Accounts {
  /** The account of a bearer key, or null for an unknown or revoked key. */
  authenticate(key: string): Promise<Account | null>;
  /** Throws ServiceError('rate_limited') with Retry-After when over the per-account rate. */
  checkRateLimit(account: Account): Promise<void>;
  /** Holds one credit; throws ServiceError('insufficient_credits') when none are left. */
  reserve(account: Account, opts?: ReserveOptions): Promise<Reservation>;
  /** Spends the held credit (at most once per reservation); says what it charged and the spendable balance afterwards. */
  commit(r: Reservation): Promise<Committed>;
  /** Gives the held credit back (any failure); a no-op after commit or a second release. */
  release(r: Reservation): Promise<void>;
  /** Spendable credits: the balance minus credits held for renders in flight. */
  balance(account: Account): Promise<number>;
  /**
   * True when this process last saw the account with credits to spare (at least two spendable,
   * less those it has already let go ahead this way): its reservation may then be made while the
   * render runs. A guess from memory, never a bill: the reservation still decides, and a render it
   * refuses is cut short and answered 402. Each true takes one of those credits from the guess, so
   * that parallel requests cannot all go ahead on one balance.
   */
  reserveAlongside(account: Account): boolean;
  /** Stops the background timers and closes the store (after in-flight requests are done). */
  close(): Promise<void>;
}
