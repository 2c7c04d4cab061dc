// A full page that cannot be captured in the time left (server/tall-pages/, server/capture-cost/):
// the capture is planned against what is left of the render budget and cut to the rows that fit,
// a 200 billed as a success whose x-capture-truncated gives the full height and reason=time,
// never a 504. The server runs with RENDER_BUDGET_MS=2500, so that no machine can capture the
// 65,000 px page whole in what is left after loading and scrolling it (and no test waits 20 s).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { HEADER } from '../../server/response/registry.ts';
import { parseTruncation } from '../../server/tall-pages/truncation.ts';
import { shoot, show } from '../support/http.ts';
import { decode, keep, near } from '../support/image.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const BUDGET_MS = 2500;
/** How late after the budget an answer may arrive (the budget is the promise; this is scheduling). */
const SLACK_MS = 750;
let srv: TestServer;

before(async () => {
  srv = await startTestServer({ RENDER_BUDGET_MS: String(BUDGET_MS) });
});

after(async () => {
  await srv?.close();
});

const BANDS = 65;
const colour = (i: number) => [(i * 83 + 20) % 256, (i * 47 + 200) % 256, (i * 151 + 90) % 256];
const bands = (n: number) =>
  `<!doctype html><style>html,body{margin:0}div{height:1000px}</style>${Array.from({ length: n }, (_, i) => `<div style="background:rgb(${colour(i)})"></div>`).join('')}`;
const request = (n: number) => ({ html: bands(n), fullPage: true, waitUntil: 'load', blockCookieBanners: false });

test('a page too tall for the time left: 200 with the rows that fit, x-capture-truncated "<full height>; reason=time", billed', async () => {
  // One capture first, so that the cost model has seen this machine as it is now.
  // On a busy machine a cold first capture can run out of the short budget: tried again then.
  let warm = await shoot(srv.url, request(6));
  for (let i = 0; i < 3 && warm.status === 504; i++) warm = await shoot(srv.url, request(6));
  assert.equal(warm.status, 200, show(warm));

  const r = await shoot(srv.url, request(BANDS));
  assert.equal(r.status, 200, `not a 504: ${show(r)}`);
  assert.ok(r.ms < BUDGET_MS + SLACK_MS, `within the budget (${r.ms} ms)`);
  assert.equal(r.headers.get('x-credits-charged'), '1', 'billed as a success');
  assert.deepEqual(
    parseTruncation(r.headers.get(HEADER.captureTruncated) ?? undefined),
    { fromHeight: BANDS * 1000, reason: 'time' },
    `${HEADER.captureTruncated}: ${r.headers.get(HEADER.captureTruncated)}`,
  );
  keep('tall-budget.png', r.body);

  const img = await decode(r.body);
  assert.equal(img.width, 1280);
  assert.ok(img.height >= 720 && img.height < BANDS * 1000, `the top of the page, at least its first screen (${img.height} px)`);
  for (let y = 0; y < img.height; y += 250) {
    const i = Math.floor(y / 1000);
    assert.ok(near(img.at(640, y), colour(i), 2), `band ${i} in place at y=${y}: ${img.at(640, y).slice(0, 3)}`);
  }
  assert.ok(near(img.at(640, img.height - 1), colour(Math.floor((img.height - 1) / 1000)), 2), 'the last row is the band it belongs to');
});
