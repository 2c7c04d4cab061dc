// Prometheus metrics for GET /metrics: what an operator and an autoscaler need (docs/operations.md
// "Running at scale"): queue depth and renders in flight (scale on these), rejections by reason,
// browser restarts and renders per browser, per-step latency (queue wait included), cache results.
import type { EventEmitter } from 'node:events';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Refusal } from './admission/index.ts';
import type { StepTiming } from './toolkit/step-names.ts';

export interface Metrics {
  registry: Registry;
  renderSeconds: Histogram<'outcome'>;
  outcomes: Counter<'code'>;
  /** Requests refused before rendering: queue_full, queue_wait, shutting_down (pool), connection_limit (server/http/connections.ts), rate_limited, insufficient_credits. */
  rejections: Counter<'reason'>;
  /** Result cache lookups of url-mode requests: hit, miss, joined (waited for an identical render: single flight). */
  cache: Counter<'result'>;
  /** Observes the durations of one render's steps, labelled with their names (STEP_LABELS, server/render/pipeline.ts). */
  observeSteps(timings: ReadonlyArray<StepTiming>): void;
}

/**
 * What the pool reports as it works (server/pool/index.ts); written here, where it is read, so that the metrics sit below the pool:
 *   'admitted'         (waitedMs)                  a render got its permit after waiting this long
 *   'rejected'         (reason)                    a render was refused before it started: queue full,
 *                                                 queue too long for the budget (queue_wait), shutting down
 *   'browser-retired'  ({ reason, renders })       a browser left service: 'crashed' or 'recycled'
 */
export interface PoolEvents {
  admitted: [waitedMs: number];
  rejected: [reason: Refusal];
  'browser-retired': [{ reason: 'crashed' | 'recycled'; renders: number }];
}

export interface PoolView extends EventEmitter<PoolEvents> {
  readonly queueDepth: number;
  readonly inFlight: number;
  readonly warmSlots: number;
  readonly saturated: boolean;
}

export function createMetrics(pool: PoolView, opts: { concurrency: number; queueLimit: number; draining?: () => boolean }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const renderSeconds = new Histogram({
    name: 'screenshot_render_seconds',
    help: 'Time from the start of a render to its result, by outcome (ok, wait_timed_out for a capture cut short by captureOnTimeout, or the error code)',
    labelNames: ['outcome'],
    buckets: [0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20],
    registers: [registry],
  });
  const outcomes = new Counter({
    name: 'screenshot_requests_total',
    help: 'POST /v1/screenshot responses by outcome (ok or error code)',
    labelNames: ['code'],
    registers: [registry],
  });
  const rejections = new Counter({
    name: 'screenshot_rejections_total',
    help: 'Requests refused before rendering, by reason (queue_full, queue_wait (no slot in time for the budget), shutting_down, connection_limit (connections per client address), rate_limited, insufficient_credits)',
    labelNames: ['reason'],
    registers: [registry],
  });
  const cache = new Counter({
    name: 'screenshot_cache_requests_total',
    help: 'Result cache lookups (url mode): hit, miss, joined (served by an identical render in flight)',
    labelNames: ['result'],
    registers: [registry],
  });
  const steps = new Histogram({
    name: 'screenshot_step_seconds',
    help: 'Duration of each render step, named as the pipeline names it; "queue" is the wait for a render slot',
    labelNames: ['step'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20],
    registers: [registry],
  });
  const restarts = new Counter({
    name: 'screenshot_browser_restarts_total',
    help: 'Browsers replaced, by reason (crashed: died or hung; recycled: after BROWSER_RECYCLE_AFTER renders)',
    labelNames: ['reason'],
    registers: [registry],
  });
  const rendersPerBrowser = new Histogram({
    name: 'screenshot_browser_renders',
    help: 'Renders a browser served before it was replaced',
    buckets: [1, 10, 50, 100, 250, 500, 1000, 5000],
    registers: [registry],
  });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('screenshot_queue_depth', 'Renders waiting for a slot', () => pool.queueDepth);
  gauge('screenshot_renders_in_flight', 'Renders running now', () => pool.inFlight);
  gauge('screenshot_pool_warm_slots', 'Isolated contexts prepared ahead of demand', () => pool.warmSlots);
  gauge('screenshot_render_slots', 'Renders this replica runs at once (RENDER_CONCURRENCY)', () => opts.concurrency);
  gauge('screenshot_queue_limit', 'Renders that may wait for a slot before 503 (QUEUE_LIMIT)', () => opts.queueLimit);
  gauge('screenshot_saturated', '1 when a new render would be refused now (every slot busy, queue full)', () => (pool.saturated ? 1 : 0));
  gauge('screenshot_draining', '1 once SIGTERM was received: /readyz answers 503 until the process exits', () => (opts.draining?.() ? 1 : 0));

  pool.on('admitted', (ms) => steps.observe({ step: 'queue' }, ms / 1000));
  pool.on('rejected', (reason) => rejections.inc({ reason }));
  pool.on('browser-retired', ({ reason, renders }) => {
    restarts.inc({ reason });
    rendersPerBrowser.observe(renders);
  });

  return {
    registry,
    renderSeconds,
    outcomes,
    rejections,
    cache,
    observeSteps(timings) {
      // The names are a closed set (bounded cardinality); the description never becomes a label.
      for (const { step, ms } of timings) steps.observe({ step }, ms / 1000);
    },
  };
}
