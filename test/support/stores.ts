// The two stores the ledger runs on, each opened fresh and isolated, and the checks of its books.
// embedded: a PGlite database in a new temporary DATA_DIR.
// postgres: a new database on the server of TEST_DATABASE_URL (scripts/setup-postgres.sh starts
// a throwaway cluster and exports it; scripts/test.sh always sets it). Without it the PostgreSQL
// tests are skipped with a message saying so.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createKey } from '../../server/accounts/admin.ts';
import { openAccounts, type Account, type AccountsConfig, type OpenOptions } from '../../server/accounts/index.ts';
import type { SqlLedger } from '../../server/accounts/ledger.ts';
import { openStore, type Db } from '../../server/store/index.ts';

export const PG_URL = process.env.TEST_DATABASE_URL?.trim() || '';
export const PG_SKIP = PG_URL
  ? false
  : 'TEST_DATABASE_URL is not set: PostgreSQL tests skipped (run `eval "$(bash scripts/setup-postgres.sh start)"` first, as scripts/test.sh does)';

export interface TestStore {
  /** The configuration of this store (dataDir or databaseUrl), for openAccounts or a server. */
  config(over?: Partial<AccountsConfig>): AccountsConfig;
  /** Opens one more instance ("replica" / "restart") on the same data. */
  open(over?: Partial<AccountsConfig>, opts?: OpenOptions): Promise<SqlLedger>;
  /** Drops the data. */
  destroy(): Promise<void>;
}

const base = { apiKeys: [] as string[], freeCredits: 100, rateLimitPerMinute: 0 };

// Creating a PGlite database runs initdb (seconds); opening an existing one does not. So each test
// process creates one migrated, empty database and every embedded store starts as a copy of it.
let template: Promise<string> | undefined;
async function embeddedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ledger-template-'));
    await (await openStore({ dataDir: dir, databaseUrl: null })).close();
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })();
  return template;
}

export async function embeddedStore(): Promise<TestStore> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ledger-test-'));
  cpSync(path.join(await embeddedTemplate(), 'ledger'), path.join(dataDir, 'ledger'), { recursive: true });
  const config = (over: Partial<AccountsConfig> = {}): AccountsConfig => ({ ...base, dataDir, databaseUrl: null, ...over });
  return {
    config,
    open: (over, opts) => openAccounts(config(over), { sweepIntervalMs: 0, ...opts }),
    async destroy() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function postgresStore(): Promise<TestStore> {
  const name = `ledger_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  const databaseUrl = u.href;
  const config = (over: Partial<AccountsConfig> = {}): AccountsConfig => ({ ...base, dataDir: tmpdir(), databaseUrl, ...over });
  return {
    config,
    open: (over, opts) => openAccounts(config(over), { sweepIntervalMs: 0, ...opts }),
    async destroy() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export const STORES: { name: 'embedded' | 'postgres'; make: () => Promise<TestStore>; skip: string | false }[] = [
  { name: 'embedded', make: embeddedStore, skip: false },
  { name: 'postgres', make: postgresStore, skip: PG_SKIP },
];

/** The books of one account, for the tests' checks of the invariants in server/store/migrations.ts. */
export async function audit(db: Db, accountId: string): Promise<{ credits: number; held: number; reservations: number; ledgerSum: number; captures: number }> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT a.credits, a.held,
       (SELECT count(*) FROM reservations r WHERE r.account_id = a.id) AS reservations,
       (SELECT COALESCE(SUM(delta), 0) FROM ledger l WHERE l.account_id = a.id) AS ledger_sum,
       (SELECT count(*) FROM ledger l WHERE l.account_id = a.id AND l.kind = 'capture') AS captures
     FROM accounts a WHERE a.id = $1`,
    [accountId],
  );
  const r = rows[0];
  if (!r) throw new Error(`no account ${accountId}`);
  return {
    credits: Number(r.credits),
    held: Number(r.held),
    reservations: Number(r.reservations),
    ledgerSum: Number(r.ledger_sum),
    captures: Number(r.captures),
  };
}

/** The invariants of server/store/migrations.ts for one account: credits = SUM(ledger), held = COUNT(reservations), 0 <= held <= credits; and what `expect` says. */
export async function assertBooks(l: SqlLedger, accountId: string, expect: { credits?: number; held?: number; captures?: number }): Promise<void> {
  const a = await audit(l.db, accountId);
  assert.equal(a.credits, a.ledgerSum, 'credits = sum of the ledger');
  assert.equal(a.held, a.reservations, 'held = number of reservations');
  assert.ok(a.held >= 0 && a.held <= a.credits, 'no negative spendable balance');
  if (expect.credits !== undefined) assert.equal(a.credits, expect.credits, 'credits');
  if (expect.held !== undefined) assert.equal(a.held, expect.held, 'held');
  if (expect.captures !== undefined) assert.equal(a.captures, expect.captures, 'captures billed');
}

/** A new account with one key and `credits`, authenticated by that key. */
export async function newAccount(l: SqlLedger, credits = 100): Promise<{ key: string; account: Account }> {
  const made = await createKey(l.db, { credits });
  const account = await l.authenticate(made.key);
  assert.ok(account);
  return { key: made.key, account };
}
