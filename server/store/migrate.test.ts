// The one migration list on both stores: a new store gets every table; a store made by the code
// before the list held every table (the ledger's and the link secrets' migrations recorded, the
// cache's tables created by the cache itself, unrecorded) opens and migrates cleanly, keeping its
// data; and an applied migration is never edited (stores in service have recorded it by number).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSharedCache } from '../cache/shared.ts';
import { postgresStore, PG_SKIP, type TestStore } from '../../test/support/stores.ts';
import type { Db } from './db.ts';
import { openEmbedded } from './embedded.ts';
import { openStore, type StoreConfig } from './index.ts';
import { MIGRATIONS } from './migrations.ts';
import { openPostgres } from './postgres.ts';
import { pictureFacts } from '../../test/support/facts.ts';

/** What the code before the one list ran, verbatim: its bookkeeping and the cache's own tables. */
const BEFORE = {
  bookkeeping: 'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  recorded: 2,
  cacheTables: [
    `CREATE TABLE IF NOT EXISTS result_cache (
    key text PRIMARY KEY,
    body bytea NOT NULL,
    content_type text NOT NULL,
    headers jsonb NOT NULL,
    width integer NOT NULL,
    height integer NOT NULL,
    bytes integer NOT NULL,
    stored_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at bigint NOT NULL
  )`,
    `CREATE INDEX IF NOT EXISTS result_cache_used ON result_cache (used_at)`,
    `CREATE TABLE IF NOT EXISTS result_cache_flights (
    key text PRIMARY KEY,
    owner text NOT NULL,
    expires_at bigint NOT NULL
  )`,
  ],
};

/** SHA-256 of each migration as applied: editing one fails here (append a new one instead). */
const APPLIED = [
  'dd6ca61c7bd98a308892625ad18ea6873b1dbc970b22877cbc98278b5009a47c', // 1: the ledger (as in the code before the one list)
  '3d40a1ae60e519d1c14d510735e10a373579ebdfec60eaf40c247bcc8690687b', // 2: link secrets (likewise)
  '41540a647dcab9d4c2d9edf413c67384b3a43cd3a9b05b05f3a3d632eeca90b1', // 3: the result cache
];

const NOW = 1_700_000_000_000;
const TABLES = [
  'accounts',
  'api_keys',
  'batch_items',
  'batches',
  'ledger',
  'link_secrets',
  'rate_windows',
  'reservations',
  'result_cache',
  'result_cache_flights',
  'schema_migrations',
  'webhook_deliveries',
  'webhook_secrets',
];

/**
 * A store as the code before the list left it, with a row in the ledger and an entry in the cache.
 * Its migrations 1 and 2 are those of today's list (APPLIED pins them).
 */
async function makeOldStore(raw: Db, withCache: boolean): Promise<void> {
  await raw.tx(async (q) => {
    await q.query(BEFORE.bookkeeping);
    for (const [i, sql] of MIGRATIONS.slice(0, BEFORE.recorded).entries()) {
      for (const statement of sql) await q.query(statement);
      await q.query('INSERT INTO schema_migrations (version) VALUES ($1)', [i + 1]);
    }
    await q.query("INSERT INTO accounts (id, credits) VALUES ('acc_old', 7)");
    await q.query("INSERT INTO ledger (account_id, delta, kind) VALUES ('acc_old', 7, 'grant')");
    if (!withCache) return;
    for (const statement of BEFORE.cacheTables) await q.query(statement);
    await q.query(
      `INSERT INTO result_cache (key, body, content_type, headers, width, height, bytes, stored_at, expires_at, used_at)
       VALUES ('k', $1, 'image/png', '{"x-cache":"miss"}'::jsonb, 2, 1, 300, $2, $3, $2)`,
      [Buffer.from('old image'), NOW, NOW + 60_000],
    );
  });
}

async function tables(db: Db): Promise<string[]> {
  const rows = await db.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
  return rows.map((r) => r.t);
}

async function versions(db: Db): Promise<number[]> {
  return (await db.query<{ v: number }>('SELECT version AS v FROM schema_migrations ORDER BY 1')).map((r) => Number(r.v));
}

interface Kind {
  name: string;
  skip: string | false;
  /** A fresh, empty store: its configuration and a raw (unmigrated) connection to it. */
  make(): Promise<{ config: StoreConfig; raw(): Promise<Db>; destroy(): Promise<void> }>;
}

const KINDS: Kind[] = [
  {
    name: 'embedded',
    skip: false,
    async make() {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'store-migrate-'));
      return {
        config: { dataDir, databaseUrl: null },
        raw: () => openEmbedded(dataDir),
        destroy: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres',
    skip: PG_SKIP,
    async make() {
      const store: TestStore = await postgresStore();
      const config = store.config();
      return { config, raw: () => openPostgres(config.databaseUrl!, 1), destroy: () => store.destroy() };
    },
  },
];

test('an applied migration is never edited', () => {
  const sums = MIGRATIONS.map((m) => createHash('sha256').update(m.join('\n;\n')).digest('hex'));
  assert.deepEqual(sums.slice(0, APPLIED.length), APPLIED);
});

for (const kind of KINDS) {
  describe(`the one migration list on ${kind.name}`, { skip: kind.skip }, () => {
    const made: Array<() => Promise<void>> = [];
    after(async () => {
      for (const d of made) await d();
    });
    const fresh = async () => {
      const s = await kind.make();
      made.push(s.destroy);
      return s;
    };

    test('a new store gets every table of every room, every migration recorded', async () => {
      const s = await fresh();
      const db = await openStore(s.config);
      try {
        assert.deepEqual(await tables(db), TABLES);
        assert.deepEqual(
          await versions(db),
          MIGRATIONS.map((_, i) => i + 1),
        );
      } finally {
        await db.close();
      }
      const again = await openStore(s.config); // opening again applies nothing twice
      try {
        assert.deepEqual(
          await versions(again),
          MIGRATIONS.map((_, i) => i + 1),
        );
      } finally {
        await again.close();
      }
    });

    for (const withCache of [true, false]) {
      test(`a store of the code before the one list migrates cleanly and keeps its data (${withCache ? 'its cache tables already there' : 'the cache was off: no cache tables'})`, async () => {
        const s = await fresh();
        const raw = await s.raw();
        try {
          await makeOldStore(raw, withCache);
        } finally {
          await raw.close();
        }
        const db = await openStore(s.config);
        try {
          assert.deepEqual(
            await versions(db),
            MIGRATIONS.map((_, i) => i + 1),
          );
          assert.deepEqual(await tables(db), TABLES);
          const acc = await db.query<{ credits: unknown }>("SELECT credits FROM accounts WHERE id = 'acc_old'");
          assert.equal(Number(acc[0]?.credits), 7, 'the ledger is kept');
          const cache = openSharedCache(db, { ttlSeconds: 300, maxBytes: 1 << 20, leaseMs: 5000, now: () => NOW + 1000 });
          const hit = await cache.get('k');
          if (withCache) {
            assert.equal(hit?.body.toString(), 'old image', 'the cache entry is kept and served');
            // Kept as stored; the service never asks for it again (its keys name the entry shape,
            // server/cache/index.ts), so it expires by itself.
            assert.deepEqual(hit?.picture as unknown, { 'x-cache': 'miss' });
          } else assert.equal(hit, undefined);
          await cache.set('new', { body: Buffer.from('png'), contentType: 'image/png', picture: pictureFacts(), width: 1, height: 1 });
          assert.equal((await cache.get('new'))?.body.toString(), 'png', 'the cache works on the migrated store');
        } finally {
          await db.close();
        }
      });
    }
  });
}
