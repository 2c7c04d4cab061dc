// The shared store: a real PostgreSQL through `pg` when DATABASE_URL is set (several replicas
// share one ledger, one result cache, one table of link secrets).
import pg from 'pg';
import type { Db, Row } from './db.ts';

export async function openPostgres(url: string, poolSize = 10): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'screenshot-ledger' });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  return {
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
}
