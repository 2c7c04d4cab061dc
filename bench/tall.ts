// Tall and endless full pages (server/tall-pages/, server/capture-cost/), A/B in one run:
//
//   encode     capture() in-process on a 1280 x H feed page (H = 30000, 65535), alternated: A the
//              full path (Chromium's fast PNG, then sharp's lossless re-encode: what the service
//              sends when the budget allows) and B the fast path (Chromium's fast PNG as it is:
//              what it sends when the re-encode would not fit); time, CPU, peak RSS, bytes
//   alone      the same pages end to end through the server, one at a time: time, peak RSS, the
//              lazy-scroll and capture steps, x-capture-truncated
//   endless    an endless feed, fullPage, alternated: A as before the endless-page rule
//              (fullPageMaxHeight at the output ceiling: the scroll runs until the ceiling or its
//              3 s) and B with the rule
//   shared     two 65535 px captures at once (RENDER_CONCURRENCY=2), as a busy service runs them
//
// `node --import tsx bench/tall.ts [--reps N] [--json FILE]` runs it alone; `npm run bench` runs it
// as its `tall` section. Not a test: figures, never asserted.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { captureCost } from '../server/capture-cost/index.ts';
import { loadConfig, type Config } from '../server/config.ts';
import { launchBrowser } from '../server/toolkit/browser.ts';
import { capture } from '../server/render/capture.ts';
import { validateRequest } from '../server/request/validate.ts';
import { startServer } from '../server/start.ts';
import { cpuNow } from './cpu.ts';
import { median, peakMemoryDuring } from './measure.ts';
import { BENCH_KEY, benchEnv } from './server-env.ts';

export const TALL_HEIGHTS = [30000, 65535] as const;
const WIDTH = 1280;
const CARD = 384;
const card = (i: number) =>
  `<div class="c"><b>User ${i}</b><p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. '.repeat(3)}</p>` +
  `<div class="m" style="background:linear-gradient(${(i * 29) % 360}deg,hsl(${(i * 53) % 360},70%,60%),hsl(${(i * 53 + 120) % 360},70%,40%))"></div></div>`;
const STYLE = `<style>html,body{margin:0;background:#eef0f3;font:15px/1.45 sans-serif;color:#1c1e21}.f{width:680px;margin:0 auto;overflow:hidden}
.c{background:#fff;border-radius:8px;margin-bottom:16px;padding:16px;height:${CARD - 16}px;box-sizing:border-box;overflow:hidden}.m{height:200px;border-radius:6px}</style>`;
/** A feed exactly `height` CSS px tall: cards of text and a gradient, as a social feed. */
export const feedPage = (height: number) =>
  `<!doctype html>${STYLE}<div class="f" style="height:${height}px">${Array.from({ length: Math.ceil(height / CARD) }, (_, i) => card(i)).join('')}</div>`;
/** 20 cards, and 10 more whenever the viewport comes within 1500 px of the end, for ever. */
export const endlessFeed = `<!doctype html>${STYLE}<div class="f" id="f"></div><script>
  const card = ${card.toString()};
  let n = 0;
  const more = (k) => { for (let j = 0; j < k; j++) f.insertAdjacentHTML('beforeend', card(n++)); };
  more(20);
  addEventListener('scroll', () => { if (scrollY + innerHeight > document.documentElement.scrollHeight - 1500) more(10); });
</script>`;

const cpuMs = (a: ReturnType<typeof cpuNow>, b: ReturnType<typeof cpuNow>) => b.nodeMs - a.nodeMs + b.childrenMs - a.childrenMs;

/** A and B alternated on one page per height: capture() with the re-encode, and without it. */
async function encodeAB(chromiumPath: string, maxPixels: number, reps: number) {
  const launched = await launchBrowser({ executablePath: chromiumPath, args: [] });
  const out: Record<string, Record<'A' | 'B', { ms: number; cpuMs: number; peakMiB: number; bytes: number }>> = {};
  try {
    for (const h of TALL_HEIGHTS) {
      const page = await launched.browser.newPage();
      const req = validateRequest({ html: 'x', fullPage: true, viewport: { width: WIDTH, height: 720 } });
      await page.setViewport(req.viewport);
      await page.setContent(feedPage(h), { waitUntil: 'load' });
      const client = await page.createCDPSession();
      const runs = { A: [] as number[][], B: [] as number[][] };
      for (let i = 0; i < reps; i++) {
        for (const v of i % 2 ? (['B', 'A'] as const) : (['A', 'B'] as const)) {
          let calls = 0;
          const tall = v === 'A' ? {} : { remainingMs: () => (calls++ === 0 ? Infinity : 0) };
          const c0 = cpuNow();
          const t = performance.now();
          const m = await peakMemoryDuring(() => capture(page, client, req, maxPixels, tall));
          runs[v].push([performance.now() - t, cpuMs(c0, cpuNow()), m.peakMiB, m.result.body.length]);
        }
      }
      const figures = (xs: number[][]) => ({
        ms: median(xs.map((x) => x[0]!)),
        cpuMs: median(xs.map((x) => x[1]!)),
        peakMiB: Math.max(...xs.map((x) => x[2]!)),
        bytes: xs[0]![3]!,
      });
      out[`${WIDTH}x${h}`] = { A: figures(runs.A), B: figures(runs.B) };
      await page.close();
    }
  } finally {
    await launched.close();
  }
  return out;
}

async function post(url: string, body: object) {
  const t = performance.now();
  const res = await fetch(`${url}/v1/screenshot`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
    body: JSON.stringify(body),
  });
  const bytes = (await res.arrayBuffer()).byteLength;
  const timing = res.headers.get('server-timing') ?? '';
  const step = (name: string) => Number(new RegExp(`(?:^|, )${name};dur=([\\d.]+)`).exec(timing)?.[1] ?? NaN);
  return {
    status: res.status,
    ms: performance.now() - t,
    bytes,
    truncated: res.headers.get('x-capture-truncated'),
    scrollMs: step('lazy-scroll'),
    captureMs: step('capture'),
  };
}

export async function benchTall(config: Config, reps: number) {
  const encode = await encodeAB(config.chromiumPath, config.maxOutputPixels, reps);
  const server = await startServer(config);
  try {
    const base = { fullPage: true, waitUntil: 'load', blockCookieBanners: false };
    const alone: Record<string, Awaited<ReturnType<typeof post>> & { peakMiB: number }> = {};
    for (const h of TALL_HEIGHTS) {
      await post(server.url, { ...base, html: feedPage(h) }); // teaches the cost model this page
      const m = await peakMemoryDuring(() => post(server.url, { ...base, html: feedPage(h) }));
      alone[`${WIDTH}x${h}`] = { ...m.result, peakMiB: m.peakMiB };
    }
    const endless = { A: [] as Awaited<ReturnType<typeof post>>[], B: [] as Awaited<ReturnType<typeof post>>[] };
    for (let i = 0; i < reps; i++) {
      endless.A.push(await post(server.url, { ...base, html: endlessFeed, fullPageMaxHeight: 65535 }));
      endless.B.push(await post(server.url, { ...base, html: endlessFeed }));
    }
    const shared = await Promise.all([0, 1].map(() => post(server.url, { ...base, html: feedPage(65535) })));
    return { encode, alone, endless, shared, costModel: captureCost.snapshot(), load: os.loadavg() };
  } finally {
    await server.close();
  }
}

export type TallFigures = Awaited<ReturnType<typeof benchTall>>;

/** The rows bench.ts prints (measure, detail, median ms, figure). */
export function tallRows(f: TallFigures): string[][] {
  const rows: string[][] = [];
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  for (const [size, { A, B }] of Object.entries(f.encode)) {
    rows.push([
      `tall ${size} capture(): A re-encoded / B fast PNG`,
      `${A.ms.toFixed(0)} / ${B.ms.toFixed(0)} ms, CPU ${A.cpuMs.toFixed(0)} / ${B.cpuMs.toFixed(0)} ms`,
      A.ms.toFixed(0),
      `${mb(A.bytes)} / ${mb(B.bytes)}, peak RSS ${A.peakMiB.toFixed(0)} / ${B.peakMiB.toFixed(0)} MiB`,
    ]);
  }
  for (const [size, r] of Object.entries(f.alone)) {
    rows.push([
      `tall ${size} fullPage end to end, alone`,
      `${r.status} in ${r.ms.toFixed(0)} ms (scroll ${r.scrollMs.toFixed(0)}, capture ${r.captureMs.toFixed(0)})${r.truncated ? ` cut: ${r.truncated}` : ''}`,
      r.ms.toFixed(0),
      `${mb(r.bytes)}, peak RSS ${r.peakMiB.toFixed(0)} MiB`,
    ]);
  }
  const e = (xs: TallFigures['endless']['A']) =>
    `${median(xs.map((x) => x.ms)).toFixed(0)} ms, ${mb(median(xs.map((x) => x.bytes)))}, ${xs.map((x) => x.truncated ?? `${x.status} whole`).join(' | ')}`;
  rows.push(['endless feed: A no rule (before) / B the rule', `${e(f.endless.A)} / ${e(f.endless.B)}`, median(f.endless.B.map((x) => x.ms)).toFixed(0), '']);
  rows.push([
    'two 1280x65535 at once',
    f.shared.map((r) => `${r.status} ${r.ms.toFixed(0)} ms${r.truncated ? ` (${r.truncated})` : ''}`).join(', '),
    '',
    `load ${f.load.map((l) => l.toFixed(1)).join(' ')}`,
  ]);
  rows.push([
    'cost model after the run: ms per megapixel (fixed ms)',
    Object.entries(f.costModel.msPerMegapixel)
      .map(([k, v]) => `${k} ${v.toFixed(0)} (${f.costModel.fixedMs[k as keyof typeof f.costModel.fixedMs].toFixed(0)})`)
      .join(', '),
    '',
    '',
  ]);
  return rows;
}

// Standalone.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const reps = args.includes('--reps') ? Number(args[args.indexOf('--reps') + 1]) : 3;
  const json = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
  const dataDir = `${os.tmpdir()}/bench-tall-${process.pid}`;
  const config = loadConfig(benchEnv(dataDir, { CACHE_TTL_SECONDS: '0' }));
  const loadBefore = os.loadavg();
  const f = await benchTall(config, reps);
  console.log(
    `machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}; node ${process.version}; load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${f.load.map((l) => l.toFixed(2)).join(' ')}`,
  );
  for (const r of tallRows(f)) console.log(`${r[0]!.padEnd(52)} ${r[1]}  ${r[3]}`);
  if (json) writeFileSync(json, JSON.stringify(f, null, 2));
  const { rmSync } = await import('node:fs');
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
