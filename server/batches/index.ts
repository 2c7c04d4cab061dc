// Batches of captures (POST /v1/batches): the durable queue (queue.ts, pg-boss in the store), its
// workers on this replica (runner.ts), the routes (routes.ts). Batch items take at most
// BATCH_SLOT_SHARE of this replica's render slots, and a slot only when no synchronous capture
// waits for one (server/admission: acquireBackground).
import type { Registry } from 'prom-client';
import type { SqlLedger } from '../accounts/ledger.ts';
import type { BatchConfig } from '../config.ts';
import type { PinnedUrl } from '../egress/index.ts';
import type { Logger } from '../log.ts';
import { openResults } from '../results/index.ts';
import type { CaptureService } from '../service.ts';
import { batchMetrics } from './metrics.ts';
import { ITEM_QUEUE, openQueue, WEBHOOK_QUEUE, WEBHOOK_RETRIES, type RetrySchedule } from './queue.ts';
import { batchRoutes } from './routes.ts';
import { createBatchService } from './service.ts';
import type { PgBoss } from 'pg-boss';
import { createRunner, type EventJob, type ItemJob, type Runner } from './runner.ts';
import { expireResults, pendingItems, queueExists } from './sql.ts';
import { startQueueWorkers, type QueueWorkers } from './workers.ts';

export interface BatchesDeps {
  config: BatchConfig;
  dataDir: string;
  databaseUrl: string | null;
  renderConcurrency: number;
  accounts: SqlLedger;
  capture: CaptureService;
  pinUrl(url: string): Promise<PinnedUrl>;
  checkUrl(url: string): Promise<string>;
  registry: Registry;
  log: Logger;
  /** Tests shorten the webhook retry schedule. */
  webhookRetries?: RetrySchedule;
  /**
   * This process takes items and webhook deliveries from the queue (a worker, or an API process
   * with RUN_BATCHES=inline); otherwise it only accepts, queues and answers (server/worker.ts runs them).
   */
  runItems: boolean;
}

/** How many batch items this replica runs at once: its share of the slots, at least one. */
export const batchSlots = (concurrency: number, sharePercent: number) => Math.max(1, Math.floor((concurrency * sharePercent) / 100));

export async function startBatches(deps: BatchesDeps) {
  const db = deps.accounts.db;
  const results = openResults(deps.config.results, deps.dataDir);
  const metrics = batchMetrics(deps.registry, () => pendingItems(db));
  const slots = batchSlots(deps.renderConcurrency, deps.config.slotSharePercent);

  // The queue starts with the first batch of the store, not with the server: installing pg-boss's
  // schema costs seconds that a server never asked for a batch need not pay. A replica whose
  // store has the queue already (another replica made it, or an earlier start) starts it at once,
  // or as soon as its check (every QUEUE_CHECK_MS) finds it.
  let queue: Promise<Queue> | undefined;
  let closing = false;
  const ensureQueue = (): Promise<Queue> =>
    (queue ??= openWorkers().catch((e: unknown) => {
      queue = undefined;
      throw e;
    }));
  async function openWorkers(): Promise<Queue> {
    const retries = deps.webhookRetries ?? { ...WEBHOOK_RETRIES, delaySeconds: deps.config.webhookRetrySeconds };
    const boss = await openQueue(db, deps.databaseUrl, retries, deps.runItems, (e) => deps.log.warn({ err: e }, 'batch queue error'));
    const delivery: { workers?: QueueWorkers } = {};
    const runner = createRunner(
      { ...deps, db, boss, results, metrics, retentionSeconds: deps.config.retentionSeconds, webhookSecret: deps.config.webhookSecret },
      // The events an item settles here are delivered here, at once.
      { eventsQueued: () => delivery.workers?.wake() },
    );
    if (!deps.runItems) return { boss, runner };
    const poll = { pollSeconds: deps.config.pollSeconds };
    const items = await startQueueWorkers<ItemJob>(boss, db, ITEM_QUEUE, { ...poll, concurrency: slots }, (j) =>
      runner.runItem(j.data, j.retryCount >= j.retryLimit),
    );
    const hooks = await startQueueWorkers<EventJob>(boss, db, WEBHOOK_QUEUE, { ...poll, concurrency: 4 }, (j) =>
      runner.deliver(j.data, j.retryCount + 1, j.retryCount >= j.retryLimit),
    );
    delivery.workers = hooks;
    workers = [items, hooks];
    // Retries left waiting by an earlier run of this process (or another replica's) run when due.
    for (const w of workers) await w.wakeWhenDue();
    return { boss, runner };
  }
  let workers: QueueWorkers[] = [];
  if (await queueExists(db)) await ensureQueue();
  const check = setInterval(() => {
    if (queue || closing) return;
    void queueExists(db)
      .then((yes) => (yes && !closing ? ensureQueue() : undefined))
      .catch((e) => deps.log.warn({ err: e }, 'starting the batch queue failed'));
  }, QUEUE_CHECK_MS);
  check.unref();

  // Pictures past their retention are deleted (GET answers 410 from the item's expiry already).
  const sweep = setInterval(() => {
    if (!deps.runItems) return; // the processes that run items keep the results
    void (async () => {
      for (const key of await expireResults(db)) await results.delete(key);
    })().catch((e) => deps.log.warn({ err: e }, 'deleting expired batch results failed'));
  }, 60_000);
  sweep.unref();
  const service = createBatchService({
    db,
    accounts: deps.accounts,
    queue: ensureQueue,
    results,
    checkUrl: deps.checkUrl,
    webhookSecret: deps.config.webhookSecret,
  });
  return {
    /** The routes' handlers, rows of the route table (server/http/app.ts). */
    routes: batchRoutes(service),
    /** The same operations for the MCP tools (server/mcp/batch-tools.ts). */
    service,
    /** Stops taking items (those running finish or run again elsewhere), then closes the queue. */
    async close() {
      closing = true;
      for (const w of workers) w.close();
      clearInterval(sweep);
      clearInterval(check);
      const q = await queue?.catch(() => undefined);
      await q?.boss.stop({ graceful: true, timeout: 20_000 }).catch((e) => deps.log.warn({ err: e }, 'stopping the batch queue failed'));
      await results.close();
    },
  };
}

/** How often a replica without the queue checks whether the store has one now. */
export const QUEUE_CHECK_MS = 5000;

export interface Queue {
  boss: PgBoss;
  runner: Runner;
}

export type Batches = Awaited<ReturnType<typeof startBatches>>;
