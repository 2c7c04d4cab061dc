// What the rest of the server sees of the store: one SQL connection over either store (index.ts
// opens it). The SQL is written once, in PostgreSQL's dialect, and runs unchanged on both.
export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  /** embedded: PGlite in this process; shared: the embedded store served by its own process (shared.ts); postgres: DATABASE_URL. */
  readonly kind: 'embedded' | 'shared' | 'postgres';
  /** The embedded store's PGlite instance (or what stands for it over the socket), for a library that runs its own SQL on it (pg-boss); undefined on PostgreSQL. */
  readonly pglite?: unknown;
  /** Runs fn in one transaction (READ COMMITTED); rolls back when fn throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Advisory transaction locks, one id per purpose: replicas starting at the same moment take turns
 * instead of racing (on CREATE TABLE, on the first insert of a key). Ids are listed here, once, so
 * that no two purposes share one by accident.
 */
const LOCK_IDS = { migrations: 735201, 'env-keys': 735202 } as const;

/** Takes the purpose's lock until the end of the transaction `q` runs in. */
export async function lockFor(q: Queryable, purpose: keyof typeof LOCK_IDS): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock($1::bigint)', [LOCK_IDS[purpose]]);
}
