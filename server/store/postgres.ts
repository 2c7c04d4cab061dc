// The shared store: a real PostgreSQL through `pg` when DATABASE_URL is set (several replicas
// share one ledger, one result cache, one table of link secrets).
import pg from 'pg';
import type { Db, Row } from './db.ts';
import { CONNECT_TIMEOUT_MS, isStoreUnavailable, unavailableOr } from './unavailable.ts';

export async function openPostgres(url: string, poolSize = 10): Promise<Db> {
  // A connection attempt is bounded, and a server that is away is 503 with Retry-After (unavailable.ts).
  const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'screenshot-ledger', connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    async query<T extends Row>(sql: string, params: unknown[] = []) {
      try {
        return (await pool.query(sql, params)).rows as T[];
      } catch (e) {
        throw unavailableOr(e);
      }
    },
    async tx(fn) {
      const client = await pool.connect().catch((e: unknown) => {
        throw unavailableOr(e);
      });
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const out = await fn({ query: async <T extends Row>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[] });
        await client.query('COMMIT');
        return out;
      } catch (e) {
        // A connection that broke is dropped from the pool rather than handed to the next caller.
        if (isStoreUnavailable(e)) broken = e as Error;
        else await client.query('ROLLBACK').catch(() => {});
        throw unavailableOr(e);
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
