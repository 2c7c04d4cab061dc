// The batches' metrics, on the server's registry (GET /metrics): the queue's depth, how long items
// wait and run, webhook deliveries by outcome.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface BatchMetrics {
  /** Items this replica has claimed and not yet settled. */
  running: Gauge;
  itemWait: Histogram;
  itemRun: Histogram<'outcome'>;
  deliveries: Counter<'outcome'>;
}

export function batchMetrics(registry: Registry, queueDepth: () => Promise<number>): BatchMetrics {
  new Gauge({
    name: 'screenshot_batch_items_pending',
    help: "Batch items queued, waiting for a retry or running, in every batch of the store: the queue's depth, what workers scale on (the query of deploy/keda-scaledobject.yaml)",
    registers: [registry],
    async collect() {
      this.set(await queueDepth().catch(() => Number.NaN));
    },
  });
  return {
    running: new Gauge({
      name: 'screenshot_batch_items_running',
      help: 'Batch items this replica runs now: claimed, not yet settled (their render, picture, bill and event)',
      registers: [registry],
    }),
    itemWait: new Histogram({
      name: 'screenshot_batch_item_wait_seconds',
      help: 'Time from a batch submission to the start of its item (the last start, after a crash)',
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers: [registry],
    }),
    itemRun: new Histogram({
      name: 'screenshot_batch_item_run_seconds',
      help: 'Time one batch item took to run, by outcome (succeeded, failed)',
      labelNames: ['outcome'],
      buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 40],
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'screenshot_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered, failed (tried again), gave_up, blocked (the egress guard refused the address)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}
