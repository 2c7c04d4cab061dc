// What the tracing SDK is started with: the standard OTEL_* variables (server/settings.ts), as
// server/config.ts parses them. Null when no OTLP endpoint is set: tracing is off.
export const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

export interface TelemetryConfig {
  /** The OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  protocol: (typeof PROTOCOLS)[number];
  serviceName: string;
  sampler: (typeof SAMPLERS)[number];
  /** OTEL_TRACES_SAMPLER_ARG: the traceidratio samplers' ratio. */
  ratio: number;
  /** OTEL_BSP_*: the batch span processor. */
  batch: { scheduledDelayMillis: number; exportTimeoutMillis: number; maxQueueSize: number; maxExportBatchSize: number };
}

/** Tracing once started (./sdk.ts); its provider (./provider.ts) is one. */
export interface Telemetry {
  /** Exports the spans still queued, then stops (server close, SIGTERM). */
  shutdown(): Promise<void>;
}
