// A full page right after the clean-up lifted a scroll lock (spec §4.1 rule 3) is as tall as the
// unlocked page, however late the page's rendering is. The clean-up changes styles and returns;
// the layout follows at the renderer's next frame. Chromium's own full-page path (captureScreenshot
// without a clip: puppeteer's fullPage) sizes the picture from the last layout without making a
// new one, so when that frame has not come yet (a renderer still busy with the load on a saturated
// machine) it captured the locked 1280x720: the fixtures test's failure in one fresh CI run. The
// server (and that test since) sizes a full page with Page.getLayoutMetrics (render/capture.ts
// pageSize), which lays the page out first. Here the page itself holds its rendering back (a view
// transition whose update takes 1.5 s), which makes the late frame certain instead of rare.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { PNG } from 'pngjs';
import { attachCleanup } from './index.ts';
import { pageSize } from '../render/capture.ts';
import { CONSENT_DIR } from '../../conformance/fixture-pages/fixtures.ts';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';

const LOCKED = 720;
const UNLOCKED = 2000; // the fixture's page (fixtures/consent/src/custom.ts modal-backdrop-lock)

let chromium: LaunchedBrowser;
before(async () => {
  chromium = await launchChromium();
});
after(async () => {
  await chromium?.close();
});

/** The modal-backdrop-lock fixture, cleaned up while the page's rendering is held back; then `measure`. */
async function unlockedThenMeasured<T>(measure: (page: Page) => Promise<T>): Promise<{ action: string; size: T }> {
  const ctx = await chromium.browser.createBrowserContext();
  try {
    const page = await ctx.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    const session = await attachCleanup(page, { blockCookieBanners: true, hideSelectors: [], blockAds: false });
    await page.setContent(readFileSync(path.join(CONSENT_DIR, 'modal-backdrop-lock.html'), 'utf8'), { waitUntil: 'load' });
    // no new frame until the transition's update is done: the page's rendering stays as it was
    await page.evaluate(
      () =>
        new Promise<void>((held) => {
          document.startViewTransition(() => {
            held();
            return new Promise((done) => setTimeout(done, 1500));
          });
        }),
    );
    const action = await session.finish(Date.now() + 15_000);
    return { action, size: await measure(page) };
  } finally {
    await ctx.close();
  }
}

const pngSize = (png: Uint8Array) => {
  const p = PNG.sync.read(Buffer.from(png));
  return { width: p.width, height: p.height };
};

test("the server's full-page size is the unlocked page's, however late the page's next frame", async () => {
  const { action, size } = await unlockedThenMeasured(async (page) => {
    const client = await page.createCDPSession();
    const clip = { x: 0, y: 0, ...(await pageSize(client)) };
    return pngSize(await page.screenshot({ type: 'png', clip, captureBeyondViewport: true }));
  });
  assert.equal(action, 'hidden:generic', 'the clean-up hid the modal (and so lifted the lock)');
  assert.equal(size.width, 1280);
  assert.ok(size.height >= UNLOCKED, `a ${size.width}x${size.height} picture of the unlocked ${UNLOCKED} px page`);
});

test("control: Chromium's own full-page path, in the same state, still gives the locked 1280x720", async () => {
  // What the fixtures test did before it sized pages as the server does. If a later Chromium lays
  // the page out first here too, this control fails: the race is then gone from Chromium, not from
  // the page, and this file can go.
  const { action, size } = await unlockedThenMeasured(async (page) => pngSize(await page.screenshot({ type: 'png', fullPage: true })));
  assert.equal(action, 'hidden:generic');
  assert.deepEqual(size, { width: 1280, height: LOCKED }, 'the size of the last layout, from before the unlock');
});
