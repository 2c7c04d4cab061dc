// The one SQL connection the ledger uses, over either store: PGlite (embedded PostgreSQL in WASM,
// persisted in DATA_DIR, nothing to install) or a real PostgreSQL through `pg` when DATABASE_URL
// is set (several replicas share one ledger). The SQL is written once, in PostgreSQL's dialect,
// and runs unchanged on both.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { MIGRATIONS } from './schema.ts';

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /** Runs fn in one transaction (READ COMMITTED); rolls back when fn throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The embedded store: one PGlite database in `<dataDir>/ledger`. One process at a time. */
export async function openEmbedded(dataDir: string): Promise<Db> {
  const dir = path.join(dataDir, 'ledger');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lite = await PGlite.create(dir);
  const db: Db = {
    kind: 'embedded',
    async query<T extends Row>(sql: string, params: unknown[] = []) {
      return (await lite.query<T>(sql, params)).rows;
    },
    // PGlite is a single connection: its transaction() holds a mutex, so transactions run one
    // after another and plain queries wait for them.
    tx: (fn) => lite.transaction((t) => fn({ query: async <T extends Row>(sql: string, params: unknown[] = []) => (await t.query<T>(sql, params)).rows })),
    close: () => lite.close(),
  };
  await migrate(db);
  return db;
}

/** PostgreSQL through a pool. */
export async function openPostgres(url: string, poolSize = 10): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'screenshot-ledger' });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  const db: Db = {
    kind: 'postgres',
    async query<T extends Row>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({ query: async <T extends Row>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[] });
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
  try {
    await migrate(db);
  } catch (e) {
    await pool.end().catch(() => {});
    throw e;
  }
  return db;
}

/**
 * Applies the migrations not yet recorded, in order, idempotently. An advisory lock makes replicas
 * starting at the same moment take turns instead of racing on CREATE TABLE.
 */
async function migrate(db: Db): Promise<void> {
  await db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock(735201)');
    await q.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await q.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
    for (const [i, sql] of MIGRATIONS.entries()) {
      const version = i + 1;
      if (done.has(version)) continue;
      for (const statement of sql) await q.query(statement);
      await q.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
    }
  });
}
