// OpenTelemetry traces over a real OTLP/HTTP receiver on loopback (test/support/otlp.ts,
// http/protobuf decoded with protobufjs): a capture sent with a W3C traceparent produces its
// server span in the caller's trace, a render span and one span per step named as in its
// Server-Timing header; an MCP tool call gets its span; the log lines written inside carry the
// trace id; and nothing the caller sent (cookie, header value, query, API key, html text) nor the
// picture is in any exported byte. Spans are awaited by polling the receiver (OTEL_BSP_SCHEDULE_DELAY 50 ms).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../server/log.ts';
import { startServer, type RunningServer } from '../../server/start.ts';
import { startFixture, page, type Fixture } from '../support/fixture.ts';
import { call, shoot, show } from '../support/http.ts';
import { startReceiver, type ReceivedSpan, type Receiver } from '../support/otlp.ts';
import { TEST_KEY, testConfig } from '../support/server.ts';
import { eventually } from '../support/wait.ts';

const COOKIE = 'cookie-value-7f3a9c';
const HEADER_VALUE = 'header-value-51d2e8';
const QUERY = 'query-value-c0ffee';
const HTML_TEXT = 'html-text-9b8a7d';
const PAGE_TEXT = 'page-text-e4d3c2';

const SERVER = 2;
const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const randomHex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');

let receiver: Receiver;
let fx: Fixture;
let server: RunningServer;
let dataDir: string;
const logLines: Array<Record<string, unknown>> = [];

before(async () => {
  receiver = await startReceiver();
  fx = await startFixture();
  page(fx, '/traced', `<style>html,body{margin:0;background:#3a6}</style><p>${PAGE_TEXT}</p>`);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'traces-test-'));
  const config = testConfig(
    { DATA_DIR: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'shots-under-test' },
    fx,
  );
  const lines = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(l));
      done();
    },
  });
  server = await startServer(config, { log: createLogger('info', lines) });
});

after(async () => {
  await server?.close();
  await receiver?.close();
  await fx?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The spans of one trace, once `done` holds of them. */
async function traceOf(traceId: string, done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  let spans: ReceivedSpan[] = [];
  const ok = await eventually(
    () => {
      spans = receiver.spans().filter((s) => s.traceId === traceId);
      return done(spans);
    },
    30_000,
    50,
  );
  assert.ok(ok, `the trace's spans arrive: ${spans.map((s) => s.name).join(', ')}`);
  return spans;
}

describe('traces (OTLP http/protobuf)', () => {
  const traceId = randomHex(16);
  const callerSpan = randomHex(8);
  let picture: Buffer;
  let timingNames: string[];

  test("a capture with traceparent: its server span continues the caller's trace; a render span; one span per step, named as in Server-Timing", async () => {
    const r = await shoot(
      server.url,
      { url: `${fx.origin}/traced?q=${QUERY}`, cookies: [{ name: 'sid', value: COOKIE }], headers: { 'x-test-header': HEADER_VALUE } },
      { headers: { traceparent: traceparent(traceId, callerSpan), tracestate: 'vendor=opaque' } },
    );
    assert.equal(r.status, 200, show(r));
    picture = r.body;
    timingNames = (r.headers.get('server-timing') ?? '').split(',').map((m) => m.trim().split(';')[0]!);
    assert.ok(timingNames.includes('load') && timingNames.includes('capture'), timingNames.join(','));

    const spans = await traceOf(traceId, (s) => s.some((x) => x.kind === SERVER) && s.filter((x) => timingNames.includes(x.name)).length >= timingNames.length);
    const http = spans.find((s) => s.kind === SERVER)!;
    assert.equal(http.name, 'POST /v1/screenshot');
    assert.equal(http.parentSpanId, callerSpan, "the server span is the caller's span's child");
    assert.equal(http.attributes['http.request.method'], 'POST');
    assert.equal(http.attributes['http.route'], '/v1/screenshot');
    assert.equal(http.attributes['url.path'], '/v1/screenshot');
    assert.equal(http.attributes['http.response.status_code'], 200);
    assert.equal(http.attributes['server.address'], '127.0.0.1');
    assert.equal(http.attributes['screenshot.request_id'], r.headers.get('x-request-id'));
    assert.equal(http.resource['service.name'], 'shots-under-test');

    const render = spans.find((s) => s.name === 'render');
    assert.ok(render, 'a render span');
    assert.equal(render.parentSpanId, http.spanId, "the render span is the request's child");
    assert.equal(render.attributes['screenshot.mode'], 'url');
    assert.equal(render.attributes['screenshot.image.bytes'], picture.length);
    const steps = spans.filter((s) => s.parentSpanId === render.spanId);
    assert.deepEqual(steps.map((s) => s.name).sort(), [...timingNames].sort(), 'one span per Server-Timing step, no other');
    for (const s of steps) {
      assert.ok(s.startNs >= render.startNs && s.endNs <= render.endNs, `${s.name} lies within the render`);
      assert.equal(typeof s.attributes['screenshot.step.description'], 'string', s.name);
    }
    const capture = steps.find((s) => s.name === 'capture')!;
    assert.equal(capture.attributes['screenshot.image.bytes'], picture.length);
    assert.equal(capture.attributes['screenshot.image.width'], 1280);
    assert.equal(steps.find((s) => s.name === 'load')!.attributes['screenshot.target_status'], 200);
    const banners = steps.find((s) => s.name === 'banners');
    if (banners) assert.equal(typeof banners.attributes['screenshot.banner_action'], 'string');
  });

  test('log lines written while the request is served carry its trace_id and span_id', async () => {
    const line = logLines.find((l) => l.msg === 'request' && l.trace_id === traceId);
    assert.ok(line, `the request line names the trace: ${JSON.stringify(logLines.filter((l) => l.msg === 'request'))}`);
    assert.match(String(line.span_id), /^[0-9a-f]{16}$/);
  });

  test('an MCP tool call: a tools/call span under the POST /mcp span, and the render under it', async () => {
    const mcpTrace = randomHex(16);
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        traceparent: traceparent(mcpTrace, randomHex(8)),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'take_screenshot', arguments: { html: `<p>${HTML_TEXT}</p>` } } }),
    });
    assert.equal(res.status, 200);
    const answer = (await res.json()) as { result?: { isError?: boolean } };
    assert.ok(answer.result && !answer.result.isError, JSON.stringify(answer).slice(0, 300));
    const spans = await traceOf(mcpTrace, (s) => s.some((x) => x.name === 'render') && s.some((x) => x.kind === SERVER));
    const http = spans.find((s) => s.kind === SERVER)!;
    assert.equal(http.name, 'POST /mcp');
    const tool = spans.find((s) => s.name === 'tools/call take_screenshot');
    assert.ok(tool, spans.map((s) => s.name).join(', '));
    assert.equal(tool.parentSpanId, http.spanId);
    assert.equal(tool.attributes['gen_ai.tool.name'], 'take_screenshot');
    assert.equal(spans.find((s) => s.name === 'render')!.parentSpanId, tool.spanId);
    assert.equal(spans.find((s) => s.name === 'render')!.attributes['screenshot.mode'], 'html');
  });

  test('an error answer: the server span has the status code and the error code, not the message', async () => {
    const errTrace = randomHex(16);
    const r = await call(server.url, '/v1/screenshot', { url: 'notaurl', html: HTML_TEXT }, { headers: { traceparent: traceparent(errTrace, randomHex(8)) } });
    assert.equal(r.status, 400, show(r));
    const [http] = await traceOf(errTrace, (s) => s.some((x) => x.kind === SERVER));
    assert.equal(http!.attributes['http.response.status_code'], 400);
    assert.equal(http!.attributes['error.type'], r.json.error);
  });

  test("no exported byte holds what the caller sent (cookie, header value, query, API key, html text), the page's text or the picture", async () => {
    assert.ok(
      receiver.contentTypes().every((t) => t === 'application/x-protobuf'),
      receiver.contentTypes().join(),
    );
    const all = Buffer.concat(receiver.bodies());
    assert.ok(all.length > 0);
    for (const secret of [COOKIE, HEADER_VALUE, QUERY, TEST_KEY, HTML_TEXT, PAGE_TEXT]) assert.equal(all.indexOf(secret), -1, `${secret} is not exported`);
    const middle = picture.subarray(Math.floor(picture.length / 2), Math.floor(picture.length / 2) + 32);
    assert.equal(all.indexOf(middle), -1, 'no picture bytes');
    assert.equal(all.indexOf(middle.toString('base64')), -1, 'no picture bytes in base64');
  });
});
