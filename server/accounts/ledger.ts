// The request path of billing (spec §1 billing, §8 cost; DESIGN §2, §3): authenticate a key,
// apply the per-account rate limit, and reserve / commit / release one credit per capture.
//
// Each operation is ONE SQL statement (data-modifying CTEs), hence atomic on both stores and
// safe under any number of concurrent requests and replicas:
//   reserve: held + 1 only WHERE credits - held > 0, and insert the reservation row
//   commit:  delete the reservation row; if it was there, credits - 1, held - 1, ledger row
//   release: delete the reservation row; if it was there, held - 1
// Deleting the reservation row is the single point that decides its fate, so a reservation is
// committed or released exactly once. Work that claims something of its own in the same statement
// (a batch item: server/batches/sql.ts) takes its credit with reserveOnceCtes() below, the same
// reservation written as common table expressions. A process that dies between reserve and commit leaves a
// row that stops being renewed; the sweep releases it when it expires (never commits it).
import { ServiceError } from '../errors.ts';
import type { Db, Queryable } from '../store/index.ts';
import { hashKey, newId } from './keys.ts';
import type { Account, Accounts, Committed, Reservation, ReserveOptions } from './types.ts';

export interface LedgerOptions {
  /** Requests per account per minute; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /**
   * How long a reservation stays valid without renewal. The owning process renews its live
   * reservations every lease/3, so this bounds how long a crashed process's credits stay held,
   * not how long a render (plus its queue wait) may take.
   */
  leaseSeconds?: number;
  /** How often expired reservations and old rate windows are swept (0: only when sweep() is called). */
  sweepIntervalMs?: number;
  /** Wall clock for rate windows (tests move it). */
  now?: () => number;
  /** Reports background failures (renewal, sweep); the ledger itself never logs. */
  onError?: (err: unknown, during: string) => void;
}

export const DEFAULT_LEASE_SECONDS = 60;
/** Accounts whose last balance reserveAlongside remembers (forgotten all at once past it: a guess may always be lost). */
const SEEN_ACCOUNTS = 10_000;
const WINDOW_MS = 60_000;

/**
 * A reservation under a given id, as common table expressions to put after a caller's own
 * (`source`: a CTE with one row of account_id and key_id; `id`, `lease`: the statement's
 * parameters, e.g. '$3', '$4'), for work that may run more than once under the same id:
 *   spent     the id was committed already (an earlier run was billed): nothing is reserved
 *   kept      a reservation of this id left by a run that died: held on, its lease renewed
 *   reserved  otherwise one credit held (credits - held > 0) and the reservation row written
 * The statement then selects `EXISTS (SELECT 1 FROM spent)` and `EXISTS (SELECT 1 FROM kept) OR
 * EXISTS (SELECT 1 FROM reserved)`. A leftover row that the sweep deletes meanwhile is neither
 * kept nor reserved (the statement saw it): no credit is held then, and the caller reserves as
 * usual.
 */
export function reserveOnceCtes(source: string, id: string, lease: string): string {
  return `spent AS (SELECT 1 FROM ledger WHERE reservation_id = ${id}),
     kept AS (
       UPDATE reservations r SET expires_at = now() + make_interval(secs => ${lease})
       FROM ${source} WHERE r.id = ${id} AND NOT EXISTS (SELECT 1 FROM spent) RETURNING r.id
     ),
     held AS (
       UPDATE accounts a SET held = held + 1 FROM ${source} s
       WHERE a.id = s.account_id AND a.credits - a.held > 0
         AND NOT EXISTS (SELECT 1 FROM spent) AND NOT EXISTS (SELECT 1 FROM reservations WHERE id = ${id})
       RETURNING a.id
     ),
     reserved AS (
       INSERT INTO reservations (id, account_id, key_id, expires_at)
       SELECT ${id}, held.id, s.key_id, now() + make_interval(secs => ${lease}) FROM held, ${source} s
       RETURNING id
     )`;
}

export class SqlLedger implements Accounts {
  readonly db: Db;
  private readonly limit: number;
  private readonly lease: number;
  private readonly now: () => number;
  private readonly onError: (err: unknown, during: string) => void;
  /** Reservations this process holds and keeps renewing. */
  private readonly live = new Set<string>();
  /** The spendable credits this process last saw per account (reserveAlongside). */
  private readonly seen = new Map<string, number>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(db: Db, opts: LedgerOptions) {
    this.db = db;
    this.limit = opts.rateLimitPerMinute;
    this.lease = opts.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
    this.now = opts.now ?? Date.now;
    this.onError = opts.onError ?? (() => {});
    const renewEvery = Math.max(250, (this.lease * 1000) / 3);
    this.timers.push(setInterval(() => this.renew().catch((e) => this.onError(e, 'renewing reservations')), renewEvery));
    const sweepEvery = opts.sweepIntervalMs ?? 30_000;
    if (sweepEvery > 0) this.timers.push(setInterval(() => this.sweep().catch((e) => this.onError(e, 'sweeping')), sweepEvery));
    for (const t of this.timers) t.unref();
  }

  async authenticate(key: string): Promise<Account | null> {
    if (typeof key !== 'string' || key.length === 0 || key.length > 1024) return null;
    const rows = await this.db.query<{ key_id: string; account_id: string }>(
      'SELECT id AS key_id, account_id FROM api_keys WHERE hash = $1 AND revoked_at IS NULL',
      [hashKey(key)],
    );
    return rows[0] ? { id: rows[0].account_id, keyId: rows[0].key_id } : null;
  }

  /** Fixed one-minute window per account, counted only for admitted requests (DESIGN §3: 429). */
  async checkRateLimit(account: Account): Promise<void> {
    if (this.limit <= 0) return;
    const now = this.now();
    const window = Math.floor(now / WINDOW_MS);
    const rows = await this.db.query(
      `INSERT INTO rate_windows AS w (account_id, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (account_id, window_start) DO UPDATE SET count = w.count + 1 WHERE w.count < $3
       RETURNING count`,
      [account.id, window, this.limit],
    );
    if (rows.length) return;
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    throw new ServiceError('rate_limited', `rate limit of ${this.limit} requests per minute exceeded; retry after ${retryAfter} s`, {
      retryAfterSeconds: retryAfter,
    });
  }

  async reserve(account: Account, opts: ReserveOptions = {}): Promise<Reservation> {
    const id = opts.id ?? newId('res');
    // Registered before the statement so that the renewal timer cannot miss it.
    this.live.add(id);
    try {
      const rows = await this.db.query(
        `WITH a AS (
           UPDATE accounts SET held = held + 1 WHERE id = $2 AND credits - held > 0 RETURNING id
         )
         INSERT INTO reservations (id, account_id, key_id, expires_at)
         SELECT $1, a.id, $3, now() + make_interval(secs => $4) FROM a
         RETURNING id`,
        [id, account.id, account.keyId ?? null, this.lease],
      );
      if (!rows.length) {
        this.see(account.id, 0);
        throw new ServiceError('insufficient_credits', 'this API key has no credits left');
      }
    } catch (e) {
      this.live.delete(id);
      throw e;
    }
    return { id, accountId: account.id };
  }

  /** The lease of a reservation (seconds), for one made with reserveOnceCtes(). */
  get leaseSeconds(): number {
    return this.lease;
  }

  /**
   * Renews a reservation this process made with reserveOnceCtes() until it is committed or
   * released; called before its statement, so that the renewal cannot miss it.
   */
  renewing(id: string): void {
    this.live.add(id);
  }

  /** Stops renewing a reservation (its statement held none). */
  forget(id: string): void {
    this.live.delete(id);
  }

  /** `q`: in the caller's transaction (a batch item commits with its settlement). */
  async commit(r: Reservation, q: Queryable = this.db): Promise<Committed> {
    this.live.delete(r.id);
    const rows = await q.query<{ available: unknown }>(
      // NOT EXISTS: a reservation id given by the caller (reserve's opts.id) is spent at most
      // once, however many times it is reserved again (a batch item run again after a crash).
      `WITH r AS (
         DELETE FROM reservations WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM ledger WHERE reservation_id = $1)
         RETURNING account_id, key_id
       ),
       a AS (
         UPDATE accounts SET credits = credits - 1, held = held - 1
         FROM r WHERE accounts.id = r.account_id
         RETURNING accounts.credits - accounts.held AS available
       ),
       l AS (
         INSERT INTO ledger (account_id, key_id, delta, kind, reservation_id)
         SELECT account_id, key_id, -1, 'capture', $1 FROM r
       )
       SELECT available FROM a`,
      [r.id],
    );
    if (rows.length) return { charged: 1, remaining: this.see(r.accountId, Number(rows[0]!.available)) };
    // The reservation is gone: committed or released already, or released by the sweep because
    // this process could not renew it for a whole lease (a stall or an outage of the database).
    // Nothing is charged then, and the caller is told so (x-credits-charged: 0): a credit may be
    // lost to the service, never charged twice nor claimed when it was not.
    return { charged: 0, remaining: await this.balance({ id: r.accountId }, q) };
  }

  async release(r: Reservation, q: Queryable = this.db): Promise<void> {
    this.live.delete(r.id);
    await q.query(
      `WITH r AS (DELETE FROM reservations WHERE id = $1 RETURNING account_id)
       UPDATE accounts SET held = held - 1 FROM r WHERE accounts.id = r.account_id`,
      [r.id],
    );
  }

  /** Spendable credits: the balance minus the credits on hold for renders in flight. */
  async balance(account: Account, q: Queryable = this.db): Promise<number> {
    const rows = await q.query<{ available: unknown }>('SELECT credits - held AS available FROM accounts WHERE id = $1', [account.id]);
    return this.see(account.id, Number(rows[0]?.available ?? 0));
  }

  reserveAlongside(account: Account): boolean {
    const spare = this.seen.get(account.id) ?? 0;
    if (spare < 2) return false;
    this.seen.set(account.id, spare - 1);
    return true;
  }

  private see(accountId: string, available: number): number {
    if (this.seen.size >= SEEN_ACCOUNTS && !this.seen.has(accountId)) this.seen.clear();
    this.seen.set(accountId, available);
    return available;
  }

  /** Extends the lease of every reservation this process still holds. */
  async renew(): Promise<void> {
    if (this.live.size === 0) return;
    await this.db.query('UPDATE reservations SET expires_at = now() + make_interval(secs => $2) WHERE id = ANY($1::text[])', [[...this.live], this.lease]);
  }

  /**
   * Releases reservations whose lease expired (their process died) and drops old rate windows.
   * `all`: release every reservation not held by this process, for the embedded store at
   * start-up, where no other process can be using the data directory. Returns how many it released.
   */
  async sweep(opts: { all?: boolean } = {}): Promise<number> {
    const rows = await this.db.query<{ n: unknown }>(
      `WITH gone AS (
         DELETE FROM reservations WHERE ($1::boolean OR expires_at < now()) AND id <> ALL($2::text[])
         RETURNING account_id
       ),
       per AS (SELECT account_id, count(*) AS n FROM gone GROUP BY account_id),
       upd AS (UPDATE accounts SET held = held - per.n FROM per WHERE accounts.id = per.account_id RETURNING per.n)
       SELECT COALESCE(SUM(n), 0) AS n FROM upd`,
      [opts.all === true, [...this.live]],
    );
    await this.db.query('DELETE FROM rate_windows WHERE window_start < $1', [Math.floor(this.now() / WINDOW_MS) - 1]);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Stops the timers and closes the store. Reservations still held are left for the sweep
   * (a render still running at shutdown must not be charged nor be released twice).
   */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.db.close();
  }
}
