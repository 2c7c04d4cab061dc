// What a log line carries of the trace it was written in (a pino mixin, server/log.ts): the ids an
// operator pastes into the tracing backend to find the request, step or batch item the line is about.
import { trace } from '@opentelemetry/api';
import { tracingOn } from './spans.ts';

// A fresh object each time: pino merges the line's own fields into it.
export function traceFields(): { trace_id?: string; span_id?: string } {
  if (!tracingOn()) return {};
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && trace.isSpanContextValid(ctx) ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
}
