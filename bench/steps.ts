// `node --import tsx bench/steps.ts [--rounds N]`: the CPU of one capture, step by step. Each page
// of the bench's mix is captured one at a time the way the render pipeline does it (a prepared
// slot, load, the lazy-content look and scroll for full pages, Chromium's capture, the PNG
// re-encode, the slot's disposal), and the way the floor does it (a reused page: load, Chromium's
// default capture), reading /proc between steps (bench/cpu.ts: by process kind). Chromium works on
// after a step's promise resolves (frames, teardown): each step is followed by a short settle
// (SETTLE_MS) so that its work is counted in it. Medians are not taken: the figures are means of N
// rounds. HTTP, validation and the ledger are not in it (bench/breakdown.ts has them end to end).
import type { CDPSession, Page } from 'puppeteer-core';
import { launchBrowser } from '../server/toolkit/browser.ts';
import { scrollThrough } from '../server/render/lazy.ts';
import { compactPng } from '../server/render/png.ts';
import { scrollWatcher } from '../server/render/scroll-watchers.ts';
import { prepareSlot } from '../server/toolkit/slot.ts';
import { loadConfig } from '../server/config.ts';
import { cpuNow, formatByKind, PROCESS_KINDS, type ByKind } from './cpu.ts';
import { buildPages, type BenchPage } from './pages.ts';
import { BENCH_KEY } from './server-env.ts';

const args = process.argv.slice(2);
const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 5;
const SETTLE_MS = 30;
const config = loadConfig({ ...process.env, API_KEYS: BENCH_KEY, DATA_DIR: '/nonexistent' });
const { mix } = await buildPages();
const launched = await launchBrowser({ executablePath: config.chromiumPath, args: [] });
const floorPage = await launched.browser.newPage();

const sums: Record<string, Record<string, ByKind>> = {};
let mark = cpuNow();
const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));
/** Ends a step: its CPU since the last mark, added to the page's sums when `counted`. */
async function step(page: string, name: string, counted: boolean): Promise<void> {
  await settle();
  const now = cpuNow();
  const e = ((sums[page] ??= {})[name] ??= Object.fromEntries(PROCESS_KINDS.map((k) => [k, 0])) as ByKind);
  if (counted) for (const k of PROCESS_KINDS) e[k] += (now.byKind[k] - mark.byKind[k]) / rounds;
  mark = now;
}

const viewportOf = (p: BenchPage) => p.req.viewport ?? { width: 1280, height: 720 };
async function shoot(page: Page, client: CDPSession | undefined, p: BenchPage, fast: boolean): Promise<Buffer> {
  const png = (p.req.format ?? 'png') === 'png';
  const full = !!p.req.fullPage;
  const vp = viewportOf(p);
  const m = full && client ? await client.send('Page.getLayoutMetrics') : undefined;
  const clip = m
    ? { x: 0, y: 0, width: Math.max(vp.width, Math.ceil(m.cssContentSize.width)), height: Math.ceil(m.cssContentSize.height), scale: 1 }
    : undefined;
  const type = png ? 'png' : 'jpeg';
  const quality = png ? {} : { quality: p.req.quality ?? 80 };
  if (!fast) return Buffer.from(await page.screenshot({ type, ...quality, fullPage: full }));
  return Buffer.from(
    await page.screenshot({
      type,
      ...quality,
      ...(png ? { optimizeForSpeed: true } : {}),
      ...(clip ? { clip, captureBeyondViewport: true } : { captureBeyondViewport: false }),
      fromSurface: true,
    }),
  );
}

for (let r = 0; r <= rounds; r++) {
  const counted = r > 0; // the first round warms up
  for (const p of mix) {
    mark = cpuNow();
    const slot = await prepareSlot(launched.browser);
    await step(p.name, 'ours: prepare a slot', counted);
    const vp = viewportOf(p);
    if (vp.width !== slot.viewport.width || vp.height !== slot.viewport.height) await slot.page.setViewport(vp);
    await slot.page.setContent(p.html, { waitUntil: 'load' });
    await step(p.name, 'ours: load', counted);
    if (p.req.fullPage) {
      if ((await scrollWatcher(slot.page, slot.client)) !== '') await scrollThrough(slot.page, 3000);
      await step(p.name, 'ours: lazy-content look (and scroll)', counted);
    }
    const fast = await shoot(slot.page, slot.client, p, true);
    await step(p.name, 'ours: Chromium capture', counted);
    if ((p.req.format ?? 'png') === 'png') {
      await compactPng(fast);
      await step(p.name, 'ours: PNG re-encode', counted);
    }
    await slot.dispose();
    await step(p.name, 'ours: dispose', counted);
    const cur = floorPage.viewport();
    if (cur?.width !== vp.width || cur?.height !== vp.height) await floorPage.setViewport(vp);
    await floorPage.setContent(p.html, { waitUntil: 'load' });
    await step(p.name, 'floor: load', counted);
    await shoot(floorPage, undefined, p, false);
    await step(p.name, 'floor: Chromium capture (default encoder)', counted);
  }
}
await launched.close();

const total = (e: ByKind) => PROCESS_KINDS.reduce((a, k) => a + e[k], 0);
console.log(`CPU ms per step (mean of ${rounds} rounds, one capture at a time)`);
for (const [page, steps] of Object.entries(sums)) {
  console.log(`\n${page}`);
  for (const [name, e] of Object.entries(steps)) console.log(`  ${name.padEnd(42)} ${total(e).toFixed(0).padStart(5)}  ${formatByKind(e)}`);
  const sum = (who: string) =>
    Object.entries(steps)
      .filter(([k]) => k.startsWith(who))
      .reduce((a, [, e]) => a + total(e), 0);
  console.log(`  ${'ours / floor'.padEnd(42)} ${sum('ours').toFixed(0)} / ${sum('floor').toFixed(0)}`);
}
process.exit(0);
