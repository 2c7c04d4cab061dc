// A banner that comes after the clean-up (spec §4.1 rule 3: banners are removed "before
// capturing"): the page adds one, or reveals one it had hidden, at the moment the clean-up hides
// its first banner, that is after the clean-up looked and before the picture. The last look
// (server/cleanup/last-look.ts) must keep it out of the picture. No timer decides the moment: the
// page reacts to the clean-up itself (a MutationObserver on its first banner), so the second
// banner is in the document before the capture, every time. Checked as pixels.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { shoot, show } from '../support/http.ts';
import { decode, keep, probeFailures, type Probe } from '../support/image.ts';

let srv: TestServer;
before(async () => void (srv = await startTestServer()));
after(() => srv?.close());

const VP = { width: 800, height: 600 };
const PAGE: [number, number, number] = [0xf7, 0xf4, 0xec];
const BANNER: [number, number, number] = [0x7a, 0x1f, 0x1f];
const hex = (c: number[]) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
const TOP = { x: 0, y: 0, w: 800, h: 90 };
const BOTTOM = { x: 0, y: 500, w: 800, h: 100 };

const bar = (id: string, where: 'top' | 'bottom', style = '') =>
  `<div id="${id}" style="position:fixed;left:0;right:0;${where}:0;height:100px;background:${hex(BANNER)};color:#fff;z-index:9999;${style}">` +
  '<p>We use cookies to personalise content and ads and to analyse our traffic.</p><button type="button">Got it</button></div>';

/**
 * A page with a cookie notice at the bottom; once the clean-up has hidden it, the page at once
 * either adds (`add`) a second notice at the top, or shows (`reveal`) one it had hidden there.
 */
function pageWith(mode: 'add' | 'reveal'): string {
  const second = mode === 'add' ? '' : bar('second', 'top', 'display:none');
  return `<!doctype html><html><body style="margin:0;background:${hex(PAGE)};font:16px sans-serif">
<main style="padding:120px 40px"><h1>An article</h1><p>${'Some text of the article, long enough to be content. '.repeat(30)}</p></main>
${bar('first', 'bottom')}${second}
<script>
const first = document.getElementById('first');
new MutationObserver(function () {
  if (first.checkVisibility()) return;
  this.disconnect();
  ${mode === 'add' ? `document.body.insertAdjacentHTML('beforeend', ${JSON.stringify(bar('second', 'top'))});` : `document.getElementById('second').style.display = 'block';`}
}).observe(first, { attributes: true });
</script></body></html>`;
}

const gone = (region: typeof TOP, label: string): Probe => ({ kind: 'color', region, rgb: PAGE, tolerance: 10, fraction: 0.98, label });
const there = (region: typeof TOP, label: string): Probe => ({ kind: 'color', region, rgb: BANNER, tolerance: 12, fraction: 0.5, label });

for (const mode of ['add', 'reveal'] as const) {
  test(`a banner the page ${mode === 'add' ? 'adds' : 'reveals'} after the clean-up ran is not in the picture`, async () => {
    const r = await shoot(srv.url, { html: pageWith(mode), viewport: VP });
    assert.equal(r.status, 200, show(r));
    keep(`late-banner-${mode}.png`, r.body);
    const img = await decode(r.body);
    assert.deepEqual(probeFailures(img, [gone(BOTTOM, 'the first banner is gone'), gone(TOP, 'the second banner is gone')]), []);
    assert.match(r.headers.get('x-banner-action') ?? '', /^hidden/);
    assert.match(r.headers.get('server-timing') ?? '', /(^|, )last-look;dur=/, 'the last look is a step of its own');
  });
}

test('control: with blockCookieBanners false nothing is hidden, so the second banner never comes', async () => {
  const r = await shoot(srv.url, { html: pageWith('add'), viewport: VP, blockCookieBanners: false });
  assert.equal(r.status, 200, show(r));
  const img = await decode(r.body);
  assert.deepEqual(probeFailures(img, [there(BOTTOM, 'the first banner is there'), gone(TOP, 'no second banner')]), []);
  assert.equal(r.headers.get('x-banner-action'), 'none');
});
