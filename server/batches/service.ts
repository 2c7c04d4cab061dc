// The batches as operations of an account, shared by the REST routes (routes.ts) and the MCP tools
// (server/mcp/batch-tools.ts): submit, read, cancel, an item's picture; and the caller's webhook
// signing secret.
// Only the key's account that made a batch sees it: any other gets not_found, as for a batch that
// does not exist. Credits: a batch is refused up front (402) when the key's spendable credits
// cannot cover every item; an item that finds them spent meanwhile fails with insufficient_credits.
import { randomBytes } from 'node:crypto';
import type { Account } from '../accounts/index.ts';
import type { PgBoss } from 'pg-boss';
import type { SqlLedger } from '../accounts/ledger.ts';
import { badRequest, ServiceError } from '../errors.ts';
import { jsonFacts } from '../response/write.ts';
import type { ResultStore } from '../results/store.ts';
import type { Db } from '../store/index.ts';
import { currentCarrier } from '../telemetry/carrier.ts';
import { fairStart, inTx, ITEM_QUEUE, jobIdOf } from './queue.ts';
import type { Runner } from './runner.ts';
import { webhookSecretFor } from '../webhooks/secrets.ts';
import { batchOf, cancelBatch, deliveriesOf, insertBatch, itemOf, itemsOf, stateOf, type BatchRow, type ItemRow } from './sql.ts';
import { batchItemPath, batchPath, validateBatch } from './validate.ts';

export interface ServiceDeps {
  db: Db;
  accounts: SqlLedger;
  /** The queue and its workers, started on first use (index.ts). */
  queue(): Promise<{ boss: PgBoss; runner: Runner }>;
  results: ResultStore;
  checkUrl(url: string): Promise<string>;
  /** WEBHOOK_SECRET, from which the API_KEYS keys' webhook secrets are derived. */
  webhookSecret: string | null;
}

function itemJson(batchId: string, i: ItemRow) {
  return {
    index: i.idx,
    state: i.state,
    ...(i.status !== null ? { status: i.status } : {}),
    ...(i.error ? { error: i.error, message: i.message } : {}),
    ...(i.facts ? { facts: jsonFacts(i.facts) } : {}),
    credits: i.charged,
    runs: i.runs,
    ...(i.state === 'succeeded' ? { link: batchItemPath(batchId, i.idx), expiresAt: i.expires_at } : {}),
  };
}

async function batchJson(db: Db, b: BatchRow) {
  const items = await itemsOf(db, b.id);
  const count = (...s: string[]) => items.filter((i) => s.includes(i.state)).length;
  const deliveries = b.webhook_url ? await deliveriesOf(db, b.id) : [];
  return {
    id: b.id,
    state: stateOf(b, items),
    createdAt: b.created_at,
    ...(b.completed_at ? { completedAt: b.completed_at } : {}),
    counts: { total: b.total, succeeded: count('succeeded'), failed: count('failed'), cancelled: count('cancelled'), pending: count('queued', 'running') },
    items: items.map((i) => itemJson(b.id, i)),
    ...(b.webhook_url ? { webhook: { url: b.webhook_url, deliveries } } : {}),
  };
}

/** A batch as GET /v1/batches/{id} answers it. */
export type BatchJson = Awaited<ReturnType<typeof batchJson>>;

export function createBatchService(deps: ServiceDeps) {
  const owned = async (account: Account, id: string): Promise<BatchRow> => {
    const b = /^bat_[A-Za-z0-9_-]{1,64}$/.test(id) ? await batchOf(deps.db, id, account.id) : undefined;
    if (!b) throw new ServiceError('not_found', 'no such batch for this key');
    return b;
  };
  return {
    /** Validates and queues a batch, all or nothing. */
    async submit(account: Account, input: unknown) {
      const body = validateBatch(input);
      if (body.webhook) {
        // The same guard as a capture's target, now; and again at every delivery (runner.ts).
        await deps.checkUrl(body.webhook.url).catch((e: unknown) => {
          throw e instanceof ServiceError ? badRequest(`webhook.url is not allowed: ${e.message}`) : e;
        });
      }
      await deps.accounts.checkRateLimit(account); // a batch counts as one request
      const spendable = await deps.accounts.balance(account);
      if (spendable < body.requests.length)
        throw new ServiceError('insufficient_credits', `this batch needs up to ${body.requests.length} credits and the key has ${spendable} to spend`);
      const id = `bat_${randomBytes(12).toString('base64url')}`;
      const { boss } = await deps.queue();
      // Each item's spans continue this request's trace, wherever and whenever the item runs.
      const trace = currentCarrier();
      await deps.db.tx(async (q) => {
        await insertBatch(q, { id, accountId: account.id, keyId: account.keyId ?? null, webhookUrl: body.webhook?.url ?? null, requests: body.requests });
        const start = await fairStart(q, account.id);
        const jobs = body.requests.map((_, idx) => ({
          id: jobIdOf(`item_${id}_${idx}`),
          data: { batchId: id, idx, trace },
          priority: -(start + idx + 1),
        }));
        await boss.insert(ITEM_QUEUE, jobs, { db: inTx(q) });
      });
      return { id, state: 'queued' as const, total: body.requests.length, link: batchPath(id) };
    },
    async read(account: Account, id: string): Promise<BatchJson> {
      return batchJson(deps.db, await owned(account, id));
    },
    /** Cancels the items not started (never billed); the batch after it. */
    async cancel(account: Account, id: string): Promise<BatchJson> {
      const b = await owned(account, id);
      if (!b.cancelled_at && !b.completed_at) await cancelBatch(deps.db, b.id);
      await (await deps.queue()).runner.finishIfDone(b.id);
      return batchJson(deps.db, (await batchOf(deps.db, b.id, b.account_id))!);
    },
    /** An item's stored picture and its capture facts (404 until it succeeded, 410 after its retention). */
    async picture(account: Account, id: string, index: string) {
      const b = await owned(account, id);
      const idx = /^\d{1,4}$/.test(index) ? Number(index) : -1;
      const item = idx >= 0 ? await itemOf(deps.db, b.id, idx) : undefined;
      if (!item) throw new ServiceError('not_found', `the batch has no item ${index.slice(0, 8)} (items are 0 to ${b.total - 1})`);
      if (item.state !== 'succeeded' || !item.facts) throw new ServiceError('not_found', `item ${idx} has no picture: it is ${item.state}`);
      if (item.expires_at && item.expires_at.getTime() < Date.now())
        throw new ServiceError('result_expired', `item ${idx}'s picture was kept until ${item.expires_at.toISOString()}`);
      const stored = item.result ? await deps.results.get(item.result) : undefined;
      if (!stored) throw new ServiceError('result_expired', `item ${idx}'s picture is no longer kept`);
      return { body: stored.body, contentType: stored.contentType, facts: item.facts };
    },
    /** The secret that signs the webhooks of the calling key's batches: its own, never another key's. */
    async webhookSecret(account: Account) {
      if (!account.keyId) throw new ServiceError('not_found', 'this key has no webhook secret');
      return { keyId: account.keyId, secret: await webhookSecretFor(deps.db, account.keyId, deps.webhookSecret) };
    },
  };
}

export type BatchService = ReturnType<typeof createBatchService>;
