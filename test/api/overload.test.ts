// Overload: the time a request waits for a render slot counts against its render
// budget. A burst bigger than the pool can serve within the budget is answered in time: each
// request either renders (200, or 504 for a page that never settles) or is refused early with
// 503 overloaded and a Retry-After computed from the queue; no answer comes later than the
// budget plus the documented slack (docs/api.md "Limits"), nothing refused is billed, and the server
// serves a normal capture afterwards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';
import { shoot, show, type Reply } from '../support/http.ts';
import { eventually } from '../support/wait.ts';

const BUDGET_MS = 3000;
/** docs/api.md "Limits": an answer comes at most this long after the budget (reply writing, the ledger). */
const SLACK_MS = 1000;
/** The client shares this process and two cores with another test file: its clock reads late under
 * load. Before the queue counted, the same burst's slowest answer came after 12.8 s. */
const MEASUREMENT_MARGIN_MS = 1500;
const viewport = { width: 64, height: 48 };
const GREEN = '<body style="margin:0;background:rgb(0,170,0)"></body>';
const SPIN = '<body><script>for(;;){}</script></body>';

let srv: TestServer;

before(async () => {
  srv = await startTestServer({ RENDER_BUDGET_MS: String(BUDGET_MS), RENDER_CONCURRENCY: '2', QUEUE_LIMIT: '32' });
  // The browser warm before the burst. Its first capture on a busy machine can outrun the 3 s
  // budget (a fresh CI run: 504 while opening the page): that says nothing about the queue.
  const warm = async () => (await shoot(srv.url, { html: GREEN, viewport, waitUntil: 'load' })).status === 200;
  assert.ok(await eventually(warm, 60_000, 0), 'a first capture within the budget');
});

after(async () => {
  await srv?.close();
});

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

describe('a burst larger than the pool (2 slots, 3 s budget, 20 requests, a third of them spinning pages)', () => {
  let replies: Reply[] = [];
  let spent = 0;

  test('every answer comes within the budget plus the slack', async () => {
    const acct = (await srv.server.accounts.authenticate(TEST_KEY))!;
    const balance = await srv.server.accounts.balance(acct);
    replies = await Promise.all(Array.from({ length: 20 }, (_, i) => shoot(srv.url, { html: i % 3 === 1 ? SPIN : GREEN, viewport, waitUntil: 'load' })));
    const ms = replies.map((r) => r.ms);
    const by = (s: number) => replies.filter((r) => r.status === s).length;
    console.log(`burst: p50 ${pct(ms, 50)} ms, max ${Math.max(...ms)} ms; 200: ${by(200)}, 503: ${by(503)}, 504: ${by(504)}`);
    for (const r of replies) {
      assert.ok([200, 503, 504].includes(r.status), show(r));
      assert.ok(r.ms <= BUDGET_MS + SLACK_MS + MEASUREMENT_MARGIN_MS, `answered after ${r.ms} ms (${show(r)})`);
    }
    assert.ok(by(200) > 0, 'some requests were served');
    assert.ok(await eventually(async () => srv.server.pool.inFlight === 0 && srv.server.pool.queueDepth === 0, 10_000), 'the pool drained');
    spent = balance - (await srv.server.accounts.balance(acct));
  });

  test('every 503 is overloaded with a Retry-After in seconds', () => {
    for (const r of replies.filter((r) => r.status === 503)) {
      assert.equal(r.json?.error, 'overloaded', show(r));
      const after = Number(r.headers.get('retry-after'));
      assert.ok(Number.isInteger(after) && after >= 1 && after <= 60, `Retry-After ${r.headers.get('retry-after')}`);
    }
  });

  test('only the served captures were billed', () => {
    assert.equal(spent, replies.filter((r) => r.status === 200).length);
  });

  test('a normal capture succeeds afterwards', async () => {
    const r = await shoot(srv.url, { html: GREEN, viewport, waitUntil: 'load' });
    assert.equal(r.status, 200, show(r));
  });
});
