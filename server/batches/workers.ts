// The workers of one queue on this process, which wait to be woken instead of polling: a worker
// with nothing to do costs a fetch every `pollSeconds` (the fallback, slow), not every half second.
// They fetch at once when
//   woken         by the process that queued the job, when it is this one (wake()), or through
//                 the store's LISTEN/NOTIFY for a queue whose inserts notify (openQueue)
//   done          a worker that finished a job fetches again: more may be waiting
//   a retry is due  a job that failed here is tried again after pg-boss's backoff: the workers
//                 wake when it is due at the latest, and at start for the queue's next due job
// What they miss (a job queued by another process on a queue without notifications, a retry
// failed on another replica) waits for the fallback poll.
import type { JobWithMetadata, PgBoss } from 'pg-boss';
import type { Queryable } from '../store/index.ts';
import { nextDueSeconds } from './sql.ts';

export interface QueueWorkers {
  /** A job was queued: one idle worker fetches now (all busy: the first to finish fetches anyway). */
  wake(): void;
  /** Wakes the workers when the queue's next delayed job is due (a retry), once. */
  wakeWhenDue(): Promise<void>;
  /** Stops the timers (pg-boss's stop() stops the workers). */
  close(): void;
}

export interface WorkerOptions {
  concurrency: number;
  pollSeconds: number;
}

/** Margin after a retry's computed due time: the store's clock decides, and a fetch a moment early finds nothing. */
const DUE_MARGIN_MS = 250;

export async function startQueueWorkers<T>(
  boss: PgBoss,
  db: Queryable,
  queue: string,
  opts: WorkerOptions,
  handle: (job: JobWithMetadata<T>) => Promise<void>,
): Promise<QueueWorkers> {
  const idle = new Set<string>();
  let dueTimer: { at: number; timer: NodeJS.Timeout } | undefined;
  let closed = false;
  const wakeAll = () => {
    for (const id of idle) boss.notifyWorker(id);
  };
  /** Wakes the workers `ms` from now, unless a wake-up is set earlier already. */
  const wakeIn = (ms: number) => {
    const at = Date.now() + ms;
    if (closed || (dueTimer && dueTimer.at <= at)) return;
    if (dueTimer) clearTimeout(dueTimer.timer);
    const timer = setTimeout(() => {
      dueTimer = undefined;
      wakeAll();
      void wakeWhenDue().catch(() => {}); // the next one; the fallback poll covers a failure
    }, ms);
    timer.unref();
    dueTimer = { at, timer };
  };
  async function wakeWhenDue() {
    const s = await nextDueSeconds(db, queue);
    if (s !== undefined) wakeIn(s * 1000 + DUE_MARGIN_MS);
  }

  // One work() per worker (localConcurrency 1 each), so that each knows its own id to wake.
  for (let i = 0; i < opts.concurrency; i++) {
    let self = '';
    self = await boss.work(
      queue,
      { pollingIntervalSeconds: opts.pollSeconds, notifyPollingIntervalSeconds: opts.pollSeconds, includeMetadata: true },
      async ([job]) => {
        const j = job as unknown as JobWithMetadata<T>;
        idle.delete(self);
        try {
          await handle(j);
        } catch (e) {
          if (j.retryCount < j.retryLimit) wakeIn(latestRetrySeconds(j) * 1000 + DUE_MARGIN_MS);
          throw e;
        } finally {
          idle.add(self);
          boss.notifyWorker(self); // fetch again at once: more may be waiting
        }
      },
    );
    idle.add(self);
  }
  return {
    wake() {
      const [first] = idle;
      if (first) boss.notifyWorker(first);
    },
    wakeWhenDue,
    close() {
      closed = true;
      if (dueTimer) clearTimeout(dueTimer.timer);
    },
  };
}

/**
 * The latest a failed job is tried again, by pg-boss's schedule (plans.ts, failJobs): a fixed
 * delay, or with backoff delay * 2^(n+1) / 2 * (1 + random) for the n-th retry, capped.
 */
export function latestRetrySeconds(j: Pick<JobWithMetadata, 'retryCount' | 'retryDelay' | 'retryBackoff' | 'retryDelayMax'>): number {
  if (!j.retryBackoff) return j.retryDelay;
  const s = Math.max(j.retryDelay, 1) * 2 ** Math.min(16, j.retryCount + 1);
  return j.retryDelayMax == null ? s : Math.min(j.retryDelayMax, s);
}
