// Tracing off, the default: with no OTLP endpoint the SDK is never loaded (none of its modules, so
// no exporter, no timer, no socket), the API's tracer stays its no-op one, a caller's traceparent
// changes nothing, and log lines carry no trace ids. Runs in a process of its own (node --test runs
// each file in one), so that no other test's SDK is loaded here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { propagation, trace } from '@opentelemetry/api';
import { createLogger } from '../../server/log.ts';
import { startServer, type RunningServer } from '../../server/start.ts';
import { shoot, show } from '../support/http.ts';
import { testConfig } from '../support/server.ts';

let server: RunningServer;
let dataDir: string;
const logLines: Array<Record<string, unknown>> = [];

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'traces-off-test-'));
  const lines = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(l));
      done();
    },
  });
  const config = testConfig({ DATA_DIR: dataDir });
  assert.equal(config.telemetry, null, 'no endpoint: tracing is off');
  server = await startServer(config, { log: createLogger('info', lines) });
});

after(async () => {
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('with no OTLP endpoint a traced caller gets its capture, no SDK module is loaded, spans are no-ops and logs carry no trace id', async () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const r = await shoot(server.url, { html: '<p>off</p>' }, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
  assert.equal(r.status, 200, show(r));

  const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) =>
    /@opentelemetry[\\/](sdk-|exporter-|otlp-|context-async-hooks|resources)/.test(k),
  );
  assert.deepEqual(loaded, [], 'the SDK, exporters and context manager are not loaded');
  const span = trace.getTracer('probe').startSpan('probe');
  assert.equal(span.isRecording(), false, "the API's tracer is its no-op one");
  span.end();
  assert.deepEqual(propagation.fields(), [], 'no propagator is registered');

  const request = logLines.find((l) => l.msg === 'request' && l.path === '/v1/screenshot');
  assert.ok(request, 'the request was logged');
  assert.ok(
    logLines.every((l) => !('trace_id' in l) && !('span_id' in l)),
    'no line has trace ids',
  );
  assert.ok(!JSON.stringify(logLines).includes(traceId), "the caller's trace id is nowhere in the logs");
});
