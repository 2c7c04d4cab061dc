// The workload half of the bench: the pages of bench/pages.ts measured through ours, the
// floor and the naive server, side by side in one run. Each function measures one thing and
// returns plain figures; bench.ts prints them and writes them to --json.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Page } from 'puppeteer-core';
import { launchBrowser } from '../server/toolkit/browser.ts';
import { capture } from '../server/render/capture.ts';
import { validateRequest } from '../server/request/validate.ts';
import { cpuPerCapture, type CpuPerCapture } from './cpu.ts';
import { byTag, closedLoop, median, openLoop, pct, type Sample } from './measure.ts';
import type { BenchPage } from './pages.ts';

export type Once = () => Promise<Sample>;

/** The frame-pacing flags of item 7: no frame-rate cap, no waiting for a (virtual) vsync. */
export const FRAME_FLAGS = ['--disable-frame-rate-limit', '--disable-gpu-vsync'];

/** A request function that cycles through the pages in order (so every page gets its share). */
export function cycle(pages: BenchPage[], shoot: (p: BenchPage) => Promise<Sample>): Once {
  let i = 0;
  return () => shoot(pages[i++ % pages.length]!);
}

/** POSTs one page to an HTTP endpoint (ours or a baseline) with extra request fields. */
export function poster(url: string, key: string | undefined, extra: object = {}) {
  return async (p: BenchPage): Promise<Sample> => {
    const t = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ html: p.html, ...p.req, ...extra }),
    });
    const buf = Buffer.from(await res.arrayBuffer());
    return { ms: performance.now() - t, ok: res.status === 200 && buf.length > 0, tag: p.name };
  };
}

export interface LatencyFigures {
  medianMs: number;
  p95Ms: number;
  errors: number;
  byPageMedianMs: Record<string, number>;
  cpuPerCapture: CpuPerCapture;
}

/** Open loop at `rate` req/s over the mix: median, p95, per-page medians and CPU per capture. */
export async function mixLatency(once: Once, rate: number, count: number): Promise<LatencyFigures> {
  const { result: r, cpu } = await cpuPerCapture(
    () => openLoop(once, rate, count),
    (x) => x.ms.length + x.errors,
  );
  return { medianMs: median(r.ms), p95Ms: pct(r.ms, 95), errors: r.errors, byPageMedianMs: byTag(r.samples), cpuPerCapture: cpu };
}

export interface ThroughputFigures {
  rps: number;
  concurrency: number;
  errors: number;
  cpuPerCapture: LatencyFigures['cpuPerCapture'];
}

/** Closed loop over the mix at each concurrency; the best captures/s, with CPU per capture at each. */
export async function mixThroughput(once: Once, levels: number[], count: number) {
  const out: Record<number, ThroughputFigures> = {};
  for (const c of levels) {
    const { result: r, cpu } = await cpuPerCapture(
      () => closedLoop(once, c, count),
      (x) => x.ms.length + x.errors,
    );
    out[c] = { rps: r.rps, concurrency: c, errors: r.errors, cpuPerCapture: cpu };
  }
  const best = Object.values(out).reduce((a, b) => (b.rps > a.rps ? b : a));
  return { byConcurrency: out, best };
}

/**
 * Our PNG capture + encode of the share card (server/render/capture.ts `capture()`, imported so
 * that whatever capture path the server has is what is measured) against Chromium's default
 * Page.captureScreenshot PNG, on one page whose content is the card, interleaved.
 */
export async function pngCard(executablePath: string, card: BenchPage, maxPixels: number, iterations: number) {
  const launched = await launchBrowser({ executablePath, args: [] });
  try {
    const page: Page = await launched.browser.newPage();
    const req = validateRequest({ html: card.html, ...card.req, format: 'png' });
    await page.setViewport(req.viewport);
    await page.setContent(card.html, { waitUntil: 'load' });
    const client = await page.createCDPSession();
    const ours = async () => {
      const t = performance.now();
      const shot = await capture(page, client, req, maxPixels);
      return { ms: performance.now() - t, bytes: shot.body.length };
    };
    const chromium = async () => {
      const t = performance.now();
      const { data } = await client.send('Page.captureScreenshot', { format: 'png' });
      const bytes = Buffer.from(data, 'base64').length;
      return { ms: performance.now() - t, bytes };
    };
    for (let i = 0; i < 2; i++) {
      await ours();
      await chromium();
    }
    const a: number[] = [];
    const b: number[] = [];
    let oursBytes = 0;
    let chromiumBytes = 0;
    for (let i = 0; i < iterations; i++) {
      const x = await ours();
      const y = await chromium();
      a.push(x.ms);
      b.push(y.ms);
      [oursBytes, chromiumBytes] = [x.bytes, y.bytes];
    }
    return { oursMedianMs: median(a), chromiumMedianMs: median(b), oursBytes, chromiumBytes, iterations };
  } finally {
    await launched.close();
  }
}

/** Ours end to end vs the naive server on each long page, fullPage, alternated; ratios ours/naive. */
export async function fullPageVsNaive(pages: BenchPage[], ours: (p: BenchPage) => Promise<Sample>, naive: (p: BenchPage) => Promise<Sample>, reps: number) {
  const out: Record<string, { oursMs: number; naiveMs: number; ratio: number; errors: number }> = {};
  for (const p of pages) {
    const a: number[] = [];
    const b: number[] = [];
    let errors = 0;
    for (let i = 0; i < reps; i++) {
      const x = await ours(p);
      const y = await naive(p);
      if (x.ok) a.push(x.ms);
      if (y.ok) b.push(y.ms);
      errors += Number(!x.ok) + Number(!y.ok);
    }
    out[p.name] = { oursMs: median(a), naiveMs: median(b), ratio: median(a) / median(b), errors };
  }
  return { byPage: out, medianRatio: median(Object.values(out).map((x) => x.ratio)) };
}

/**
 * Small captures (sequential) alone, then while a tall fullPage capture runs again and again beside
 * them; the event-loop delay of this process (the server's, in-process) during each phase.
 */
export async function eventLoopUnderFullPage(small: Once, tall: Once, count: number) {
  const phase = async (withTall: boolean) => {
    let stop = false;
    let tallDone = 0;
    const background = withTall
      ? (async () => {
          while (!stop) if ((await tall()).ok) tallDone++;
        })()
      : Promise.resolve();
    if (withTall) await new Promise((r) => setTimeout(r, 300)); // the tall capture is under way
    // Each sample is the interval between ticks of a 1 ms timer: ~1 ms when nothing blocks the loop.
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const r = await closedLoop(small, 1, count);
    h.disable();
    stop = true;
    await background;
    return {
      smallMedianMs: median(r.ms),
      smallErrors: r.errors,
      eventLoopDelayMs: { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 },
      tallCaptures: tallDone,
    };
  };
  const alone = await phase(false);
  const beside = await phase(true);
  return { alone, beside, addedMedianMs: beside.smallMedianMs - alone.smallMedianMs };
}
