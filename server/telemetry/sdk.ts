// Starting and stopping tracing. With no OTLP endpoint configured (TelemetryConfig null) nothing is
// loaded: the SDK and its exporter are imported only here, dynamically, when tracing is on, so a
// server without it pays neither their start-up nor a socket (docs/performance.md, "Traces").
import type { Telemetry, TelemetryConfig } from './config.ts';

export type { Telemetry } from './config.ts';

const OFF: Telemetry = { shutdown: async () => {} };

export async function startTelemetry(config: TelemetryConfig | null): Promise<Telemetry> {
  if (!config) return OFF;
  const { startProvider } = await import('./provider.ts');
  return startProvider(config);
}
