// Wiring of the worker role: startWorker(), the batch items' process (server/worker.ts,
// `npm run worker`; `npm start` starts one beside its API process). It takes items and webhook
// deliveries from the queue, renders in a browser of its own, writes the results, settles, bills
// and delivers; it answers no HTTP but, with WORKER_METRICS_PORT, GET /metrics. The API process (start.ts) only accepts, queues and answers.
import { getPriority } from 'node:os';
import { startConfiguredBatches } from './batches/from-config.ts';
import { batchSlots } from './batches/index.ts';
import type { RetrySchedule } from './batches/queue.ts';
import { startCaptureCore, type CoreOverrides } from './capture-core.ts';
import type { Config } from './config.ts';
import { listenForMetrics } from './http/metrics-listener.ts';
import type { Logger } from './log.ts';

export interface WorkerOverrides extends CoreOverrides {
  webhookRetries?: RetrySchedule;
}

export interface RunningWorker {
  log: Logger;
  /** Where GET /metrics is served (WORKER_METRICS_PORT); undefined when it is not. */
  metricsUrl?: string;
  metricsPort?: number;
  /** Stops taking items; those running finish (or run again after a restart); closes Chromium and the store. */
  close(): Promise<void>;
}

export async function startWorker(config: Config, overrides: WorkerOverrides = {}): Promise<RunningWorker> {
  const slots = batchSlots(config.renderConcurrency, config.batches.slotSharePercent);
  // Started under `nice` (npm start does), the whole process and its browser already run at
  // BATCH_NICENESS; started at a higher priority, its browser at least is niced.
  const niced = getPriority() >= config.batches.niceness;
  const core = await startCaptureCore(config, overrides, {
    concurrency: slots,
    background: { niceness: niced ? 0 : config.batches.niceness, concurrency: slots },
    draining: () => false,
    // Keys are the API's business: a worker given another API_KEYS list (or none) must not revoke
    // the keys the API replicas were started with.
    syncEnvKeys: false,
  });
  const { log, telemetry, guard, accounts, pool, metrics } = core;
  const batches = await startConfiguredBatches(config, core, {
    registry: metrics.registry,
    webhookRetries: overrides.webhookRetries,
    runItems: true,
  });
  const stop = async () => {
    await batches.close();
    await pool.close();
    await accounts.close();
    await guard.close();
    await telemetry.shutdown(); // the item spans still queued are exported
  };
  const listener =
    config.workerMetricsPort === null
      ? undefined
      : await listenForMetrics(metrics.registry, config.host, config.workerMetricsPort).catch(async (e: unknown) => {
          await stop(); // a port taken: nothing of this start is left running
          throw e;
        });
  let closing: Promise<void> | undefined;
  return {
    log,
    metricsUrl: listener?.url,
    metricsPort: listener?.port,
    close: () =>
      (closing ??= (async () => {
        await stop();
        await listener?.close(); // last: a scrape while items finish still sees them
      })()),
  };
}
