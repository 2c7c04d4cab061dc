// The fast PNG path is lossless: Chromium's quick encoder re-encoded by sharp decodes
// to exactly the pixels of Chromium's default PNG capture, alpha included, on pages that stress
// the encoder (gradients, text, a photo-like noise image, transparency) and on a tall full page.
// So are the tall-capture paths (server/tall-pages/): Chromium's fast PNG sent as it is when the
// re-encode does not fit in the budget, and a capture cut for time, which is the top of the full
// capture row for row.
//   node --import tsx --test server/render/capture.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { PNG } from 'pngjs';
import { validateRequest } from '../request/validate.ts';
import { capture } from './capture.ts';
import { compactPng } from './png.ts';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';

let chromium: LaunchedBrowser;
let page: Page;
before(async () => {
  chromium = await launchChromium();
  page = await chromium.browser.newPage();
});
after(async () => chromium?.close());

// A deterministic noise image (a "photo": no run of equal pixels for zlib to find).
const noise = () => {
  const png = new PNG({ width: 300, height: 200 });
  let x = 12345;
  for (let i = 0; i < png.data.length; i++) png.data[i] = i % 4 === 3 ? 255 : (x = (x * 1103515245 + 12345) & 0x7fffffff) >> 23;
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
};

const PAGES: Record<string, { html: string; omitBackground?: boolean; fullPage?: boolean }> = {
  'gradient share card': {
    html: `<body style="margin:0"><div style="width:1200px;height:630px;background:linear-gradient(135deg,#ff6a00,#ee0979 50%,#4a00e0);color:#fff;font:bold 60px sans-serif;padding:60px;box-sizing:border-box">A title on a card<img src="${noise()}" style="display:block;margin-top:40px"></div></body>`,
  },
  'text on a transparent background (omitBackground)': {
    html: `<body style="margin:0;font:18px serif">${'<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit.</p>'.repeat(12)}<div style="width:200px;height:80px;background:rgba(0,128,255,.4)"></div></body>`,
    omitBackground: true,
  },
  'a 12,000 px full page of gradients and text': {
    html: `<body style="margin:0;font:16px sans-serif">${Array.from({ length: 12 }, (_, i) => `<div style="height:1000px;background:linear-gradient(hsl(${i * 30},70%,55%),hsl(${i * 30 + 40},60%,40%))"><p>${'words '.repeat(150)}</p></div>`).join('')}</body>`,
    fullPage: true,
  },
};

async function pixels(png: Uint8Array): Promise<PNG> {
  return PNG.sync.read(Buffer.from(png));
}

describe("fast PNG path: the same pixels as Chromium's default capture", () => {
  for (const [name, p] of Object.entries(PAGES)) {
    test(name, async () => {
      await page.setViewport({ width: 1200, height: 630 });
      await page.setContent(p.html, { waitUntil: 'load' });
      const common = { type: 'png', omitBackground: !!p.omitBackground, fullPage: !!p.fullPage, fromSurface: true } as const;
      const reference = await page.screenshot(common);
      const fast = await compactPng(Buffer.from(await page.screenshot({ ...common, optimizeForSpeed: true })));
      const [a, b] = [await pixels(reference), await pixels(fast)];
      assert.deepEqual([b.width, b.height], [a.width, a.height]);
      assert.ok(a.data.equals(b.data), 'decoded RGBA differs');
      if (p.omitBackground)
        assert.ok(
          a.data.some((v, i) => i % 4 === 3 && v === 0),
          'test precondition: transparent pixels',
        );
      if (name.includes('card')) assert.ok(fast.length <= reference.length, `no more bytes than Chromium's default (${fast.length} vs ${reference.length})`);
    });
  }
});

describe("tall captures: the same pixels as Chromium's default capture", () => {
  const tall = PAGES['a 12,000 px full page of gradients and text']!.html;
  const req = validateRequest({ html: tall, fullPage: true, viewport: { width: 1200, height: 630 } });
  let reference: PNG;
  before(async () => {
    await page.setViewport({ width: 1200, height: 630 });
    await page.setContent(tall, { waitUntil: 'load' });
    // lay the page out now: Chromium's own full-page path sizes the picture from the last layout,
    // which right after the load may not have come yet (server/cleanup/full-page-size.test.ts)
    await page.evaluate(() => document.documentElement.scrollHeight);
    reference = await pixels(await page.screenshot({ type: 'png', fullPage: true, fromSurface: true }));
  });
  const rows = (img: PNG, n: number) => img.data.subarray(0, n * img.width * 4);

  test("when the re-encode does not fit in what is left, Chromium's fast PNG is sent: not re-encoded, the same pixels", async () => {
    let calls = 0;
    const remainingMs = () => (calls++ === 0 ? 60_000 : 0); // time to capture, none to re-encode
    const client = await page.createCDPSession();
    const shot = await capture(page, client, req, 100_000_000, { remainingMs });
    await client.detach();
    assert.equal(shot.truncated, undefined);
    assert.ok(calls >= 2, 'the budget was asked again before the re-encode');
    assert.equal(shot.body.readUInt8(33 + 8 + 1), 0x01, "zlib level bits of Chromium's fast encoder (78 01), not sharp's");
    const b = await pixels(shot.body);
    assert.deepEqual([b.width, b.height], [reference.width, reference.height]);
    assert.ok(reference.data.equals(b.data), 'decoded RGBA differs');
  });

  test('a capture cut for time is the top of the full capture, row for row', async () => {
    const client = await page.createCDPSession();
    const shot = await capture(page, client, req, 100_000_000, { remainingMs: () => 0 });
    await client.detach();
    assert.deepEqual(shot.truncated, { fromHeight: reference.height, reason: 'time' });
    const b = await pixels(shot.body);
    assert.equal(b.width, reference.width);
    assert.equal(b.height, 630, 'with no time left, the first screen');
    assert.ok(rows(reference, b.height).equals(b.data), 'decoded RGBA differs from the top of the full capture');
  });
});
