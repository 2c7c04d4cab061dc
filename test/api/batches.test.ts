// Batches of captures (POST /v1/batches) over real HTTP with the real browser and the embedded
// store: validation by position, the owner alone sees a batch, items settle as the synchronous
// call would answer, pictures equal the synchronous capture, billing once per succeeded item,
// signed webhooks (Standard Webhooks) for every item and batch.completed once, cancellation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { Webhook } from 'standardwebhooks';
import { startFixture, page, type Fixture, webhookReceiver } from '../support/fixture.ts';
import { OTHER_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { call, shoot, show, webhookSecretOf } from '../support/http.ts';
import { decode } from '../support/image.ts';
import { eventually } from '../support/wait.ts';
import { chromiumDescendants, niceness } from '../support/processes.ts';

const APP_ORIGIN = 'https://app.example';
const SECRET = `whsec_${Buffer.from('batch-test-secret-0123456789').toString('base64')}`;

let fx: Fixture;
let srv: TestServer;
let hooks: ReturnType<typeof webhookReceiver> = [];

before(async () => {
  fx = await startFixture();
  hooks = webhookReceiver(fx);
  srv = await startTestServer({ RENDER_BUDGET_MS: '8000', WEBHOOK_SECRET: SECRET, CORS_ORIGINS: APP_ORIGIN }, fx);
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

const colour = (c: string) => `<style>html,body{margin:0;background:${c}}</style><p>x</p>`;
const batch = (body: unknown, key?: string) => call(srv.url, '/v1/batches', body, { key });
const get = (p: string, key?: string) => call(srv.url, p, undefined, { method: 'GET', key });

async function settled(id: string, key?: string) {
  let last: any;
  assert.ok(
    await eventually(
      async () => {
        last = (await get(`/v1/batches/${id}`, key)).json;
        return last.counts.pending === 0;
      },
      90_000,
      250,
    ),
    `the batch settles: ${JSON.stringify(last?.counts)}`,
  );
  return last;
}

describe('POST /v1/batches', () => {
  test('the batch routes are rows of the route table: OPTIONS, 405 with Allow, CORS preflights and /openapi.json name the same methods', async () => {
    const doc = (await get('/openapi.json')).json;
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1/batches'));
    assert.deepEqual(paths.sort(), ['/v1/batches', '/v1/batches/{id}', '/v1/batches/{id}/items/{index}']);
    const sorted = (v: string | null) => (v ?? '').split(', ').sort();
    for (const p of paths) {
      const at = p.replace('{id}', 'bat_none').replace('{index}', '3');
      const methods = Object.keys(doc.paths[p]).map((m) => m.toUpperCase());
      const options = await fetch(srv.url + at, { method: 'OPTIONS' });
      assert.equal(options.status, 204, at);
      assert.deepEqual(sorted(options.headers.get('allow')), [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort(), at);
      const preflight = await fetch(srv.url + at, { method: 'OPTIONS', headers: { origin: APP_ORIGIN, 'access-control-request-method': methods.at(-1)! } });
      assert.equal(preflight.headers.get('access-control-allow-origin'), APP_ORIGIN, at);
      assert.ok(sorted(preflight.headers.get('access-control-allow-methods')).includes(methods.at(-1)!), at);
      const wrong = await call(srv.url, at, undefined, { method: 'PUT' });
      assert.equal(wrong.status, 405, `${at}: ${show(wrong)}`);
      assert.equal(wrong.json.error, 'method_not_allowed');
      assert.deepEqual(sorted(wrong.headers.get('allow')), methods.sort(), at);
      for (const m of methods.filter((x) => x !== 'POST')) {
        const unknown = await call(srv.url, at, undefined, { method: m });
        assert.equal(unknown.status, 404, `${m} ${at}: another key's or no batch is 404`);
      }
    }
    assert.equal((await fetch(`${srv.url}/v1/batches/x/items/0/more`, { method: 'OPTIONS' })).status, 404);
  });

  test('each request is checked by the capture schema, its messages named by position; nothing is queued', async () => {
    const r = await batch({
      requests: [{ url: `${fx.origin}/a` }, { url: `${fx.origin}/b`, viewport: { width: 0, height: 10 } }, { html: 'x', url: 'https://a.example' }],
    });
    assert.equal(r.status, 400, show(r));
    assert.match(r.json.message, /requests\[1\]\.viewport\.width must be/);
    assert.match(r.json.message, /requests\[2\]/);
    assert.doesNotMatch(r.json.message, /requests\[0\]/);
    for (const body of [{}, { requests: [] }, { requests: Array.from({ length: 1001 }, () => ({ html: 'x' })) }]) {
      const bad = await batch(body);
      assert.equal(bad.status, 400, show(bad));
      assert.match(bad.json.message, /requests must be an array of 1 to 1000/);
    }
  });

  test('a webhook to a loopback, private or metadata address is refused at submission, naming webhook.url', async () => {
    for (const url of ['http://127.0.0.2:9/h', 'http://10.0.0.1/h', 'http://169.254.169.254/latest', 'http://[::1]/h']) {
      const r = await batch({ requests: [{ html: 'x' }], webhook: { url } });
      assert.equal(r.status, 400, `${url}: ${show(r)}`);
      assert.match(r.json.message, /^webhook\.url /);
    }
    const r = await batch({ requests: [{ html: 'x' }], webhook: { url: 'ftp://x.example/' } });
    assert.equal(r.status, 400);
    assert.match(r.json.message, /webhook\.url must be an absolute http\(s\) URL/);
  });

  test('a batch larger than the spendable credits is refused up front (402), nothing queued', async () => {
    const r = await batch({ requests: Array.from({ length: 101 }, () => ({ html: 'x' })) });
    assert.equal(r.status, 402, show(r));
    assert.equal(r.json.error, 'insufficient_credits');
  });
});

describe('a batch runs to the end', () => {
  test('items settle as the synchronous call answers; pictures equal the synchronous capture; one credit per rendered item; signed webhooks', async () => {
    const red = page(fx, '/red', colour('#ff0000'));
    page(fx, '/blue', colour('#0000ff'));
    fx.route('/missing', (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end(colour('#00ff00')));
    const requests = [
      { url: red, viewport: { width: 320, height: 200 } },
      { url: `${fx.origin}/blue`, viewport: { width: 200, height: 120 } },
      { html: colour('#00ff00'), viewport: { width: 100, height: 100 }, selector: '#nope' },
      { url: `${fx.origin}/missing`, failOnTargetError: true },
      { html: colour('#ffff00'), viewport: { width: 64, height: 64 }, format: 'jpeg' },
    ];
    const before = (await get('/v1/batches/none')).status;
    assert.equal(before, 404);
    const balance0 = Number((await shoot(srv.url, { html: 'x', viewport: { width: 10, height: 10 } })).headers.get('x-credits-remaining'));
    const r = await batch({ requests, webhook: { url: `${fx.origin}/hook` } });
    assert.equal(r.status, 202, show(r));
    assert.match(r.json.id, /^bat_/);
    assert.equal(r.headers.get('location'), `/v1/batches/${r.json.id}`);
    const id: string = r.json.id;

    assert.equal((await get(`/v1/batches/${id}`, OTHER_KEY)).status, 404, 'another key does not see it');
    assert.equal((await get(`/v1/batches/${id}/items/0`, OTHER_KEY)).status, 404);
    assert.equal((await call(srv.url, `/v1/batches/${id}`, undefined, { method: 'DELETE', key: OTHER_KEY })).status, 404);

    const b = await settled(id);
    assert.equal(b.state, 'done');
    assert.deepEqual(b.counts, { total: 5, succeeded: 3, failed: 2, cancelled: 0, pending: 0 });
    assert.deepEqual(
      b.items.map((i: any) => [i.index, i.state, i.status, i.error ?? null, i.credits]),
      [
        [0, 'succeeded', 200, null, 1],
        [1, 'succeeded', 200, null, 1],
        [2, 'failed', 400, 'selector_not_found', 0],
        [3, 'failed', 424, 'target_error', 0],
        [4, 'succeeded', 200, null, 1],
      ],
    );
    assert.equal(b.items[0].facts.targetStatus, 200, 'the response registry’s facts');
    assert.equal(b.items[0].link, `/v1/batches/${id}/items/0`);

    // The pictures, with a synchronous capture's headers, equal the synchronous capture.
    for (const i of [0, 1, 4]) {
      const pic = await get(`/v1/batches/${id}/items/${i}`);
      assert.equal(pic.status, 200, show(pic));
      assert.equal(pic.headers.get('content-type'), i === 4 ? 'image/jpeg' : 'image/png');
      assert.ok(pic.headers.get('etag'));
      assert.equal(pic.headers.get('x-credits-charged'), '1');
      const sync = await shoot(srv.url, requests[i]);
      assert.equal(sync.status, 200, show(sync));
      if (i !== 4) assert.equal(pic.headers.get('etag'), sync.headers.get('etag'), `item ${i}: the same picture as the synchronous capture`);
      const img = await decode(pic.body);
      assert.equal(img.width, requests[i]!.viewport!.width);
    }
    assert.equal((await get(`/v1/batches/${id}/items/2`)).status, 404, 'a failed item has no picture');
    const balance1 = Number((await shoot(srv.url, { html: 'x', viewport: { width: 10, height: 10 } })).headers.get('x-credits-remaining'));
    // 3 items + 3 synchronous comparisons + the probe capture: the failures cost nothing.
    assert.equal(balance0 - balance1, 3 + 3 + 1);

    // Webhooks: one per item and batch.completed once, each with a valid signature.
    assert.ok(await eventually(() => hooks.filter((h) => h.body.includes(id)).length >= 6, 20_000), `webhooks: ${hooks.length}`);
    const mine = hooks.filter((h) => h.body.includes(id));
    // Signed with the secret of the key that made the batch (its own, derived from WEBHOOK_SECRET).
    const wh = new Webhook(await webhookSecretOf(srv.url));
    const events = mine.map((h) => wh.verify(h.body, h.headers) as any);
    const byType = (t: string) => events.filter((e) => e.type === t);
    assert.equal(byType('batch.completed').length, 1);
    assert.deepEqual(
      byType('capture.succeeded')
        .map((e) => e.data.index)
        .sort(),
      [0, 1, 4],
    );
    assert.deepEqual(
      byType('capture.failed')
        .map((e) => [e.data.index, e.data.status])
        .sort(),
      [
        [2, 400],
        [3, 424],
      ],
    );
    for (const e of events) assert.equal(e.data.batchId, id);
    const after = (await get(`/v1/batches/${id}`)).json;
    assert.ok(after.webhook.deliveries.length >= 6);
    assert.ok(after.webhook.deliveries.every((d: any) => d.outcome === 'delivered' && d.status === 204));
    // The batch is what /openapi.json says of it, its deliveries' fields with it (the playground reads them).
    const doc = (await get('/openapi.json')).json;
    const described = new Ajv({ strict: false, validateFormats: false }).compile(
      doc.paths['/v1/batches/{id}'].get.responses['200'].content['application/json'].schema,
    );
    assert.ok(described(after), JSON.stringify(described.errors));
  });

  test('batch items render in a browser of their own at BATCH_NICENESS (10), every process of it; captures at normal priority', async () => {
    // after the batch above: its browser stays up for a minute without batch items
    const bg = await srv.backgroundBrowser();
    const fg = await srv.browser();
    assert.ok(bg && fg && bg !== fg, "a background browser beside the captures' browser");
    const bgPids = [bg.process()!.pid!, ...chromiumDescendants(bg.process()!.pid!)];
    const fgPids = [fg.process()!.pid!, ...chromiumDescendants(fg.process()!.pid!)];
    assert.ok(bgPids.length >= 3 && fgPids.length >= 3, `${bgPids.length} and ${fgPids.length} processes`);
    assert.deepEqual(new Set(bgPids.map(niceness)), new Set([10]), 'the browser, its zygotes, renderers and GPU process');
    assert.deepEqual(new Set(fgPids.map(niceness)), new Set([0]));
  });

  test('DELETE cancels what has not started; cancelled items are never billed', async () => {
    const requests = Array.from({ length: 12 }, (_, i) => ({
      html: colour(`#${(i * 20).toString(16).padStart(2, '0')}0000`),
      viewport: { width: 50, height: 50 },
    }));
    const r = await batch({ requests });
    assert.equal(r.status, 202, show(r));
    const d = await call(srv.url, `/v1/batches/${r.json.id}`, undefined, { method: 'DELETE' });
    assert.equal(d.status, 200, show(d));
    const b = await settled(r.json.id);
    assert.equal(b.state, 'cancelled');
    assert.ok(b.counts.cancelled >= 8, JSON.stringify(b.counts));
    assert.equal(b.counts.succeeded + b.counts.cancelled + b.counts.failed, 12);
    for (const i of b.items.filter((x: any) => x.state === 'cancelled')) assert.equal(i.credits, 0);
  });
});
