// The ledger's tables, as ordered migrations (each a list of statements, applied once, recorded in
// schema_migrations). Append new migrations; never edit an applied one.
//
// Invariants the code keeps and the tests check:
//   accounts.credits = SUM(ledger.delta) of the account (every committed change has a ledger row)
//   accounts.held    = COUNT(reservations) of the account (credits on hold for renders in flight)
//   0 <= held <= credits, so the spendable balance credits - held is never negative
//   a reservation is committed at most once (ledger.reservation_id is unique)
export const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE accounts (
      id text PRIMARY KEY,
      label text,
      credits bigint NOT NULL DEFAULT 0,
      held integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT credits_cover_holds CHECK (held >= 0 AND credits >= held)
    )`,
    // Only the SHA-256 of a key is stored; `prefix` (the first characters) identifies it in lists.
    // source: 'cli' (created with the CLI), 'env' (from API_KEYS), 'dev' (the development key).
    // revoked_by: 'cli' (revoked by an operator) or 'env' (no longer listed in API_KEYS).
    `CREATE TABLE api_keys (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      hash text NOT NULL UNIQUE,
      prefix text NOT NULL,
      label text,
      source text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz,
      revoked_by text
    )`,
    `CREATE INDEX api_keys_account ON api_keys (account_id)`,
    // One row per credit on hold. A live process keeps extending expires_at; a row whose process
    // died expires and is released by the sweep (never committed).
    `CREATE TABLE reservations (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      key_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`,
    `CREATE INDEX reservations_expiry ON reservations (expires_at)`,
    // Every committed change of a balance: free allowance, grants, captures (-1 each).
    `CREATE TABLE ledger (
      id bigserial PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      key_id text,
      delta bigint NOT NULL,
      kind text NOT NULL,
      reservation_id text UNIQUE,
      note text,
      at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE INDEX ledger_account ON ledger (account_id)`,
    // Fixed one-minute windows per account: window = floor(epoch ms / 60000).
    `CREATE TABLE rate_windows (
      account_id text NOT NULL,
      window_start bigint NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (account_id, window_start)
    )`,
  ],
  [
    // Signing secrets of signed render links (server/links/secrets.ts, issue 12): one per key,
    // sealed with the server's key-encryption key (AES-256-GCM, the key id as associated data):
    // HMAC verification needs the secret itself, so it cannot be stored as a hash. `previous` is
    // the secret before the last rotation, still accepted until previous_until (a grace period).
    // kek_id names the key-encryption key that sealed them (a fingerprint, not the key).
    `CREATE TABLE link_secrets (
      key_id text PRIMARY KEY REFERENCES api_keys(id),
      sealed text NOT NULL,
      previous text,
      previous_until timestamptz,
      kek_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      rotated_at timestamptz
    )`,
  ],
];
