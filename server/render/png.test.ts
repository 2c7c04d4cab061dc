// The PNG re-encode (png.ts) on each kind of picture it tells apart: a flat page, text, dense
// small text (near the photographic threshold), a photo card, a transparent one. On each, the PNG
// decodes to exactly the pixels of Chromium's default capture (lossless: the fast path may never
// change a pixel), and its bytes stay within what was measured against Chromium's default PNG:
// no more on flat pictures, dense text and an opaque photo card; a few % more on a translucent
// photo (alpha), up to 10% more on ordinary text, where only
// zlib's slowest level does better and costs more CPU than Chromium's own encoder
// (docs/performance.md).
//   node --import tsx --test server/render/png.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { PNG } from 'pngjs';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';
import { compactPng, pngSize } from './png.ts';

let chromium: LaunchedBrowser;
let page: Page;
before(async () => {
  chromium = await launchChromium();
  page = await chromium.browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
});
after(async () => chromium?.close());

/** Deterministic noise with smooth colour fields under it: compresses like a photograph. */
function photo(width = 560, height = 560): string {
  const png = new PNG({ width, height });
  let x = 7;
  for (let y = 0; y < height; y++) {
    for (let i = 0; i < width; i++) {
      const o = (y * width + i) * 4;
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      png.data[o] = (i * 255) / width + ((x >> 20) % 24);
      png.data[o + 1] = (y * 255) / height + ((x >> 12) % 24);
      png.data[o + 2] = 128 + ((x >> 4) % 24);
      png.data[o + 3] = 255;
    }
  }
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'tempor'][(i * 7) % 6]).join(' ');

/** `maxBytes`: at most this many times the bytes of Chromium's default PNG. */
const PICTURES: Record<string, { html: string; omitBackground?: boolean; maxBytes: number }> = {
  'a flat page (a heading on white)': { html: '<body style="margin:40px;font:32px sans-serif"><h1>Plain</h1></body>', maxBytes: 1 },
  text: { html: `<body style="margin:24px;font:16px/1.5 serif">${`<p>${words(120)}</p>`.repeat(6)}</body>`, maxBytes: 1.15 },
  'dense small text in colours': {
    html: `<body style="margin:4px;font:9px/11px sans-serif;columns:6">${Array.from({ length: 120 }, (_, i) => `<p style="margin:0;color:hsl(${(i * 47) % 360},60%,30%)">${words(40)}</p>`).join('')}</body>`,
    maxBytes: 1,
  },
  'a card with a photo': {
    html: `<body style="margin:0;background:linear-gradient(135deg,#1d2b64,#f8cdda);font:bold 48px sans-serif;color:#fff"><img src="${photo()}" style="float:right;margin:60px"><h1 style="margin:80px 60px">A title</h1></body>`,
    maxBytes: 1,
  },
  'a photo on a transparent background (omitBackground)': {
    html: `<body style="margin:0"><img src="${photo(300, 300)}" style="opacity:.6;margin:50px"></body>`,
    omitBackground: true,
    maxBytes: 1.05,
  },
};

describe("the re-encoded PNG has exactly the pixels of Chromium's default capture", () => {
  for (const [name, p] of Object.entries(PICTURES)) {
    test(name, async () => {
      await page.setContent(p.html, { waitUntil: 'load' });
      const common = { type: 'png', omitBackground: !!p.omitBackground, fromSurface: true } as const;
      const reference = Buffer.from(await page.screenshot(common));
      const fast = Buffer.from(await page.screenshot({ ...common, optimizeForSpeed: true }));
      const ours = await compactPng(fast);
      const [a, b] = [PNG.sync.read(reference), PNG.sync.read(ours)];
      assert.deepEqual([b.width, b.height], [a.width, a.height]);
      assert.deepEqual(pngSize(ours), { width: 1280, height: 720 });
      assert.ok(a.data.equals(b.data), 'decoded RGBA differs');
      if (p.omitBackground)
        assert.ok(
          a.data.some((v, i) => i % 4 === 3 && v > 0 && v < 255),
          'test precondition: translucent pixels',
        );
      assert.ok(ours.length <= reference.length * p.maxBytes, `at most ${p.maxBytes}x the bytes of Chromium's default (${ours.length} vs ${reference.length})`);
      assert.ok(ours.length < fast.length, `fewer bytes than Chromium's fast PNG (${ours.length} vs ${fast.length})`);
    });
  }
});

test('pngSize reads the header, and refuses what is not a PNG', () => {
  const png = PNG.sync.write(new PNG({ width: 3, height: 2 }));
  assert.deepEqual(pngSize(png), { width: 3, height: 2 });
  assert.throws(() => pngSize(Buffer.from('GIF89a')), /not a PNG/);
});
