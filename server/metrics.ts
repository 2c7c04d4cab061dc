// Prometheus metrics for GET /metrics: render latency, queue depth, pool size, outcomes by code.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  renderSeconds: Histogram<'outcome'>;
  outcomes: Counter<'code'>;
}

export function createMetrics(pool: { queueDepth: number; inFlight: number; warmSlots: number }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const renderSeconds = new Histogram({
    name: 'screenshot_render_seconds',
    help: 'Time from the start of a render to its result, by outcome (ok or error code)',
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
  new Gauge({ name: 'screenshot_queue_depth', help: 'Renders waiting for a slot', registers: [registry], collect() { this.set(pool.queueDepth); } });
  new Gauge({ name: 'screenshot_renders_in_flight', help: 'Renders running now', registers: [registry], collect() { this.set(pool.inFlight); } });
  new Gauge({ name: 'screenshot_pool_warm_slots', help: 'Isolated contexts prepared ahead of demand', registers: [registry], collect() { this.set(pool.warmSlots); } });
  return { registry, renderSeconds, outcomes };
}
