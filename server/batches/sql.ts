// Every SQL statement of batches, named (SQL below), and the functions that run them: a batch,
// its items, its webhook deliveries (migration 4, server/store/migrations.ts), and the reads of
// pg-boss's job table that the queue makes (./queue.ts). Each function is one statement or one
// transaction; no other file of server/batches writes SQL (test/house/sql.test.ts checks it).
import { ITEM_QUEUE } from './queue-names.ts';
import type { Queryable } from '../store/index.ts';
import type { CaptureFacts } from '../response/facts.ts';
import { reserveOnceCtes } from '../accounts/ledger.ts';

const ITEM_COLUMNS = 'idx, state, status, error, message, facts, result, content_type, charged, runs, queued_at, started_at, finished_at, expires_at';

const SQL = {
  insertBatch: 'INSERT INTO batches (id, account_id, key_id, total, webhook_url) VALUES ($1, $2, $3, $4, $5)',
  // One statement for every item: the requests as one JSON array, unnested with their positions.
  insertItems: `INSERT INTO batch_items (batch_id, idx, request)
     SELECT $1, (r.ord - 1)::integer, r.value FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS r(value, ord)`,
  batchOf: 'SELECT * FROM batches WHERE id = $1 AND account_id = $2',
  isCancelled: 'SELECT 1 FROM batches WHERE id = $1 AND cancelled_at IS NOT NULL',
  webhookOf: 'SELECT webhook_url, key_id FROM batches WHERE id = $1',
  itemsOf: `SELECT ${ITEM_COLUMNS} FROM batch_items WHERE batch_id = $1 ORDER BY idx`,
  itemOf: `SELECT ${ITEM_COLUMNS} FROM batch_items WHERE batch_id = $1 AND idx = $2`,
  itemCounts: 'SELECT state, count(*) AS n FROM batch_items WHERE batch_id = $1 GROUP BY state',
  deliveriesOf: 'SELECT event_id, type, idx, attempt, status, outcome, error, at FROM webhook_deliveries WHERE batch_id = $1 ORDER BY id',
  // The item claimed and its credit reserved (or found billed, or kept from a run that died) in
  // one statement: the ledger's part is the ledger's (reserveOnceCtes).
  claimItem: `WITH claimed AS (
       UPDATE batch_items i SET state = 'running', runs = i.runs + 1, started_at = COALESCE(i.started_at, now())
       FROM batches b
       WHERE b.id = i.batch_id AND i.batch_id = $1 AND i.idx = $2 AND i.state IN ('queued', 'running')
       RETURNING i.request, b.account_id, b.key_id, i.queued_at
     ),
     ${reserveOnceCtes('claimed', '$3', '$4')}
     SELECT c.request, c.account_id, c.key_id, c.queued_at, EXISTS (SELECT 1 FROM spent) AS spent,
       (EXISTS (SELECT 1 FROM kept) OR EXISTS (SELECT 1 FROM reserved)) AS held
     FROM claimed c`,
  // First in an item's settling transaction: the batch's row locked, so that the settlements of
  // its items take turns and the last one sees every other settled (batch.completed, once), on
  // PostgreSQL too, where they may run at once.
  lockBatch: 'SELECT webhook_url, key_id FROM batches WHERE id = $1 FOR UPDATE',
  settleItem: `UPDATE batch_items SET state = $3, status = $4, error = $5, message = $6, facts = $7::jsonb, result = $8, content_type = $9,
       charged = $10, request = NULL, finished_at = now(), expires_at = now() + make_interval(secs => $11)
     WHERE batch_id = $1 AND idx = $2 AND state = 'running'
     RETURNING EXISTS (SELECT 1 FROM batch_items o WHERE o.batch_id = $1 AND o.idx <> $2 AND o.state IN ('queued', 'running')) AS others`,
  cancelBatch: 'UPDATE batches SET cancelled_at = now() WHERE id = $1 AND cancelled_at IS NULL',
  cancelItems: `UPDATE batch_items SET state = 'cancelled', request = NULL, finished_at = now() WHERE batch_id = $1 AND state = 'queued' RETURNING idx`,
  completeIfDone: `UPDATE batches SET completed_at = now(), completed_sent = true
     WHERE id = $1 AND NOT completed_sent
       AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch_id = $1 AND state IN ('queued', 'running'))
     RETURNING id`,
  recordDelivery: 'INSERT INTO webhook_deliveries (batch_id, event_id, type, idx, attempt, status, outcome, error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
  expireResults: `WITH old AS (
       SELECT batch_id, idx, result FROM batch_items WHERE result IS NOT NULL AND expires_at < now() LIMIT $1 FOR UPDATE SKIP LOCKED
     ),
     gone AS (UPDATE batch_items i SET result = NULL FROM old WHERE i.batch_id = old.batch_id AND i.idx = old.idx)
     SELECT result FROM old`,
  // pg-boss's own table, read where its API has no call for it.
  queueExists: "SELECT to_regclass('pgboss.job') AS t",
  activeJobs: `SELECT id FROM pgboss.job WHERE name = $1 AND state = 'active'`,
  nextDue: `SELECT EXTRACT(EPOCH FROM min(start_after) - now()) AS wait FROM pgboss.job
     WHERE name = $1 AND state IN ('created', 'retry') AND start_after > now()`,
  queuePlaces: `SELECT (SELECT -max(j.priority) FROM pgboss.job j WHERE j.name = $1 AND j.state < 'active') AS head,
            (SELECT -min(j.priority) FROM pgboss.job j JOIN batches b ON b.id = j.data->>'batchId'
              WHERE j.name = $1 AND j.state < 'active' AND b.account_id = $2) AS line`,
} as const;

export type ItemState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export type BatchState = 'queued' | 'running' | 'done' | 'cancelled';

export interface BatchRow {
  id: string;
  account_id: string;
  key_id: string | null;
  total: number;
  webhook_url: string | null;
  created_at: Date;
  cancelled_at: Date | null;
  completed_at: Date | null;
}

export interface ItemRow {
  idx: number;
  state: ItemState;
  status: number | null;
  error: string | null;
  message: string | null;
  facts: CaptureFacts | null;
  result: string | null;
  content_type: string | null;
  charged: number;
  runs: number;
  queued_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date | null;
}

export interface DeliveryRow {
  event_id: string;
  type: string;
  idx: number | null;
  attempt: number;
  status: number | null;
  outcome: string;
  error: string | null;
  at: Date;
}

export async function insertBatch(
  q: Queryable,
  b: { id: string; accountId: string; keyId: string | null; webhookUrl: string | null; requests: unknown[] },
): Promise<void> {
  await q.query(SQL.insertBatch, [b.id, b.accountId, b.keyId, b.requests.length, b.webhookUrl]);
  await q.query(SQL.insertItems, [b.id, JSON.stringify(b.requests)]);
}

/** The batch if this account owns it; any other account sees nothing (404). */
export async function batchOf(q: Queryable, id: string, accountId: string): Promise<BatchRow | undefined> {
  const rows = await q.query<BatchRow & Record<string, unknown>>(SQL.batchOf, [id, accountId]);
  return rows[0] ? { ...rows[0], total: Number(rows[0].total) } : undefined;
}

function item(r: Record<string, unknown>): ItemRow {
  return {
    ...(r as unknown as ItemRow),
    idx: Number(r.idx),
    charged: Number(r.charged),
    runs: Number(r.runs),
    status: r.status == null ? null : Number(r.status),
  };
}

export async function itemsOf(q: Queryable, batchId: string): Promise<ItemRow[]> {
  return (await q.query(SQL.itemsOf, [batchId])).map(item);
}

export async function itemOf(q: Queryable, batchId: string, idx: number): Promise<ItemRow | undefined> {
  const rows = await q.query(SQL.itemOf, [batchId, idx]);
  return rows[0] ? item(rows[0]) : undefined;
}

export async function deliveriesOf(q: Queryable, batchId: string): Promise<DeliveryRow[]> {
  const rows = await q.query<DeliveryRow & Record<string, unknown>>(SQL.deliveriesOf, [batchId]);
  return rows.map((r) => ({ ...r, idx: r.idx == null ? null : Number(r.idx), attempt: Number(r.attempt), status: r.status == null ? null : Number(r.status) }));
}

export interface Claimed {
  request: unknown;
  accountId: string;
  keyId: string | null;
  queuedAt: Date;
  /** held: a credit reserved under the item's reservation id; paid: an earlier run was billed; none: no credit to hold. */
  credit: 'held' | 'paid' | 'none';
}

/**
 * Starts (or starts again, after a crash) an item that is not settled, and takes its credit, in
 * one statement: its request, the batch's account and what it holds, or undefined when it is
 * settled or cancelled (nothing to do, nothing reserved).
 */
export async function claimItem(q: Queryable, batchId: string, idx: number, reservationId: string, leaseSeconds: number): Promise<Claimed | undefined> {
  const rows = await q.query<{ request: unknown; account_id: string; key_id: string | null; queued_at: Date; spent: boolean; held: boolean }>(SQL.claimItem, [
    batchId,
    idx,
    reservationId,
    leaseSeconds,
  ]);
  const r = rows[0];
  if (!r) return undefined;
  return { request: r.request, accountId: r.account_id, keyId: r.key_id, queuedAt: r.queued_at, credit: r.spent ? 'paid' : r.held ? 'held' : 'none' };
}

/** Locks the batch's row for the caller's transaction (see lockBatch above): where its events go and whose secret signs them. */
export async function lockBatch(q: Queryable, batchId: string): Promise<{ url: string | null; keyId: string | null } | undefined> {
  const r = (await q.query<{ webhook_url: string | null; key_id: string | null }>(SQL.lockBatch, [batchId]))[0];
  return r && { url: r.webhook_url, keyId: r.key_id };
}

export interface Settlement {
  state: 'succeeded' | 'failed';
  status: number;
  error?: string;
  message?: string;
  facts?: CaptureFacts;
  result?: string;
  contentType?: string;
  charged: number;
  retentionSeconds: number;
}

/**
 * Settles a running item once; its request is dropped (an html request is kept no longer than its
 * render). Undefined when it was settled already (by another run); else whether other items of
 * the batch are still pending.
 */
export async function settleItem(q: Queryable, batchId: string, idx: number, s: Settlement): Promise<{ others: boolean } | undefined> {
  const rows = await q.query(SQL.settleItem, [
    batchId,
    idx,
    s.state,
    s.status,
    s.error ?? null,
    s.message ?? null,
    s.facts ? JSON.stringify(s.facts) : null,
    s.result ?? null,
    s.contentType ?? null,
    s.charged,
    s.retentionSeconds,
  ]);
  return rows[0] && { others: rows[0].others === true };
}

/** DELETE /v1/batches/{id}: items not started are cancelled (never billed). Returns how many. */
export async function cancelBatch(q: Queryable, batchId: string): Promise<number> {
  await q.query(SQL.cancelBatch, [batchId]);
  const rows = await q.query(SQL.cancelItems, [batchId]);
  return rows.length;
}

/**
 * Marks the batch complete when none of its items is pending, once: true for the one caller that
 * did it (it sends batch.completed).
 */
export async function completeIfDone(q: Queryable, batchId: string): Promise<boolean> {
  const rows = await q.query(SQL.completeIfDone, [batchId]);
  return rows.length > 0;
}

export async function recordDelivery(
  q: Queryable,
  d: { batchId: string; eventId: string; type: string; idx: number | null; attempt: number; status: number | null; outcome: string; error: string | null },
): Promise<void> {
  await q.query(SQL.recordDelivery, [d.batchId, d.eventId, d.type, d.idx, d.attempt, d.status, d.outcome, d.error]);
}

/** Items whose retention ended and whose picture is still stored: their keys, now forgotten. */
export async function expireResults(q: Queryable, limit = 500): Promise<string[]> {
  const rows = await q.query<{ result: string }>(SQL.expireResults, [limit]);
  return rows.map((r) => r.result);
}

/** How many items of the batch are in each state. */
export async function itemCounts(q: Queryable, batchId: string): Promise<(state: ItemState) => number> {
  const rows = await q.query<{ state: string; n: unknown }>(SQL.itemCounts, [batchId]);
  return (state) => Number(rows.find((c) => c.state === state)?.n ?? 0);
}

export async function isCancelled(q: Queryable, batchId: string): Promise<boolean> {
  return (await q.query(SQL.isCancelled, [batchId])).length > 0;
}

/** Where the batch's events go and whose secret signs them (no row: no batch). */
export async function webhookOf(q: Queryable, batchId: string): Promise<{ url: string | null; keyId: string | null } | undefined> {
  const r = (await q.query<{ webhook_url: string | null; key_id: string | null }>(SQL.webhookOf, [batchId]))[0];
  return r && { url: r.webhook_url, keyId: r.key_id };
}

/**
 * The queue's depth, what workers are scaled on: the item jobs in pg-boss's job table that wait
 * (created), wait for a retry (retry) or run (active: a worker busy with them is still needed).
 * One statement, written out whole, because the example KEDA ScaledObject
 * (deploy/keda-scaledobject.yaml) runs this very text against PostgreSQL and the gauge
 * screenshot_batch_items_pending runs it here; test/deploy/drift.test.ts holds the two equal.
 */
export const PENDING_ITEMS_SQL = `SELECT count(*) AS pending FROM pgboss.job WHERE name = '${ITEM_QUEUE}' AND state IN ('created', 'retry', 'active')`;

/** The queue's depth (PENDING_ITEMS_SQL); 0 before the first batch made the queue. */
export async function pendingItems(q: Queryable): Promise<number> {
  if (!(await queueExists(q))) return 0;
  return Number((await q.query<{ pending: unknown }>(PENDING_ITEMS_SQL))[0]?.pending ?? 0);
}

/** Whether pg-boss's schema is in the store (another replica, or an earlier start, made it). */
export async function queueExists(q: Queryable): Promise<boolean> {
  return (await q.query<{ t: unknown }>(SQL.queueExists))[0]?.t != null;
}

/** The ids of a queue's jobs that pg-boss holds as active. */
export async function activeJobs(q: Queryable, queue: string): Promise<string[]> {
  return (await q.query<{ id: string }>(SQL.activeJobs, [queue])).map((r) => r.id);
}

/** Seconds until the queue's next delayed job (a retry) may run; undefined when it has none. */
export async function nextDueSeconds(q: Queryable, queue: string): Promise<number | undefined> {
  const wait = (await q.query<{ wait: unknown }>(SQL.nextDue, [queue]))[0]?.wait;
  return wait == null ? undefined : Math.max(0, Number(wait));
}

/** The place the queue serves next (head) and the last place of this account's waiting items (line), from pg-boss's priorities. */
export async function queuePlaces(q: Queryable, queue: string, accountId: string): Promise<{ head: number; line: number }> {
  const r = (await q.query<{ head: unknown; line: unknown }>(SQL.queuePlaces, [queue, accountId]))[0];
  return { head: Number(r?.head ?? 0), line: Number(r?.line ?? 0) };
}

/** The batch's state from its items (GET /v1/batches/{id}). */
export function stateOf(b: BatchRow, items: readonly ItemRow[]): BatchState {
  if (b.cancelled_at) return 'cancelled';
  if (items.every((i) => i.state !== 'queued' && i.state !== 'running')) return 'done';
  return items.some((i) => i.state !== 'queued') ? 'running' : 'queued';
}
