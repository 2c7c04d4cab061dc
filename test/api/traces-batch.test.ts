// A batch's trace, over a real OTLP/HTTP receiver on loopback in http/json: a batch submitted with
// a W3C traceparent runs each item in that trace (the context travels in the item's job data, so
// it survives the queue, a retry or another process), and each webhook delivery is a span of it
// whose traceparent the receiving endpoint gets. Spans are awaited by polling the receiver.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, type Fixture } from '../support/fixture.ts';
import { call, show } from '../support/http.ts';
import { startReceiver, type ReceivedSpan, type Receiver } from '../support/otlp.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { eventually } from '../support/wait.ts';

const SECRET = `whsec_${Buffer.from('traces-batch-secret-0123456789').toString('base64')}`;
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;
const randomHex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');

let receiver: Receiver;
let fx: Fixture;
let srv: TestServer;
const hooks: Array<{ traceparent?: string; type: string }> = [];

before(async () => {
  receiver = await startReceiver();
  fx = await startFixture();
  fx.route('/hook', (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hooks.push({ traceparent: req.headers.traceparent as string | undefined, type: JSON.parse(body).type });
      res.writeHead(204).end();
    });
  });
  srv = await startTestServer(
    {
      BATCH_NICENESS: '0', // items in the captures' browser: one Chromium for this file
      WEBHOOK_SECRET: SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
    fx,
  );
});

after(async () => {
  await srv?.close();
  await receiver?.close();
  await fx?.close();
});

test("a batch sent with traceparent: each item's spans and each webhook delivery are in the caller's trace, and the webhook request carries it", async () => {
  const traceId = randomHex(16);
  const callerSpan = randomHex(8);
  const colour = (c: string) => `<style>html,body{margin:0;background:${c}}</style><p>x</p>`;
  const r = await call(
    srv.url,
    '/v1/batches',
    { requests: [{ html: colour('#c33') }, { html: colour('#33c') }], webhook: { url: `${fx.origin}/hook` } },
    { headers: { traceparent: `00-${traceId}-${callerSpan}-01` } },
  );
  assert.equal(r.status, 202, show(r));

  // Two capture.succeeded events and batch.completed, each delivered once.
  assert.ok(await eventually(() => hooks.length >= 3, 90_000, 100), `the webhooks arrive: ${JSON.stringify(hooks)}`);
  let spans: ReceivedSpan[] = [];
  const delivered = () => spans.filter((s) => s.name === 'webhook delivery');
  assert.ok(
    await eventually(
      () => {
        spans = receiver.spans().filter((s) => s.traceId === traceId);
        return spans.filter((s) => s.name === 'batch item').length >= 2 && spans.filter((s) => s.name === 'render').length >= 2 && delivered().length >= 3;
      },
      30_000,
      50,
    ),
    `the batch's spans arrive: ${spans.map((s) => s.name).join(', ')}`,
  );
  assert.ok(
    receiver.contentTypes().every((t) => t === 'application/json'),
    receiver.contentTypes().join(),
  );

  const http = spans.find((s) => s.kind === SERVER)!;
  assert.equal(http.name, 'POST /v1/batches');
  assert.equal(http.parentSpanId, callerSpan);
  const items = spans.filter((s) => s.name === 'batch item');
  assert.deepEqual(items.map((s) => s.attributes['screenshot.batch.item']).sort(), [0, 1]);
  for (const item of items) {
    assert.equal(item.kind, CONSUMER);
    assert.equal(item.parentSpanId, http.spanId, "an item's span is the submitting request's child");
    assert.equal(item.attributes['screenshot.batch.id'], r.json.id);
    const render = spans.find((s) => s.name === 'render' && s.parentSpanId === item.spanId);
    assert.ok(render, "the item's render is its child");
    assert.equal(render.attributes['screenshot.background'], true);
    // Its steps, as far as it got: on a starved machine an item may end in render_timeout, a verdict this test does not judge.
    const steps = spans.filter((s) => s.parentSpanId === render.spanId).map((s) => s.name);
    assert.ok(steps.includes('browser') || steps.includes('page') || steps.includes('load'), `with its step spans: ${steps.join(', ')}`);
  }

  for (const hook of hooks) {
    const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(hook.traceparent ?? '');
    assert.ok(m, `${hook.type} carries a traceparent: ${hook.traceparent}`);
    assert.equal(m[1], traceId, `${hook.type}: the caller's trace`);
    const span = delivered().find((s) => s.spanId === m[2]);
    assert.ok(span, `${hook.type}: its parent is the delivery's span`);
    assert.equal(span.kind, CLIENT);
    assert.equal(span.attributes['screenshot.webhook.event_type'], hook.type);
    assert.equal(span.attributes['http.response.status_code'], 204, "the receiver's answer");
  }
});
