// An MCP caller that goes away: as on REST, its render stops at once and nothing is
// billed. Plain JSON-RPC over HTTP, cut by the client mid-render; the ledger is read directly.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';
import { renderCount } from '../support/metrics.ts';
import { eventually } from '../support/wait.ts';
import { pageLoaded } from '../support/pool.ts';
import { balance, MCP_SERVER_ENV, plainToolCall } from './helpers.ts';

const BUDGET_MS = 8000;

let fx: Fixture;
let ts: TestServer;

before(async () => {
  fx = await startFixture();
  page(fx, '/waits', '<body style="margin:0;background:#fff">waiting for a selector that never comes</body>');
  ts = await startTestServer({ ...MCP_SERVER_ENV, RENDER_BUDGET_MS: String(BUDGET_MS) }, fx);
});

after(async () => {
  await ts?.close();
  await fx?.close();
});

test('a tools/call whose client disconnects mid-render: the render stops, no credit is charged', async () => {
  const before = await balance(ts.server);
  const hits = () => fx.hits.filter((h) => h === '/waits').length;
  const seen = hits();
  const abort = new AbortController();
  const args = { url: `${fx.origin}/waits`, waitForSelector: '#never', waitUntil: 'load', viewport: { width: 64, height: 48 } };
  const pending = plainToolCall(ts, 1, args, abort.signal);
  assert.ok(await eventually(() => hits() > seen, 30_000), 'the render started'); // a browser (re)started on a busy machine takes seconds
  assert.equal(ts.server.pool.inFlight, 1);
  assert.equal(await balance(ts.server), before - 1, 'a credit is held while it renders');
  assert.ok(await eventually(() => pageLoaded(ts, '/waits'), 10_000), 'the render is past its load, waiting for #never');
  const closedBefore = await renderCount(ts.url, 'client_closed');
  const timeoutsBefore = await renderCount(ts.url, 'render_timeout');
  const cut = Date.now();
  abort.abort();
  await assert.rejects(pending);
  assert.ok(await eventually(() => ts.server.pool.inFlight === 0, BUDGET_MS + 4000, 20), `the render stopped (${Date.now() - cut} ms after the disconnect)`);
  // Stopped by the disconnect, not run out to the budget: the server's own record of how the render ended.
  assert.equal(await renderCount(ts.url, 'client_closed'), closedBefore + 1, 'the render ended as client_closed');
  assert.equal(await renderCount(ts.url, 'render_timeout'), timeoutsBefore, 'not at the budget');
  assert.ok(await eventually(async () => (await balance(ts.server)) === before, 2000), 'no credit charged: the held one is released');
  const account = (await ts.server.accounts.authenticate(TEST_KEY))!;
  const rows = await ts.server.accounts.db.query<{ n: unknown }>(`SELECT count(*) AS n FROM ledger WHERE account_id = $1 AND kind = 'capture'`, [account.id]);
  assert.equal(Number(rows[0]!.n), 0, 'no capture in the ledger');
});
