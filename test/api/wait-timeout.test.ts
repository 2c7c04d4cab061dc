// captureOnTimeout (server/wait-timeout/fields.ts, server/toolkit/waits.ts): a page that never settles is captured
// as it is when the request asks for it, billed as a success, with x-wait-timed-out naming the
// waits that did not finish; without the option the spec's 504 render_timeout is unchanged.
// The server runs with RENDER_BUDGET_MS=6000: the waits of captureOnTimeout end at 6000 - 1500
// (a quarter of the budget kept for clean-up and capture), so a cut costs 4.5 s, not 17.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { captureReserveMs } from '../../server/toolkit/waits.ts';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { shoot, show, type Reply } from '../support/http.ts';
import { decode, near } from '../support/image.ts';
import { renderCount } from '../support/metrics.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { eventually, sleep } from '../support/wait.ts';

const BUDGET_MS = 6000;
const WAITS_END_MS = BUDGET_MS - captureReserveMs(BUDGET_MS);
/** How late after the budget an answer may arrive (the budget is the promise; this is scheduling). */
const SLACK_MS = 750;
const RED = [204, 0, 0];
const GREEN = [0, 170, 0];
const viewport = { width: 64, height: 48 };

let fx: Fixture;
let srv: TestServer;
let seq = 0;

/** Green at once; three requests that never end from the start, and from the load event one more every 100 ms (a chat
 * widget's poll gone wrong). The first three keep more than two in flight however late a busy renderer runs the page's
 * timer: with the timer alone, a starved renderer once left the page quiet for the idle window (a fresh run, 200 uncut). */
const pollingPage = (
  tag: string,
  { fromStart = 3, starveMs = 0 } = {},
) => `<!doctype html><body style="margin:0;height:3000px;background:rgb(${GREEN})"><script>
  for (let i = 0; i < ${fromStart}; i++) fetch('${fx.origin}/hang?poll&first=' + i + '&tag=${tag}').catch(() => {});
  addEventListener('load', () => {
    // starveMs stands for a renderer that gets no CPU: the page's script, and so its timer, runs that much late.
    const t = Date.now(); while (Date.now() - t < ${starveMs});
    setInterval(() => fetch('${fx.origin}/hang?poll&tag=${tag}').catch(() => {}), 100);
  });
  </script></body>`;
/** Green, with an image whose server never answers: the load event never comes (a dead ad server). */
const deadImagePage = (tag: string) =>
  `<!doctype html><body style="margin:0;background:rgb(${GREEN})"><img src="${fx.origin}/hang?img&tag=${tag}" width="1" height="1"></body>`;
/**
 * Red, then green once its one request (answered after 300 ms) is back, with nothing left in
 * flight: a page that settles. The idle window starts when that request ends, so the change comes
 * inside it however late a starved renderer runs the page's script (a timer alone did not: a
 * fresh run with the cores busy captured it red).
 */
const settlingPage = () => `<!doctype html><body style="margin:0;background:rgb(${RED})"><script>
  fetch('${fx.origin}/p/settle-data').then((r) => r.text()).then(() => { document.body.style.background = 'rgb(${GREEN})'; });</script></body>`;

before(async () => {
  fx = await startFixture();
  page(fx, '/p/poll', (u) => pollingPage(u.searchParams.get('tag') ?? ''));
  page(fx, '/p/dead-image', (u) => deadImagePage(u.searchParams.get('tag') ?? ''));
  page(fx, '/p/settles', () => settlingPage());
  fx.route('/p/settle-data', async (_req, res) => {
    await sleep(300);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('ok');
  });
  fx.route('/p/no-answer', async (_req, res) => {
    await sleep(BUDGET_MS + 2000);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<body>late</body>');
  });
  // The result cache is on, to show that a capture cut short is never stored.
  srv = await startTestServer({ RENDER_BUDGET_MS: String(BUDGET_MS), CACHE_TTL_SECONDS: '300' }, fx);
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

const url = (name: string) => `${fx.origin}/p/${name}?tag=t${++seq}`;

async function colour(r: Reply): Promise<number[]> {
  assert.equal(r.status, 200, show(r));
  return (await decode(r.body)).at(32, 24).slice(0, 3);
}

function assertCut(r: Reply, waits: string): void {
  assert.equal(r.status, 200, show(r));
  assert.equal(r.headers.get('x-wait-timed-out'), waits);
  assert.equal(r.headers.get('x-credits-charged'), '1', 'billed as a success');
  assert.ok(r.ms >= WAITS_END_MS - 200, `the waits ran until the budget minus the reserve (${r.ms} ms)`);
  assert.ok(r.ms < BUDGET_MS + SLACK_MS, `answered within the budget (${r.ms} ms)`);
}

function assertTimeout(r: Reply): void {
  assert.equal(r.status, 504, show(r));
  assert.equal(r.json?.error, 'render_timeout');
  assert.ok(r.ms >= BUDGET_MS - 200, `ended at the budget (${r.ms} ms)`);
  assert.ok(r.ms < BUDGET_MS + 3000, `ended soon after the budget (${r.ms} ms)`);
}

const balance = (r: Reply) => Number(r.headers.get('x-credits-remaining'));

/** Nothing of a cut render keeps running: its long polls are closed with its page. */
async function assertTornDown(): Promise<void> {
  assert.ok(await eventually(() => fx.openHangs() === 0, 3000), `the page's requests were closed (${fx.openHangs()} open)`);
}

/** screenshot_render_seconds' count for one outcome. */
describe('a page that never reaches network idle', () => {
  test('by default: 504 render_timeout as the spec says, nothing billed', async () => {
    const before = await shoot(srv.url, { url: url('settles'), viewport });
    const r = await shoot(srv.url, { url: url('poll'), viewport });
    assertTimeout(r);
    assert.match(r.json.message, /networkidle2/);
    const next = await shoot(srv.url, { url: url('settles'), viewport });
    assert.equal(balance(next), balance(before) - 1, 'only the successful capture was billed');
    await assertTornDown();
  });

  test('captureOnTimeout: 200 with what the page shows, x-wait-timed-out: idle, one credit', async () => {
    const before = await shoot(srv.url, { url: url('settles'), viewport });
    const cutBefore = await renderCount(srv.url, 'wait_timed_out');
    const okBefore = await renderCount(srv.url, 'ok');
    const r = await shoot(srv.url, { url: url('poll'), viewport, captureOnTimeout: true });
    assertCut(r, 'idle');
    assert.equal(await renderCount(srv.url, 'wait_timed_out'), cutBefore + 1, 'the metrics count it as cut short');
    assert.equal(await renderCount(srv.url, 'ok'), okBefore, 'not as a settled render');
    assert.ok(near(await colour(r), GREEN), 'the page content is in the image');
    assert.equal(balance(r), balance(before) - 1, 'charged exactly once');
    assert.equal(r.headers.get('x-target-status'), '200');
    assert.match(r.headers.get('server-timing') ?? '', /idle;dur=.*banners;dur=.*capture;dur=/, 'clean-up and capture ran after the cut');
    await assertTornDown();
  });

  // The mechanism of a flake seen once in a fresh run (200 without x-wait-timed-out in 1.26 s): with the timer alone, a
  // renderer whose script runs late leaves nothing in flight for longer than the idle window, and the page really is
  // idle. Here the script is held for 1.5 s on purpose; the three requests from the start keep the page busy anyway.
  test('a polling page whose script is held up past the idle window: idle with the timer alone, busy with requests from the start', async () => {
    const timerOnly = await shoot(srv.url, { html: pollingPage(`t${++seq}`, { fromStart: 0, starveMs: 1500 }), viewport, captureOnTimeout: true });
    assert.equal(timerOnly.status, 200, show(timerOnly));
    assert.equal(timerOnly.headers.get('x-wait-timed-out'), null, 'nothing was in flight for the idle window: settled, not cut');
    const held = await shoot(srv.url, { html: pollingPage(`t${++seq}`, { starveMs: 1500 }), viewport, captureOnTimeout: true });
    assertCut(held, 'idle');
    await assertTornDown();
  });

  test('captureOnTimeout in html mode, fullPage: the idle wait is cut and the lazy scroll skipped', async () => {
    const r = await shoot(srv.url, { html: pollingPage(`t${++seq}`), viewport, fullPage: true, captureOnTimeout: true });
    assertCut(r, 'idle, lazy-scroll');
    assert.ok(near(await colour(r), GREEN));
    assert.equal((await decode(r.body)).height, 3000, 'the whole page');
    await assertTornDown();
  });

  test('captureOnTimeout: false is the default, 504', async () => {
    const r = await shoot(srv.url, { url: url('poll'), viewport, waitUntil: 'networkidle0', captureOnTimeout: false });
    assertTimeout(r);
    await assertTornDown();
  });
});

describe('waitForSelector that never matches', () => {
  test('captureOnTimeout: 200, x-wait-timed-out: selector', async () => {
    const r = await shoot(srv.url, { url: url('settles'), viewport, waitUntil: 'load', waitForSelector: '#never', captureOnTimeout: true });
    assertCut(r, 'selector');
    assert.ok(near(await colour(r), GREEN));
  });

  test('without the option: 504', async () => {
    const r = await shoot(srv.url, { url: url('settles'), viewport, waitUntil: 'load', waitForSelector: '#never' });
    assertTimeout(r);
    assert.match(r.json.message, /waitForSelector/);
    assert.doesNotMatch(r.json.message, /#never/, 'messages never quote the selector');
  });
});

describe('the load step', () => {
  test('an image that never arrives holds the load event: captured as loaded so far, x-wait-timed-out: load, idle', async () => {
    const r = await shoot(srv.url, { url: url('dead-image'), viewport, captureOnTimeout: true });
    assertCut(r, 'load, idle');
    assert.ok(near(await colour(r), GREEN));
    assert.equal(r.headers.get('x-target-status'), '200', 'the status of the document that did arrive');
    await assertTornDown();
  });

  test('a target that never answers: still 504 with the option (nothing to capture)', async () => {
    const r = await shoot(srv.url, { url: url('no-answer'), viewport, captureOnTimeout: true });
    assertTimeout(r);
    assert.match(r.json.message, /loading/);
  });
});

describe('a page that settles', () => {
  test('captureOnTimeout changes nothing: no x-wait-timed-out, the settled page', async () => {
    const r = await shoot(srv.url, { url: url('settles'), viewport, captureOnTimeout: true });
    assert.ok(near(await colour(r), GREEN), 'captured after it settled');
    assert.equal(r.headers.get('x-wait-timed-out'), null);
    assert.ok(r.ms < WAITS_END_MS, `${r.ms} ms`);
  });
});

describe('the result cache', () => {
  test('a capture cut short is never stored; a settled one is', async () => {
    const poll = { url: url('poll'), viewport, captureOnTimeout: true };
    const first = await shoot(srv.url, poll);
    assertCut(first, 'idle');
    const second = await shoot(srv.url, poll);
    assertCut(second, 'idle');
    assert.equal(second.headers.get('x-cache'), 'miss', 'rendered afresh');

    const settled = { url: url('settles'), viewport, captureOnTimeout: true };
    assert.equal((await shoot(srv.url, settled)).headers.get('x-cache'), 'miss');
    const hit = await shoot(srv.url, settled);
    assert.equal(hit.headers.get('x-cache'), 'hit', 'the cache is on in this server');
    assert.equal(hit.headers.get('x-wait-timed-out'), null);
    const { captureOnTimeout: _, ...without } = settled;
    assert.equal((await shoot(srv.url, without)).headers.get('x-cache'), 'hit', 'a stored capture is settled: the option is not in the key');
    await assertTornDown();
  });

  test('a request that waited for an identical render, which then timed out, answers within its own budget', async () => {
    // Single flight: the second waits for the first's entry; the first ends in 504 with nothing
    // stored, and the second then renders itself. Its wait counts against its own budget:
    // before, it answered after about twice the budget (11.7 s here).
    const same = { url: url('settles'), viewport, waitUntil: 'load', waitForSelector: '#never' };
    const first = shoot(srv.url, same);
    // The first leads once its page is asked for (the flight is claimed before the render starts).
    const { pathname, search } = new URL(same.url);
    assert.ok(await eventually(() => fx.hits.includes(pathname + search), 10_000, 10), 'the first render has begun');
    const second = await shoot(srv.url, same);
    assert.equal((await first).status, 504, show(await first));
    assert.equal(second.status, 504, show(second));
    assert.equal(second.json?.error, 'render_timeout');
    assert.ok(second.ms <= BUDGET_MS + SLACK_MS, `answered after ${second.ms} ms`);
    await assertTornDown();
  });
});
