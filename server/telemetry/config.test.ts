// The OTEL_* variables as server/config.ts reads them: off without an endpoint, the traces URL as
// the OTLP exporter specification builds it, and a clear error naming the variable otherwise.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config.ts';

const env = { CHROMIUM_PATH: process.execPath }; // any executable will do for parsing
const telemetry = (vars: Record<string, string>) => loadConfig({ ...env, ...vars }).telemetry;

test('tracing is off without an OTLP endpoint, and with OTEL_SDK_DISABLED=true', () => {
  assert.equal(telemetry({}), null);
  assert.equal(telemetry({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), null);
  assert.equal(telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }), null);
});

test('the traces URL: the base endpoint + /v1/traces, or the traces endpoint as given; defaults as the OTEL_* specification states', () => {
  const t = telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })!;
  assert.equal(t.url, 'http://collector:4318/v1/traces');
  assert.equal(t.protocol, 'http/protobuf');
  assert.equal(t.sampler, 'parentbased_always_on');
  assert.equal(t.serviceName, 'screenshot-service');
  assert.deepEqual(t.batch, { scheduledDelayMillis: 5000, exportTimeoutMillis: 30000, maxQueueSize: 2048, maxExportBatchSize: 512 });
  const own = telemetry({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest',
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
  })!;
  assert.equal(own.url, 'https://traces.example/ingest');
  assert.equal(own.protocol, 'http/json');
  const ratio = telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })!;
  assert.equal(ratio.sampler, 'parentbased_traceidratio');
  assert.equal(ratio.ratio, 0.25);
});

test('a bad value stops the start with a message naming its variable', () => {
  const refused = (vars: Record<string, string>, name: string) =>
    assert.throws(
      () => telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...vars }),
      (e: Error) => e instanceof ConfigError && e.message.startsWith(name),
      name,
    );
  refused({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  refused({ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER');
  refused({ OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG');
  refused({ OTEL_BSP_MAX_QUEUE_SIZE: '10', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20' }, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE');
});
