// clip (server/clip/): exactly one region of the page, in CSS pixels of the document, times the
// scale factor, exact to the pixel at scale 1 and 2 inside a page taller than the viewport, with or
// without fullPage, wherever the page is scrolled; the same pixels as that region of the full-page
// capture; a region past the page's end shows its background. Refused: with selector, over the
// output ceiling or the format's side limit (400 naming clip, free).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { shoot, show } from '../support/http.ts';
import { decode, keep } from '../support/image.ts';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';

let srv: TestServer;

// A page 3000 px tall in a 320 x 240 window: 1-px stripes (red/blue rows) everywhere, and a green
// box of exactly 50 x 30 CSS px at (101, 1501), far below the fold.
const TALL = `<!doctype html><body style="margin:0"><div style="height:3000px;background:repeating-linear-gradient(to bottom, #e02020 0 1px, #2050d0 1px 2px)"></div>
<div style="position:absolute;left:101px;top:1501px;width:50px;height:30px;background:#20a040"></div></body>`;
const BOX = { x: 101, y: 1501, width: 50, height: 30 };
const base = { html: TALL, viewport: { width: 320, height: 240 }, waitUntil: 'load', blockCookieBanners: false };

before(async () => {
  srv = await startTestServer({ MAX_OUTPUT_PIXELS: '4000000' });
});

after(async () => {
  await srv?.close();
});

const raw = async (png: Buffer) => (await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })).data;
const balance = async () => srv.server.accounts.balance((await srv.server.accounts.authenticate(TEST_KEY))!);

describe('clip', () => {
  for (const scale of [1, 2]) {
    test(`scale ${scale}: exactly the region, to the pixel, below the fold, with and without fullPage`, async () => {
      const vp = { ...base.viewport, deviceScaleFactor: scale };
      // The box itself: every pixel green. One CSS px more on each side: a ring of `scale` device
      // px of stripes, then green.
      for (const fullPage of [false, true]) {
        const r = await shoot(srv.url, { ...base, viewport: vp, fullPage, clip: BOX });
        assert.equal(r.status, 200, show(r));
        const img = await decode(r.body);
        assert.deepEqual([img.width, img.height], [BOX.width * scale, BOX.height * scale]);
        for (let y = 0; y < img.height; y++)
          for (let x = 0; x < img.width; x++) assert.deepEqual(img.at(x, y).slice(0, 3), [0x20, 0xa0, 0x40], `(${x}, ${y}) fullPage ${fullPage}`);
      }
      const ring = await shoot(srv.url, { ...base, viewport: vp, clip: { x: BOX.x - 1, y: BOX.y - 1, width: BOX.width + 2, height: BOX.height + 2 } });
      keep(`clip-ring-${scale}x.png`, ring.body);
      const img = await decode(ring.body);
      assert.deepEqual([img.width, img.height], [(BOX.width + 2) * scale, (BOX.height + 2) * scale]);
      const green = (x: number, y: number) => img.at(x, y)[1] === 0xa0;
      for (let d = 0; d < scale; d++) {
        assert.ok(
          !green(img.width / 2, d) && !green(img.width / 2, img.height - 1 - d) && !green(d, img.height / 2) && !green(img.width - 1 - d, img.height / 2),
          `the ring, ${d}`,
        );
      }
      assert.ok(green(scale, scale) && green(img.width - 1 - scale, img.height - 1 - scale), 'then the box, at once');
      // Row 1500 of the page is red (even rows), so the ring's top row is red, its next (the box's top) green.
      assert.deepEqual(img.at(img.width / 2, 0).slice(0, 3), [0xe0, 0x20, 0x20]);
    });

    test(`scale ${scale}: the same pixels as that region of the full-page capture, wherever the page is scrolled`, async () => {
      const vp = { ...base.viewport, deviceScaleFactor: scale };
      const region = { x: 37, y: 1203, width: 123, height: 77 };
      const full = await shoot(srv.url, { ...base, viewport: vp, fullPage: true });
      assert.equal(full.status, 200, show(full));
      const crop = await raw(
        await sharp(full.body)
          .extract({ left: region.x * scale, top: region.y * scale, width: region.width * scale, height: region.height * scale })
          .png()
          .toBuffer(),
      );
      for (const extra of [{}, { fullPage: true }, { actions: [{ scrollTo: 'div' }, { press: 'End' }] }]) {
        const r = await shoot(srv.url, { ...base, viewport: vp, clip: region, ...extra });
        assert.equal(r.status, 200, show(r));
        assert.ok((await raw(r.body)).equals(crop), `identical to the full page's region: ${JSON.stringify(extra)}`);
      }
    });
  }

  test('a region past the end of the page is still its exact size, showing the background', async () => {
    const r = await shoot(srv.url, { ...base, viewport: { width: 320, height: 240, deviceScaleFactor: 2 }, clip: { x: 300, y: 2990, width: 40, height: 20 } });
    assert.equal(r.status, 200, show(r));
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [80, 40]);
    assert.deepEqual(img.at(79, 39).slice(0, 3), [255, 255, 255], 'beyond the page: its (white) background');
    assert.notDeepEqual(img.at(0, 0).slice(0, 3), [255, 255, 255], 'the stripes where the page is');
  });

  test("refused before rendering, naming clip, free: with selector, over the output ceiling, over webp's side", async () => {
    const before = await balance();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ clip: BOX, selector: 'div' }, /^clip and selector cannot be combined/],
      [
        { clip: { x: 0, y: 0, width: 2000, height: 2001 } },
        /^clip is 2000x2001 device pixels at this deviceScaleFactor; the output is limited to 4000000 pixels/,
      ],
      [{ clip: { x: 0, y: 0, width: 1500, height: 1500 }, viewport: { width: 320, height: 240, deviceScaleFactor: 2 } }, /^clip is 3000x3000 device pixels/],
      [{ clip: { x: 0, y: 0, width: 17000, height: 10 }, format: 'webp' }, /^format webp images are limited to 16383 pixels per side; clip is 17000x10/],
      [{ clip: { x: -1, y: 0, width: 1, height: 1 } }, /^clip\.x must be an integer between 0 and 100000$/],
      [{ clip: { x: 0, y: 0, width: 1.5, height: 1 } }, /^clip\.width must be an integer/],
    ];
    for (const [body, message] of cases) {
      const r = await shoot(srv.url, { ...base, ...body });
      assert.equal(r.status, 400, show(r));
      assert.match(r.json.message, message);
    }
    assert.equal(await balance(), before);
  });
});
