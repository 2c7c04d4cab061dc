// The one SQL connection the ledger uses, over either store: PGlite (embedded PostgreSQL in WASM,
// persisted in DATA_DIR, nothing to install) or a real PostgreSQL through `pg` when DATABASE_URL
// is set (several replicas share one ledger). The SQL is written once, in PostgreSQL's dialect,
// and runs unchanged on both.
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { hostname } from 'node:os';
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
  const unlock = lockDir(dataDir);
  let lite: PGlite;
  try {
    // The ledger is a few small tables: 16 MB of buffers instead of the default 128 MB saves
    // about 130 MB of resident memory.
    lite = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] });
  } catch (e) {
    unlock();
    throw e;
  }
  const db: Db = {
    kind: 'embedded',
    async query<T extends Row>(sql: string, params: unknown[] = []) {
      return (await lite.query<T>(sql, params)).rows;
    },
    // PGlite is a single connection: its transaction() holds a mutex, so transactions run one
    // after another and plain queries wait for them.
    tx: (fn) => lite.transaction((t) => fn({ query: async <T extends Row>(sql: string, params: unknown[] = []) => (await t.query<T>(sql, params)).rows })),
    async close() {
      try {
        await lite.close();
      } finally {
        unlock();
      }
    },
  };
  return migrated(db);
}

export class StoreInUse extends Error {}

const openHere = new Set<string>();

/**
 * The embedded store serves one process: two processes opening the same PGlite directory would
 * corrupt it. `<dataDir>/ledger.lock` holds the owner's pid and host; a lock whose process is gone
 * (a crash) is taken over. Returns the unlock function.
 */
function lockDir(dataDir: string): () => void {
  const file = path.resolve(dataDir, 'ledger.lock');
  const me = `${process.pid} ${hostname()}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeFileSync(fd, me);
      closeSync(fd);
      openHere.add(file);
      return () => {
        openHere.delete(file);
        rmSync(file, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const [pid, host] = readFileSync(file, 'utf8').trim().split(' ');
    // Our own pid counts only if this process really has it open (a container restarted with
    // the same pid and host name finds its own old lock).
    const busy = Number(pid) === process.pid ? openHere.has(file) : alive(Number(pid));
    if (host === hostname() && busy) {
      throw new StoreInUse(
        `the embedded store in ${dataDir} is in use by process ${pid}; it serves one process at a time ` +
          '(stop that process first, or set DATABASE_URL to share a PostgreSQL ledger)',
      );
    }
    rmSync(file, { force: true }); // stale: its process is gone
  }
  throw new StoreInUse(`could not lock ${file}`);
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
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
  return migrated(db);
}

/** The store once its migrations are applied; closed (and unlocked) if they fail. */
async function migrated(db: Db): Promise<Db> {
  try {
    await migrate(db);
  } catch (e) {
    await db.close().catch(() => {});
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
