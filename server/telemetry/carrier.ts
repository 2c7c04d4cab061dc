// The trace context as data (W3C Trace Context: the `traceparent` and `tracestate` values), for
// work that leaves this process's async context: a batch item's job and a webhook's event job carry
// it through the queue (in the job's data, so that it survives a crash, a retry, another replica
// or a worker process), and a webhook delivery sends it as HTTP headers. The propagator (./sdk.ts)
// spells the header names; with tracing off the carrier is empty and nothing is added.
import { context, propagation, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { tracingOn } from './spans.ts';

/** `traceparent` (and `tracestate`) of the active span; undefined when there is none. */
export type TraceCarrier = Record<string, string>;

export function currentCarrier(ctx: Context = context.active()): TraceCarrier | undefined {
  if (!tracingOn()) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(ctx, carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** The context a carrier names (the root context when it names none), the parent of what continues the trace. */
export function contextOf(carrier: Readonly<Record<string, unknown>> | undefined): Context {
  if (!tracingOn() || !carrier) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, {
    keys: (c) => Object.keys(c),
    get: (c, k) => (typeof c[k] === 'string' ? c[k] : undefined),
  });
}
