// Cleanup overhead (targets: page without a banner <= 50 ms median, CMP page <= 1.5 s).
// Called by bench/bench.ts with an open Browser. Each sample loads a fixture in a fresh context the
// way server/render/pipeline.ts does (attachCleanup before navigation, load, a 500 ms settle that
// stands for the networkidle2 window, finish, the last look before the capture), once with blockCookieBanners on and once off, runs
// interleaved; the overhead is the difference of the medians. Measured in url mode (fixture server
// on loopback) and html mode (setContent, where the driver is injected at finish).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { attachCleanup } from '../server/cleanup/index.ts';
import { CONSENT_DIR } from '../conformance/fixture-pages/fixtures.ts';
import { startFixtureServer } from '../conformance/fixture-pages/fixture-server.ts';

export interface CleanupBenchResult {
  /** Headline figures: the worse of url and html mode. */
  noBannerMedianMs: number;
  cmpMedianMs: number;
  url: { noBannerMedianMs: number; cmpMedianMs: number };
  html: { noBannerMedianMs: number; cmpMedianMs: number };
  /** Median of finish() and of lastLook() alone on each page in each mode, and the actions seen there. */
  detail: Record<string, unknown>;
  iterations: number;
  pages: { noBanner: string; cmp: string };
}

const NO_BANNER = 'neg-sticky-header';
const CMP = 'onetrust';
const SETTLE_MS = 500;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function sample(browser: Browser, mode: 'url' | 'html', target: string, html: string, on: boolean) {
  const ctx = await browser.createBrowserContext();
  try {
    const page = await ctx.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    const t0 = performance.now();
    const session = await attachCleanup(page, { blockCookieBanners: on, hideSelectors: [], blockAds: false });
    if (mode === 'url') await page.goto(target, { waitUntil: 'load' });
    else await page.setContent(html, { waitUntil: 'load' });
    const loaded = performance.now();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const f0 = performance.now();
    await session.finish(Date.now() + 15_000);
    const l0 = performance.now();
    const action = await session.lastLook(Date.now() + 15_000);
    const t1 = performance.now();
    return { total: t1 - t0, load: loaded - t0, finish: l0 - f0, lastLook: t1 - l0, action };
  } finally {
    await ctx.close();
  }
}

export async function benchCleanup(browser: Browser, opts: { iterations?: number } = {}): Promise<CleanupBenchResult> {
  const n = opts.iterations ?? 15;
  const server = await startFixtureServer();
  try {
    const out: Record<string, Record<string, number>> = {};
    const detail: Record<string, unknown> = {};
    for (const mode of ['url', 'html'] as const) {
      out[mode] = {};
      for (const [name, id] of [
        ['noBanner', NO_BANNER],
        ['cmp', CMP],
      ] as const) {
        const target = `${server.origins[0]}/consent/${id}.html`;
        const html = readFileSync(path.join(CONSENT_DIR, `${id}.html`), 'utf8');
        await sample(browser, mode, target, html, true); // warm-up
        const on: number[] = [];
        const off: number[] = [];
        const fin: number[] = [];
        const last: number[] = [];
        const loadOn: number[] = [];
        const loadOff: number[] = [];
        const actions = new Set<string>();
        for (let i = 0; i < n; i++) {
          const a = await sample(browser, mode, target, html, true);
          const b = await sample(browser, mode, target, html, false);
          on.push(a.total);
          off.push(b.total);
          fin.push(a.finish);
          last.push(a.lastLook);
          loadOn.push(a.load);
          loadOff.push(b.load);
          actions.add(a.action);
        }
        out[mode]![name] = Math.max(0, median(on) - median(off));
        detail[`${mode}.${name}`] = {
          onMedianMs: median(on),
          offMedianMs: median(off),
          finishMedianMs: median(fin),
          lastLookMedianMs: median(last),
          loadOnMedianMs: median(loadOn),
          loadOffMedianMs: median(loadOff),
          actions: [...actions],
        };
      }
    }
    const url = { noBannerMedianMs: out.url!.noBanner!, cmpMedianMs: out.url!.cmp! };
    const html = { noBannerMedianMs: out.html!.noBanner!, cmpMedianMs: out.html!.cmp! };
    return {
      noBannerMedianMs: Math.max(url.noBannerMedianMs, html.noBannerMedianMs),
      cmpMedianMs: Math.max(url.cmpMedianMs, html.cmpMedianMs),
      url,
      html,
      detail,
      iterations: n,
      pages: { noBanner: `fixtures/consent/${NO_BANNER}.html`, cmp: `fixtures/consent/${CMP}.html` },
    };
  } finally {
    await server.close();
  }
}

// Standalone: node --import tsx bench/cleanup-bench.ts [iterations]
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { launchChromium } = await import('../test/support/browser.ts');
  const chromium = await launchChromium();
  try {
    console.log(JSON.stringify(await benchCleanup(chromium.browser, { iterations: Number(process.argv[2] ?? 10) }), null, 2));
  } finally {
    await chromium.close();
  }
}
