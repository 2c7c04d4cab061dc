// Accounts: API keys, the credits ledger and rate limits (spec §1 billing, §5, §8; DESIGN §2, §3).
// `openAccounts(config)` opens the store (server/store: embedded PGlite in DATA_DIR, or PostgreSQL
// when DATABASE_URL is set), makes the API_KEYS keys valid, releases reservations left by crashed
// processes and starts the background renewal and sweep. The HTTP and MCP layers see only the
// `Accounts` interface (types.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { openStore } from '../store/index.ts';
import { activeKeyCount, createKey, syncEnvKeys } from './admin.ts';
import { SqlLedger, type LedgerOptions } from './ledger.ts';

export type { Account, Accounts, Committed, Reservation, ReserveOptions } from './types.ts';

export type AccountsConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'apiKeys' | 'freeCredits' | 'rateLimitPerMinute'> & Partial<Pick<Config, 'storeSocket'>>;

export interface OpenOptions extends Omit<LedgerOptions, 'rateLimitPerMinute'> {
  /** Make the API_KEYS keys valid (default true; the CLI turns it off). */
  syncEnvKeys?: boolean;
  /** Release reservations left by dead processes now (default true). */
  sweepAtStart?: boolean;
}

/** Opens the store chosen by the configuration; see the file comment. */
export async function openAccounts(config: AccountsConfig, opts: OpenOptions = {}): Promise<SqlLedger> {
  const db = await openStore(config);
  const ledger = new SqlLedger(db, { ...opts, rateLimitPerMinute: config.rateLimitPerMinute });
  try {
    if (opts.syncEnvKeys !== false) await syncEnvKeys(db, config.apiKeys, config.freeCredits);
    // The embedded store belongs to this process alone (server/store locks it), so every
    // reservation in it was left by a process that died; on PostgreSQL other replicas are alive:
    // only expired ones.
    if (opts.sweepAtStart !== false) await ledger.sweep({ all: db.kind === 'embedded' });
  } catch (e) {
    await ledger.close().catch(() => {});
    throw e;
  }
  return ledger;
}

export interface DevKey {
  key: string;
  /** Where the plaintext is kept (mode 0600) so that later starts can print it again. */
  file: string;
  /** True when this start created it. */
  created: boolean;
}

/**
 * `npm start` with no configuration: when API_KEYS is empty, no DATABASE_URL is set and the store
 * has no valid key, creates a development key with the free allowance, keeps its plaintext in
 * DATA_DIR/dev-key.txt (mode 0600; the store has only its hash) and returns it for printing.
 * Later starts return the same key while it is valid. Returns null when keys come from elsewhere.
 */
export async function ensureDevKey(accounts: SqlLedger, config: AccountsConfig): Promise<DevKey | null> {
  if (config.apiKeys.length > 0 || config.databaseUrl) return null;
  const file = path.join(config.dataDir, 'dev-key.txt');
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    if (await accounts.authenticate(key)) return { key, file, created: false };
  }
  if ((await activeKeyCount(accounts.db)) > 0) return null;
  const made = await createKey(accounts.db, { label: 'development key', credits: config.freeCredits, source: 'dev' });
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, made.key + '\n', { mode: 0o600 });
  chmodSync(file, 0o600); // writeFileSync keeps the mode of an existing file
  return { key: made.key, file, created: true };
}
