// The queue's depth on GET /metrics (screenshot_batch_items_pending), over real HTTP with the real
// browser, the embedded store and pg-boss: 0 before any batch (the queue's tables do not exist
// yet), the batch's unsettled items while they wait and run (the one render slot held by a page
// that does not answer), 0 once they settled. The gauge runs PENDING_ITEMS_SQL, the statement the
// example KEDA ScaledObject scales the workers by (test/deploy/drift.test.ts holds them equal).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { startFixture, type Fixture } from '../support/fixture.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { call, show } from '../support/http.ts';
import { eventually } from '../support/wait.ts';

const ITEMS = 3;

let fx: Fixture;
let srv: TestServer;
const waiting: http.ServerResponse[] = [];
let released = false;
let hits = 0;

before(async () => {
  fx = await startFixture();
  fx.route('/held', (_req, res) => {
    hits++;
    const answer = () => res.writeHead(200, { 'content-type': 'text/html' }).end('<style>html,body{margin:0;background:#246}</style><p>held</p>');
    if (released) answer();
    else waiting.push(res);
  });
  // One render slot, the items in the captures' browser: one item runs, the others wait.
  srv = await startTestServer({ RENDER_CONCURRENCY: '1', BATCH_NICENESS: '0', FREE_CREDITS: '20' }, fx);
});

after(async () => {
  released = true;
  for (const res of waiting.splice(0)) if (!res.destroyed) res.end();
  await srv?.close();
  await fx?.close();
});

async function pending(): Promise<number> {
  const r = await call(srv.url, '/metrics', undefined, { method: 'GET', key: null });
  assert.equal(r.status, 200, show(r));
  const m = /^screenshot_batch_items_pending (\S+)$/m.exec(r.body.toString('utf8'));
  assert.ok(m, 'the gauge is exported');
  return Number(m[1]);
}

test('screenshot_batch_items_pending: 0 before any batch, the unsettled items while they wait and run, 0 once settled', async () => {
  assert.equal(await pending(), 0, 'no batch yet: no queue, nothing pending');

  const requests = Array.from({ length: ITEMS }, (_, i) => ({ url: `${fx.origin}/held?i=${i}`, viewport: { width: 20, height: 20 } }));
  const r = await call(srv.url, '/v1/batches', { requests });
  assert.equal(r.status, 202, show(r));
  const id = r.json.id as string;
  assert.ok(await eventually(() => hits > 0, 60_000), 'the first item runs (its page is held)');
  const batch = (await call(srv.url, `/v1/batches/${id}`, undefined, { method: 'GET' })).json;
  assert.equal(batch.counts.pending, ITEMS, JSON.stringify(batch.counts));
  assert.equal(await pending(), ITEMS, 'one running and the others waiting, all counted');

  released = true;
  for (const res of waiting.splice(0)) if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>held</p>');
  let last: any;
  assert.ok(
    await eventually(async () => {
      last = (await call(srv.url, `/v1/batches/${id}`, undefined, { method: 'GET' })).json;
      return last.counts.pending === 0;
    }, 60_000),
    `the batch settles: ${JSON.stringify(last?.counts)}`,
  );
  assert.equal(last.counts.succeeded, ITEMS);
  assert.ok(await eventually(async () => (await pending()) === 0, 10_000), 'nothing pending once every item settled');
});
