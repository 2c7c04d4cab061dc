// Every table of the store, as ONE ordered list of migrations (each a list of statements, applied
// once, recorded by its position in schema_migrations; migrate.ts). Append new migrations; never
// edit or reorder an applied one: stores in service have recorded them by number.
//
//   1  accounts, api_keys, reservations, ledger, rate_windows   the credits ledger (server/accounts)
//   2  link_secrets                                              signed links (server/links)
//   3  result_cache, result_cache_flights                        the result cache (server/cache)
//   4  batches, batch_items, webhook_deliveries, webhook_secrets  batches of captures (server/batches)
//
// Invariants the ledger keeps and the tests check:
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
    // Signing secrets of signed render links (server/links/secrets.ts): one per key,
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
  [
    // The result cache (server/cache/sql.ts) every replica shares. Times are epoch milliseconds
    // from the replicas' clocks (a few ms of skew only moves an expiry by as much).
    //   result_cache          one row per entry: the image and its facts (column `headers`, named for
    //                         the headers it held before them; server/response/facts.ts); expires_at
    //                         (TTL), used_at (least recently used evicted first), bytes (size cap)
    //   result_cache_flights  one row per render in flight that others may wait for (single flight);
    //                         a lease: a crashed leader's row expires and is taken over
    // IF NOT EXISTS: before this list held them, the cache created these tables itself, unrecorded,
    // so a store in service may have them already (with entries worth keeping).
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
  [
    // A batch of captures (server/batches): the batch, one row per item, and every webhook
    // delivery attempt. The queue itself (which replica runs which item, retries, leases) is
    // pg-boss's, in its own schema `pgboss` of the same database.
    //   batches.cancelled_at     DELETE /v1/batches/{id}: items not started are cancelled
    //   batches.completed_sent   batch.completed was queued for delivery (exactly once)
    `CREATE TABLE batches (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      key_id text,
      total integer NOT NULL,
      webhook_url text,
      created_at timestamptz NOT NULL DEFAULT now(),
      cancelled_at timestamptz,
      completed_at timestamptz,
      completed_sent boolean NOT NULL DEFAULT false
    )`,
    `CREATE INDEX batches_account ON batches (account_id)`,
    // One row per capture request of a batch. `request` is the validated request; it is cleared
    // once the item is settled (an html request is kept no longer than its render needs).
    // state: queued, running, succeeded, failed, cancelled. `result` names the picture in the
    // results storage (server/results); `facts` are the capture's facts (server/response/facts.ts).
    // `charged` copies the ledger, whose row for the item's reservation id (`bitem_<batch>_<idx>`,
    // server/batches/runner.ts, reservationIdOf) is the one proof that the item was billed.
    `CREATE TABLE batch_items (
      batch_id text NOT NULL REFERENCES batches(id),
      idx integer NOT NULL,
      request jsonb,
      state text NOT NULL DEFAULT 'queued',
      status integer,
      error text,
      message text,
      facts jsonb,
      result text,
      content_type text,
      charged integer NOT NULL DEFAULT 0,
      runs integer NOT NULL DEFAULT 0,
      queued_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      expires_at timestamptz,
      PRIMARY KEY (batch_id, idx)
    )`,
    // Every attempt to deliver a webhook event: its id (kept by every redelivery), what answered.
    `CREATE TABLE webhook_deliveries (
      id bigserial PRIMARY KEY,
      batch_id text NOT NULL REFERENCES batches(id),
      event_id text NOT NULL,
      type text NOT NULL,
      idx integer,
      attempt integer NOT NULL,
      status integer,
      outcome text NOT NULL,
      error text,
      at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE INDEX webhook_deliveries_batch ON webhook_deliveries (batch_id)`,
    // The secret that signs a key's webhooks (Standard Webhooks, whsec_...): one per key. Kept as
    // is: signing (HMAC) needs the secret itself; whoever reads the store can sign, not spend.
    `CREATE TABLE webhook_secrets (
      key_id text PRIMARY KEY REFERENCES api_keys(id),
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
  ],
];
