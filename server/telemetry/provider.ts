// The OpenTelemetry SDK, as the OTEL_* variables configure it (./config.ts): a tracer provider with
// the configured sampler, a batch span processor (OTEL_BSP_*) and one OTLP/HTTP exporter
// (protobuf or JSON), the W3C Trace Context propagator and an AsyncLocalStorage context manager
// (the active span follows each request's async work). Imported only by ./sdk.ts, only when on.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { Telemetry, TelemetryConfig } from './config.ts';
import { markTracingOn } from './spans.ts';

function samplerOf({ sampler, ratio }: TelemetryConfig): Sampler {
  const root = sampler.endsWith('always_off')
    ? new AlwaysOffSampler()
    : sampler.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

async function exporterOf(config: TelemetryConfig): Promise<SpanExporter> {
  // Only the chosen encoding's exporter is loaded.
  const { OTLPTraceExporter } =
    config.protocol === 'http/json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: config.url, timeoutMillis: config.batch.exportTimeoutMillis });
}

export async function startProvider(config: TelemetryConfig): Promise<Telemetry> {
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (the env detector) over the default name.
  const resource = resourceFromAttributes({ 'service.name': config.serviceName }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(config),
    spanProcessors: [new BatchSpanProcessor({ exporter: await exporterOf(config), ...config.batch })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  markTracingOn(true);
  return {
    async shutdown() {
      markTracingOn(false);
      await provider.shutdown(); // exports what is queued
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
