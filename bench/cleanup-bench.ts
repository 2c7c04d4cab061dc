// What the banner clean-up costs a render (targets: page without a banner <= 5 ms median, CMP page
// <= 1.5 s). Measured through the reference server itself, so that the figure is what a render
// waits for and nothing else: each capture's Server-Timing header names the clean-up's steps
// (`cleanup-prep` before the load, `banners` after the waits, `last-look` right before the
// capture; STEP_LABELS in server/render/pipeline.ts), and their sum is the wait the clean-up adds to that render.
// The same captures with `blockCookieBanners: false` run the same steps doing nothing; the
// figure is the difference of the two medians, over enough interleaved samples that a busy
// machine moves it by a millisecond or two, where the end-to-end time of a capture (also
// recorded, `endToEnd`) moves by tens: that one is not the figure, since loading and capturing
// the page are the same work with the clean-up on or off.
//
// Pages: a consent fixture without a banner (a sticky header the clean-up must leave alone) and a
// OneTrust page, in url mode (served on loopback; the server is allowed to reach it) and html
// mode; with the default waits (`networkidle2`: the survey of the page runs during the idle
// window, off the render's path) and, for the page without a banner, with `waitUntil: load`
// (the survey is then on the path: `noBannerLoadMedianMs`).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSENT_DIR } from '../conformance/fixture-pages/fixtures.ts';
import { startFixtureServer } from '../conformance/fixture-pages/fixture-server.ts';

/** A reference server allowed to reach `allow` (host:port), as the bench starts one. */
export type StartServer = (allow: string) => Promise<{ shotUrl: string; key: string; close(): Promise<void> }>;

interface Figures {
  /** The clean-up's steps (cleanup-prep + banners + last-look), median, on minus off. */
  waitedMs: number;
  onWaitedMedianMs: number;
  offWaitedMedianMs: number;
  /** Each step's median with the clean-up on. */
  onSteps: Record<string, number>;
  /** End to end (HTTP), median on / off: noisy, for reference. */
  endToEnd: { onMedianMs: number; offMedianMs: number };
  actions: string[];
  samples: number;
}

export interface CleanupBenchResult {
  /** Headline: what the clean-up adds to a default render of a page without a banner, the worse of url and html mode. */
  noBannerMedianMs: number;
  /** The same with `waitUntil: load` (the survey on the render's path). */
  noBannerLoadMedianMs: number;
  cmpMedianMs: number;
  url: Record<'noBanner' | 'noBannerLoad' | 'cmp', Figures>;
  html: Record<'noBanner' | 'noBannerLoad' | 'cmp', Figures>;
  iterations: { noBanner: number; cmp: number };
  pages: { noBanner: string; cmp: string };
  how: string;
  load: number[];
}

const NO_BANNER = 'neg-sticky-header';
const CMP = 'onetrust';
const CLEANUP_STEPS = ['cleanup-prep', 'banners', 'last-look'] as const;

const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Server-Timing `name;dur=12.3;desc="..."` entries, by name. */
export function stepDurations(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of (header ?? '').matchAll(/(?:^|,)\s*([\w-]+);dur=([\d.]+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}

interface Shot {
  waited: number;
  steps: Record<string, number>;
  total: number;
  action: string;
}

async function shoot(server: { shotUrl: string; key: string }, payload: object): Promise<Shot> {
  const t = performance.now();
  const res = await fetch(server.shotUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
    body: JSON.stringify(payload),
  });
  await res.arrayBuffer();
  const total = performance.now() - t;
  if (res.status !== 200) throw new Error(`cleanup bench: HTTP ${res.status}`);
  const steps = stepDurations(res.headers.get('server-timing'));
  const waited = CLEANUP_STEPS.reduce((s, k) => s + (steps[k] ?? 0), 0);
  return { waited, steps, total, action: res.headers.get('x-banner-action') ?? '' };
}

async function measure(server: { shotUrl: string; key: string }, page: object, n: number): Promise<Figures> {
  const on: Shot[] = [];
  const off: Shot[] = [];
  await shoot(server, { ...page, blockCookieBanners: true }); // warm-up
  for (let i = 0; i < n; i++) {
    on.push(await shoot(server, { ...page, blockCookieBanners: true }));
    off.push(await shoot(server, { ...page, blockCookieBanners: false }));
  }
  const onWaited = median(on.map((s) => s.waited));
  const offWaited = median(off.map((s) => s.waited));
  return {
    waitedMs: Math.max(0, onWaited - offWaited),
    onWaitedMedianMs: onWaited,
    offWaitedMedianMs: offWaited,
    onSteps: Object.fromEntries(CLEANUP_STEPS.map((k) => [k, median(on.map((s) => s.steps[k] ?? 0))])),
    endToEnd: { onMedianMs: median(on.map((s) => s.total)), offMedianMs: median(off.map((s) => s.total)) },
    actions: [...new Set(on.map((s) => s.action))],
    samples: n,
  };
}

export async function benchCleanup(start: StartServer, opts: { iterations?: number } = {}): Promise<CleanupBenchResult> {
  const n = opts.iterations ?? 15;
  const nCmp = Math.max(3, Math.round(n / 3));
  const fixtures = await startFixtureServer();
  const server = await start(new URL(fixtures.origins[0]!).host + (fixtures.origins[1] ? `,${new URL(fixtures.origins[1]).host}` : ''));
  try {
    const result = {} as Record<'url' | 'html', CleanupBenchResult['url']>;
    for (const mode of ['url', 'html'] as const) {
      const page = (id: string) =>
        mode === 'url' ? { url: `${fixtures.origins[0]}/consent/${id}.html` } : { html: readFileSync(path.join(CONSENT_DIR, `${id}.html`), 'utf8') };
      result[mode] = {
        noBanner: await measure(server, page(NO_BANNER), n),
        noBannerLoad: await measure(server, { ...page(NO_BANNER), waitUntil: 'load' }, n),
        cmp: await measure(server, page(CMP), nCmp),
      };
    }
    const worse = (k: 'noBanner' | 'noBannerLoad' | 'cmp') => Math.max(result.url[k].waitedMs, result.html[k].waitedMs);
    return {
      noBannerMedianMs: worse('noBanner'),
      noBannerLoadMedianMs: worse('noBannerLoad'),
      cmpMedianMs: worse('cmp'),
      url: result.url,
      html: result.html,
      iterations: { noBanner: n, cmp: nCmp },
      pages: { noBanner: `fixtures/consent/${NO_BANNER}.html`, cmp: `fixtures/consent/${CMP}.html` },
      how: 'through the reference server, one capture at a time, on/off interleaved: median of the Server-Timing steps cleanup-prep + banners + last-look, on minus off',
      load: os.loadavg(),
    };
  } finally {
    await server.close();
    await fixtures.close();
  }
}

/** The bench's rows (bench/bench.ts). */
export function cleanupRows(r: CleanupBenchResult): string[][] {
  return [
    [
      'cleanup: what a render waits for, no banner',
      `url ${r.url.noBanner.waitedMs.toFixed(1)}, html ${r.html.noBanner.waitedMs.toFixed(1)} ms (networkidle2)`,
      r.noBannerMedianMs.toFixed(1),
      `waitUntil load: url ${r.url.noBannerLoad.waitedMs.toFixed(1)}, html ${r.html.noBannerLoad.waitedMs.toFixed(1)} ms`,
      '<= 5 ms',
    ],
    [
      'cleanup: what a render waits for, OneTrust page',
      `url ${r.url.cmp.waitedMs.toFixed(0)}, html ${r.html.cmp.waitedMs.toFixed(0)} ms, ${r.url.cmp.actions.join(' ')}`,
      r.cmpMedianMs.toFixed(0),
      `load average ${r.load.map((l) => l.toFixed(1)).join(' ')}`,
      '<= 1500 ms',
    ],
  ];
}

// Standalone: node --import tsx bench/cleanup-bench.ts [iterations]
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { rmSync } = await import('node:fs');
  const { startServer } = await import('../server/start.ts');
  const { loadConfig } = await import('../server/config.ts');
  const { BENCH_KEY, benchEnv } = await import('./server-env.ts');
  const dir = `${os.tmpdir()}/bench-cleanup-${process.pid}`;
  try {
    const r = await benchCleanup(
      async (allow) => {
        const s = await startServer(loadConfig({ ...benchEnv(dir), EGRESS_ALLOW: allow, CACHE_TTL_SECONDS: '0' }));
        return { shotUrl: `${s.url}/v1/screenshot`, key: BENCH_KEY, close: () => s.close() };
      },
      { iterations: Number(process.argv[2] ?? 15) },
    );
    console.log(JSON.stringify(r, (_k, v) => (typeof v === 'number' ? Number(v.toFixed(2)) : v), 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
