// Tall and endless pages over real HTTP with the real browser (server/tall-pages/): an endless feed
// with fullPage ends fast, cut where the endless-page rule stops the scroll; fullPageMaxHeight is
// honoured exactly, replaces the endless rule, and cuts nothing on a shorter page; every cut says
// the full height and its reason in x-capture-truncated and is billed. The budget cut (reason
// time) needs a short budget: test/api/tall-budget.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ENDLESS_GROWTH_VIEWPORTS } from '../../server/tall-pages/fields.ts';
import { HEADER } from '../../server/response/registry.ts';
import { parseTruncation } from '../../server/tall-pages/truncation.ts';
import { shoot, show, type Reply } from '../support/http.ts';
import { decode, keep, near } from '../support/image.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const BUDGET_MS = 15_000;
/** A small output ceiling, so that a cut at the ceiling is cheap to show (400 px wide: 10,000 rows). */
const MAX_OUTPUT_PIXELS = 4_000_000;
let srv: TestServer;

before(async () => {
  srv = await startTestServer({ RENDER_BUDGET_MS: String(BUDGET_MS), MAX_OUTPUT_PIXELS: String(MAX_OUTPUT_PIXELS) });
});

after(async () => {
  await srv?.close();
});

/** Item i's colour: pairwise distinct over the first hundred (checked below). */
const colour = (i: number) => [(i * 83 + 20) % 256, (i * 47 + 200) % 256, (i * 151 + 90) % 256];
const ITEM = 100;

/**
 * An endless feed: 20 items of 100 px, and 10 more whenever the viewport comes within 600 px of
 * the end, for ever (what a social feed does: an IntersectionObserver on a mark after the last
 * item; the service's scroll is hidden from scroll listeners, server/render/hide-scroll.ts).
 */
const feed = `<!doctype html><style>html,body{margin:0}.i{height:${ITEM}px}</style><div id=feed></div><div id=end></div><script>
  const colour = ${colour.toString()};
  let n = 0;
  const more = (k) => { for (let j = 0; j < k; j++, n++) { const d = document.createElement('div'); d.className = 'i'; d.style.background = 'rgb(' + colour(n) + ')'; feed.appendChild(d); } };
  more(20);
  new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) more(10); }, { rootMargin: '0px 0px 600px 0px' }).observe(end);
</script>`;
const viewport = { width: 400, height: 300 };

function assertCut(r: Reply, reason: string): number {
  assert.equal(r.status, 200, show(r));
  assert.equal(r.headers.get('x-credits-charged'), '1', 'billed as a success');
  const cut = parseTruncation(r.headers.get(HEADER.captureTruncated) ?? undefined);
  assert.ok(cut, `${HEADER.captureTruncated}: ${r.headers.get(HEADER.captureTruncated)}`);
  assert.equal(cut.reason, reason, `${HEADER.captureTruncated}: ${r.headers.get(HEADER.captureTruncated)}`);
  assert.match(r.headers.get(HEADER.captureTruncated)!, new RegExp(`^\\d+; reason=${reason}$`));
  return cut.fromHeight;
}

async function assertItems(body: Buffer, height: number): Promise<void> {
  const img = await decode(body);
  assert.deepEqual([img.width, img.height], [viewport.width, height], 'exactly this tall');
  for (let i = 0; i < height / ITEM; i++) {
    const px = img.at(200, i * ITEM + ITEM / 2);
    assert.ok(near(px, colour(i), 2), `item ${i} at y=${i * ITEM + ITEM / 2}: ${px.slice(0, 3)}, want ${colour(i)}`);
  }
}

describe('an endless feed', () => {
  test('the item colours are pairwise distinct (test precondition)', () => {
    for (let i = 0; i < 100; i++)
      for (let j = i + 1; j < 100; j++) assert.ok(Math.max(...[0, 1, 2].map((k) => Math.abs(colour(i)[k]! - colour(j)[k]!))) > 6, `${i} ${j}`);
  });

  test('fullPage answers 200 within the budget, cut where the endless-page rule stopped the scroll (reason endless)', async () => {
    const r = await shoot(srv.url, { html: feed, fullPage: true, viewport, waitUntil: 'load', blockCookieBanners: false });
    keep('endless-feed.png', r.body);
    const full = assertCut(r, 'endless');
    // The rule: grown past max(start + 10 viewports, 2 x start); the feed starts at 20 items.
    const at = Math.max(20 * ITEM + ENDLESS_GROWTH_VIEWPORTS * viewport.height, 2 * 20 * ITEM);
    assert.ok(full > at, `the full height is the page's when captured, past the cut (${full})`);
    await assertItems(r.body, at);
    assert.ok(r.ms < BUDGET_MS, `answered within the budget, not at the ceiling of the scroll (${r.ms} ms)`);
    assert.match(r.headers.get('server-timing') ?? '', /(^|, )lazy-scroll;/);
  });

  test('fullPageMaxHeight replaces the endless rule: the feed is scrolled and captured to exactly that height (reason height)', async () => {
    const r = await shoot(srv.url, { html: feed, fullPage: true, fullPageMaxHeight: 8000, viewport, waitUntil: 'load', blockCookieBanners: false });
    const full = assertCut(r, 'height');
    assert.ok(full > 8000, `the page had grown past the bound (${full})`);
    await assertItems(r.body, 8000);
  });
});

describe('fullPageMaxHeight on a page that does not grow', () => {
  const bands = ['#e02020', '#20a040', '#2050d0'].map((c) => `<div style="height:1000px;background:${c}"></div>`).join('');
  const page = `<!doctype html><style>html,body{margin:0}</style>${bands}`;

  test('honoured exactly, in CSS px at any deviceScaleFactor; the header gives the full height', async () => {
    const r = await shoot(srv.url, {
      html: page,
      fullPage: true,
      fullPageMaxHeight: 1234,
      viewport: { width: 200, height: 150, deviceScaleFactor: 2 },
      waitUntil: 'load',
    });
    assert.equal(assertCut(r, 'height'), 3000);
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [400, 2468]);
    assert.ok(near(img.at(200, 1990), [0xe0, 0x20, 0x20], 2), `band 1 to CSS y 1000: ${img.at(200, 1990)}`);
    assert.ok(near(img.at(200, 2010), [0x20, 0xa0, 0x40], 2), `band 2 from CSS y 1000: ${img.at(200, 2010)}`);
    assert.ok(near(img.at(200, 2467), [0x20, 0xa0, 0x40], 2), 'the last row is band 2, at CSS y 1233');
  });

  test('below the viewport height too', async () => {
    const r = await shoot(srv.url, { html: page, fullPage: true, fullPageMaxHeight: 100, viewport, waitUntil: 'load' });
    assert.equal(assertCut(r, 'height'), 3000);
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [400, 100]);
  });

  test('a page shorter than the bound is captured whole, with no x-capture-truncated', async () => {
    const r = await shoot(srv.url, { html: page, fullPage: true, fullPageMaxHeight: 5000, viewport, waitUntil: 'load' });
    assert.equal(r.status, 200, show(r));
    assert.equal(r.headers.get(HEADER.captureTruncated), null);
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [400, 3000]);
  });

  test('a bad value or a missing fullPage is a 400 naming the field', async () => {
    for (const body of [{ fullPage: true, fullPageMaxHeight: 0 }, { fullPage: true, fullPageMaxHeight: 1.5 }, { fullPageMaxHeight: 100 }]) {
      const r = await shoot(srv.url, { html: page, ...body });
      assert.equal(r.status, 400, show(r));
      assert.match(r.json?.message ?? '', /fullPageMaxHeight/);
    }
  });
});

describe('the output ceiling says so too (reason size)', () => {
  test('a page taller than MAX_OUTPUT_PIXELS allows at its width is cut to the rows that fit', async () => {
    const html = '<!doctype html><style>html,body{margin:0}</style><div style="height:12000px;background:linear-gradient(#123456,#654321)"></div>';
    const r = await shoot(srv.url, { html, fullPage: true, viewport, waitUntil: 'load' });
    assert.equal(assertCut(r, 'size'), 12000);
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [400, MAX_OUTPUT_PIXELS / 400]);
  });
});
