// The durable queue of batch work: pg-boss, in its own schema (`pgboss`) of the one store. On the
// embedded store it runs on the server's own PGlite instance (pg-boss's `pglite` backend); on
// PostgreSQL every replica shares it, so any replica works any item. Two queues:
//   batch-item      one job per item; a replica that dies mid-item stops sending its heartbeat and
//                   the job runs again elsewhere (HEARTBEAT_SECONDS); items are taken in the
//                   order of their places in their key's line (fairStart): one key's 1,000
//                   items, in one batch or many, do not hold another key's batch back.
//   batch-webhook   one job per event; retried with exponential backoff for a bounded time.
import { createHash } from 'node:crypto';
import { PgBoss, fromPglite, type PGliteLike } from 'pg-boss';
import type { Db, Queryable } from '../store/index.ts';
import { activeJobs, queuePlaces } from './sql.ts';

export { ITEM_QUEUE, WEBHOOK_QUEUE } from './queue-names.ts';
import { ITEM_QUEUE, WEBHOOK_QUEUE } from './queue-names.ts';
/** pg-boss's smallest: a replica killed mid-item has its item run again about this long after. */
export const HEARTBEAT_SECONDS = 10;

export interface RetrySchedule {
  /** First retry after this many seconds, then doubling (with jitter) up to maxDelaySeconds. */
  delaySeconds: number;
  maxDelaySeconds: number;
  /** Retries after the first attempt. */
  limit: number;
}

/**
 * Webhook retries: 5 s (WEBHOOK_RETRY_SECONDS), 10 s, 20 s ... capped at 15 min, 12 retries: about 1.5 hours of trying
 * (the receiver may be restarting or deploying), then the event is given up and says so in the batch.
 */
export const WEBHOOK_RETRIES: RetrySchedule = { delaySeconds: 5, maxDelaySeconds: 900, limit: 12 };

/**
 * pg-boss on the store. `runsItems`: this process works the queues (the worker role, or an API
 * process running items inline) and keeps them (maintenance); a process that only queues (an API
 * process beside workers) does neither.
 */
export async function openQueue(
  db: Db,
  databaseUrl: string | null,
  webhookRetries: RetrySchedule,
  runsItems: boolean,
  onError: (e: unknown) => void,
): Promise<PgBoss> {
  // A process that works the queues listens for the item queue's notifications (below): a batch
  // queued by another process (the API beside it, another replica) wakes its workers at once.
  const common = {
    supervise: runsItems,
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
    schedule: false,
    useListenNotify: runsItems,
    openTelemetry: { enabled: false },
  } as const;
  const boss =
    db.kind !== 'postgres'
      ? new PgBoss({ ...common, db: fromPglite(db.pglite as PGliteLike), backend: 'pglite' })
      : new PgBoss({ ...common, connectionString: databaseUrl!, max: 4, application_name: 'screenshot-batches' });
  boss.on('error', onError);
  await boss.start();
  // Both queues have a heartbeat: a replica killed while it delivers an event, as while it renders
  // an item, leaves a job that runs again elsewhere about HEARTBEAT_SECONDS later (without one, a
  // delivery in flight at the kill waited for pg-boss's 15-minute expiry).
  const queues = {
    // notify: its inserts NOTIFY (pg-boss's pg_notify in the inserting transaction), since items
    // are queued by the API process and run by workers elsewhere. The webhook queue's events are
    // queued by the process that delivers them, which wakes its own workers (workers.ts).
    [ITEM_QUEUE]: { retryLimit: 20, retryDelay: 2, retryBackoff: true, retryDelayMax: 60, heartbeatSeconds: HEARTBEAT_SECONDS, notify: true },
    [WEBHOOK_QUEUE]: {
      retryLimit: webhookRetries.limit,
      retryDelay: webhookRetries.delaySeconds,
      retryBackoff: true,
      retryDelayMax: webhookRetries.maxDelaySeconds,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
  };
  for (const [name, options] of Object.entries(queues)) {
    await boss.createQueue(name, options);
    // createQueue leaves a queue that exists as it was: the settings of this start (a changed
    // WEBHOOK_RETRY_SECONDS, a heartbeat added since) reach a store made earlier through updateQueue.
    await boss.updateQueue(name, options);
  }
  if (db.kind !== 'postgres' && runsItems) {
    // The embedded store has one process that runs items (this one): a job active in it was left
    // by a process that died. It is failed now (and so retried) rather than after its heartbeat
    // times out.
    for (const name of Object.keys(queues)) {
      const left = await activeJobs(db, name);
      if (left.length) await boss.fail(name, left, { reason: 'the process running it stopped' });
    }
  }
  return boss;
}

/**
 * Where a new batch of this account starts in the queue, so that keys take turns item by item
 * (start-time fair queueing on pg-boss's priority, which it takes highest first): an item's place
 * is its rank in its key's line, counted from the place the queue serves now. A key's items go
 * behind its items still waiting (in any of its batches); a key with none waiting starts at the
 * queue's head, beside the others' next items, instead of behind all of them. Item idx of the
 * batch gets priority -(start + idx + 1). Ties go to the earlier submission (pg-boss's next order).
 * A retried item keeps its place, ahead of those after it.
 */
export async function fairStart(q: Queryable, accountId: string): Promise<number> {
  const places = await queuePlaces(q, ITEM_QUEUE, accountId);
  // The head is the place of the next item waiting: a key joining waits for it, no more.
  const head = Math.max(0, places.head - 1);
  return Math.max(head, places.line);
}

/** A pg-boss job id (a UUID) made from a name: sending the same event twice queues it once. */
export function jobIdOf(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** pg-boss's statements inside one of the store's transactions (its `db` option): written with the caller's rows, or not at all. */
export const inTx = (q: Queryable) => ({ executeSql: async (text: string, values?: unknown[]) => ({ rows: await q.query(text, values ?? []) }) });
