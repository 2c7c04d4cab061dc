// Applying the migrations (migrations.ts): those not yet recorded in schema_migrations, in order,
// in one transaction with their records, so that a store is never left between two versions.
import { lockFor, type Db } from './db.ts';
import { MIGRATIONS } from './migrations.ts';

/** Applies the migrations not yet recorded; replicas starting together take turns (advisory lock). */
export async function migrate(db: Db): Promise<void> {
  await db.tx(async (q) => {
    await lockFor(q, 'migrations');
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
