// The store: the one database of the server, shared by the credits ledger (server/accounts), the
// result cache (server/cache) and the signing secrets of signed links (server/links). Either the
// embedded store (PGlite in DATA_DIR, one process: in this one, or served to the processes of
// `npm start` by a process of its own, STORE_SOCKET) or PostgreSQL when DATABASE_URL is set
// (every replica shares it). Opening it applies the migrations not yet applied (migrate.ts), so that
// every table of every room exists before anything reads it.
import type { Config } from '../config.ts';
import type { Db } from './db.ts';
import { openEmbedded } from './embedded.ts';
import { migrate } from './migrate.ts';
import { openPostgres } from './postgres.ts';
import { openShared } from './shared.ts';

export type { Db, Queryable, Row } from './db.ts';
export { lockFor } from './db.ts';
export { StoreInUse } from './embedded.ts';

export type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'storeSocket'>>;

/** Opens the store the configuration names, migrated; closed (and unlocked) if migrating fails. */
export async function openStore(config: StoreConfig): Promise<Db> {
  const db = config.databaseUrl
    ? await openPostgres(config.databaseUrl)
    : config.storeSocket
      ? openShared(config.storeSocket)
      : await openEmbedded(config.dataDir);
  try {
    await migrate(db);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}
