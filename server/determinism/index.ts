// Deterministic pictures (request field `deterministic`): two captures of the same page
// give the same bytes. Visual monitoring compares captures; everything that moves on its own must
// therefore stand still, the same way every time. Two steps of the render pipeline
// (server/render/pipeline.ts): prepareDeterminism (before the page loads) and freeze (just before
// the capture).
//
// Before the page loads:
// - virtual time (page/virtual-time.js) in every document: Date/performance.now start at
//   2025-01-01T00:00:00Z and move only as timers fire; setTimeout/setInterval/requestAnimationFrame
//   run ahead in due order, each chain of them for at most 5 s of page time, so a JS clock, a
//   random colour that changes every 200 ms or a canvas animation drawn frame by frame reach the
//   same state in every capture, however fast the machine is. Chosen over freezing time outright
//   (a page that shows its content after a 300 ms timer would never show it) and over Chromium's
//   virtual-time emulation (it couples timers to network fetches and stalls on never-idle pages).
// - Math.random seeded (the same sequence every time); the time zone is UTC (Date output does not
//   depend on the server) and prefers-reduced-motion is reduce, unless the request sets timezone
//   or reducedMotion itself: server/emulation/ applies them (resolve.ts decides).
// Before the capture (page/settle.js, in every frame):
// - the timers are drained to the end of their chains and time stops (no callback runs again);
// - CSS animations, transitions and Web Animations: finite ones finished (their end state, as a
//   reader would see the page after it has settled), endless ones cancelled (the element's own
//   style, as without animations: the choice of Playwright's `animations: "disabled"`); no new
//   transitions; SVG animations paused at 0;
// - the caret is transparent (it blinks);
// - videos paused and showing their poster (else their first frame);
// - animated GIF/APNG/WebP/AVIF images replaced by a still of their first frame (a canvas draws an
//   animated image's first frame); images the page may not read (cross-origin without CORS) are
//   read by the browser itself (CDP Page.getResourceContent) in the main frame;
// - web fonts loaded (document.fonts.ready) and images decoded.
// Not covered (documented in docs/features.md): workers' timers, crypto.getRandomValues, CSS background
// images that animate, cross-origin frames' unreadable images.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CDPSession, Frame, Page } from 'puppeteer-core';
import sharp from 'sharp';
import type { Deadline } from '../toolkit/deadline.ts';
import { traitedStep } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const VIRTUAL_TIME = readFileSync(path.join(here, 'page', 'virtual-time.js'), 'utf8');
const SETTLE = readFileSync(path.join(here, 'page', 'settle.js'), 'utf8');

/**
 * How long the freeze step lets timers run dry (a busy page on a loaded machine needs seconds for
 * its thousands of ticks; stopping early would make the capture depend on the machine's speed),
 * and waits for fonts, images and videos; both within what is left of the render budget, keeping
 * CAPTURE_RESERVE_MS for the capture itself.
 */
const DRAIN_MS = 10_000;
const WAIT_MS = 3000;
const CAPTURE_RESERVE_MS = 4000;

export interface SettleReport {
  drained: boolean;
  animations: number;
  svgs: number;
  videos: number;
  stills: number;
  unreadable: string[];
}

/** The render step before the page loads: virtual time. */
const DETERMINISM: StepLabel = { name: 'determinism', description: 'preparing a deterministic render' };
const FREEZE: StepLabel = { name: 'freeze', description: 'freezing the page' };

export const prepareDeterminism = traitedStep({ times: [DETERMINISM] }, async ({ page, req, deadline }) => {
  if (!req.deterministic) return;
  // Virtual time runs on the page's own timers: in a page rendered without its scripts
  // (javaScriptEnabled false) none fire, and no script of the page reads the clock either.
  if (req.javaScriptEnabled) {
    await deadline.step(DETERMINISM, async () => {
      await page.evaluateOnNewDocument(VIRTUAL_TIME);
      await page.evaluate(VIRTUAL_TIME); // html mode: setContent writes into this very realm
    });
  }
});

/** The render step right before the capture: freezes the page; a no-op unless the request is deterministic. */
export const freeze = traitedStep({ times: [FREEZE], touchesPage: (req) => req.deterministic }, async ({ page, client, req, deadline, hops }) => {
  if (!req.deterministic) return;
  await hops.guard(deadline.step(FREEZE, () => settle(page, client, deadline)));
});

async function settle(page: Page, client: CDPSession, deadline: Deadline): Promise<void> {
  const spare = () => Math.max(0, deadline.remaining() - CAPTURE_RESERVE_MS);
  const drainMs = Math.min(DRAIN_MS, spare() / 2);
  const waitMs = Math.min(WAIT_MS, spare() / 4);
  const expr = `(${SETTLE})(${drainMs}, ${waitMs})`;
  // settle.js bounds its own waits with the page's timers; a page rendered without its scripts has
  // none that fire (a video's seek, say, would then be awaited for ever): the same bound, from here.
  const bound = drainMs + 3 * waitMs;
  const reports = await Promise.all(page.frames().map((f) => settleFrame(f, expr, bound)));
  const main = reports[0];
  if (main?.unreadable.length) await stillsByBrowser(page, client, main.unreadable);
}

async function settleFrame(frame: Frame, expr: string, boundMs: number): Promise<SettleReport | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), boundMs);
    });
    return (await Promise.race([frame.evaluate(expr) as Promise<SettleReport>, late])) ?? undefined;
  } catch {
    return undefined; // a frame detached meanwhile: nothing of it is captured
  } finally {
    clearTimeout(timer);
  }
}

/** Animated images the page could not read: the browser's copy of the bytes, first frame as PNG. */
async function stillsByBrowser(page: Page, client: CDPSession, urls: string[]): Promise<void> {
  const { frameTree } = await client.send('Page.getFrameTree');
  for (const url of urls.slice(0, 20)) {
    try {
      const { content, base64Encoded } = await client.send('Page.getResourceContent', { frameId: frameTree.frame.id, url });
      const bytes = Buffer.from(content, base64Encoded ? 'base64' : 'utf8');
      if (!(await isAnimated(bytes))) continue;
      const still = `data:image/png;base64,${(await sharp(bytes, { pages: 1 }).png().toBuffer()).toString('base64')}`;
      await page.evaluate(`(${REPLACE})(${JSON.stringify(url)}, ${JSON.stringify(still)})`);
    } catch {
      // not in the browser's cache, or not an image sharp reads: left as it is
    }
  }
}

async function isAnimated(bytes: Buffer): Promise<boolean> {
  const meta = await sharp(bytes, { pages: -1 }).metadata();
  return (meta.pages ?? 1) > 1 || (meta.format === 'png' && bytes.includes('acTL'));
}

const REPLACE = `async (from, to) => {
  for (const img of document.images) {
    if ((img.currentSrc || img.src) !== from) continue;
    const picture = img.parentElement && img.parentElement.tagName === 'PICTURE' ? img.parentElement : null;
    if (picture) for (const s of picture.querySelectorAll('source')) s.remove();
    img.removeAttribute('srcset');
    img.removeAttribute('sizes');
    img.src = to;
    await img.decode().catch(() => {});
  }
}`;
