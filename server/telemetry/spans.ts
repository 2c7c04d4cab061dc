// Span helpers for the rest of the server, on the OpenTelemetry API alone. Until the SDK is started
// (./sdk.ts, only when an OTLP endpoint is configured) the API's tracer is its no-op one, no
// context manager is registered and every helper here runs its work directly: tracing off costs a
// boolean test per call.
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type TimeInput } from '@opentelemetry/api';
import { ServiceError } from '../errors.ts';
import { ATTR } from './attributes.ts';

let on = false;
let current = trace.getTracer('screenshot-service');

/** Called by ./sdk.ts once the SDK's provider, context manager and propagator are registered (and when they are gone). */
export function markTracingOn(value: boolean): void {
  on = value;
  current = trace.getTracer('screenshot-service'); // the provider registered now (a tracer keeps the provider it came from)
}

/** The tracer of the provider in service. */
export const tracer = () => current;

/** True when the SDK is running (OTEL_EXPORTER_OTLP_*ENDPOINT set). */
export const tracingOn = (): boolean => on;

/** The span of this async context when it records (tracing on and sampled), else undefined. */
export function recordingSpan(): Span | undefined {
  if (!on) return undefined;
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
}

/** The error's code (the catalogue's, server/errors.ts) on a failed span; never its message, which may name what the caller sent. */
export function failSpan(span: Span, e: unknown): void {
  spanError(span, e instanceof ServiceError ? e.code : 'internal_error');
}

/** A span's work failed with this error code (a tool result with isError, say). */
export function spanError(span: Span, code: string): void {
  span.setAttribute(ATTR.errorType, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** The parent: the active context by default (a batch item's is the submitting request's, ./carrier.ts). */
  parent?: Context;
}

/** Runs `work` in a new active span, ended when it settles (failed with the error's code when it throws). */
export async function inSpan<T>(name: string, opts: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!on) return work(undefined);
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (e) {
    failSpan(span, e);
    throw e;
  } finally {
    span.end();
  }
}

/** A span of work already done (a render step, from its recorded times), child of `parent`. */
export function pastSpan(name: string, parent: Span, start: TimeInput, end: TimeInput, attributes: Attributes, failed?: unknown): void {
  const span = tracer().startSpan(name, { startTime: start, attributes }, trace.setSpan(ROOT_CONTEXT, parent));
  if (failed !== undefined) failSpan(span, failed);
  span.end(end);
}
