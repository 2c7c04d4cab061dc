// Real peers as contenders (`npm run bench -- --only peers [--quick]`, and in the full run): the
// libraries a user would install instead of running this service, side by side with ours on the
// same Chromium binary and the same pages.
//
//   ours                     the reference server over HTTP (html mode; url mode for the many-hosts page)
//   capture-website          5.1.0: captureWebsite.buffer(), a browser launched per call as its API does
//   @browserless/screenshot  10.12.13 through browserless 10.12.13: one browser, a context per capture
//                            (createContext, screenshot, destroyContext), as its README shows
//
// They live in bench/peers/ (their own package.json and lockfile, installed here on demand with
// `PUPPETEER_SKIP_DOWNLOAD=1 npm ci --ignore-scripts`): never in the root package, whose `npm ci`
// would run @browserless/goto's postinstall (it fetches filter lists). browserless's shipped ad
// engine (engine.bin) loads only with @ghostery/adblocker 2.15.0 (pinned there through
// `overrides`); capture-website's blockAds fetches filter lists at every call unless its cache
// ($TMPDIR/capture-website/engine.bin) exists: it is seeded with that same engine. Each peer gets
// the same --host-resolver-rules as our browser (Chromium's resolver answers nothing): offline, a
// lookup of an external name can stall ~5 s, which would measure the host, not the library.
//
// Two settings per contender, both printed: `aligned` (ours waitUntil load; browserless
// waitUntil load and no DOM-stability wait; capture-website networkidle2, the least it waits, said
// in the output; all at 1280x720 (the page's own viewport), scale 1, PNG or the page's format,
// banner and ad blocking on where the library has it) and `defaults` (each its own: ours
// networkidle2 + banner clean-up, browserless waitUntil auto on a "Macbook Pro 13" at scale 2,
// capture-website networkidle2 at 1280x800 scale 2). Measured: time per capture one at a time
// (median, p95), saturated throughput (closed loop, 2 clients), CPU per capture (Node plus every
// Chromium process under this one), bytes of the image. Ratios for ours against each peer, higher
// is better: throughput ours/theirs, time and p95 theirs/ours. The times are taken with the
// contenders in turns, capture after capture, so that a busy or drifting machine weighs on each
// alike; throughput and CPU with each alone.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { cpuPerCapture } from './cpu.ts';
import { closedLoop, median, pct, type Sample } from './measure.ts';
import type { BenchPage } from './pages.ts';

const PEERS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'peers');
/**
 * What our own browser is given (server/egress/chromium-flags.ts), for every peer; the rule also
 * maps IP literals, so the loopback hosts of the many-hosts site are excluded from it (ours reaches
 * them through its proxy, allowed by EGRESS_ALLOW).
 */
export const PEER_RESOLVER_RULES = '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.*';

/** A page by URL (served here) or by its html; the contenders take either. */
export interface PeerPage extends BenchPage {
  url?: string;
}

export interface Shot extends Sample {
  bytes: number;
}

export interface Contender {
  name: string;
  version: string;
  /** The options used, as said in the output. */
  options: string;
  shoot(p: PeerPage): Promise<Shot>;
  close(): Promise<void>;
}

export type Setting = 'aligned' | 'defaults';

/** Installs bench/peers/ from its lockfile when it is not there yet; returns its require(). */
export function peersRequire(): NodeJS.Require {
  if (!existsSync(path.join(PEERS_DIR, 'node_modules', 'browserless'))) {
    console.log('bench: installing the peers (bench/peers: npm ci --ignore-scripts)');
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: PEERS_DIR,
      stdio: 'inherit',
      env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
    });
  }
  return createRequire(path.join(PEERS_DIR, 'package.json'));
}

const version = (_req: NodeJS.Require, name: string) =>
  (JSON.parse(readFileSync(path.join(PEERS_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

const viewportOf = (p: PeerPage) => p.req.viewport ?? { width: 1280, height: 720 };
const formatOf = (p: PeerPage) => p.req.format ?? 'png';

export async function startCaptureWebsite(executablePath: string, setting: Setting): Promise<Contender> {
  const req = peersRequire();
  const captureWebsite = (await import(req.resolve('capture-website'))).default as {
    buffer(input: string, options: Record<string, unknown>): Promise<Uint8Array>;
  };
  // Seed its ad-block cache with the engine browserless ships (same @ghostery/adblocker), so that
  // blockAds works offline instead of failing (silently) to fetch the lists at every call.
  const cacheDir = path.join(os.tmpdir(), 'capture-website');
  mkdirSync(cacheDir, { recursive: true });
  const engine = path.join(path.dirname(req.resolve('@browserless/goto')), 'engine.bin');
  if (!existsSync(path.join(cacheDir, 'engine.bin'))) copyFileSync(engine, path.join(cacheDir, 'engine.bin'));
  const launchOptions = { executablePath, headless: true, args: [PEER_RESOLVER_RULES, '--no-sandbox'] };
  const options =
    setting === 'aligned'
      ? 'buffer(), a browser per call, blockAds: true (seeded cache), networkidle2 (its least wait; no load option), width/height of the page, scaleFactor 1, the page type/quality/fullPage'
      : 'buffer() with its defaults: 1280x800, scaleFactor 2, networkidle2, blockAds: true (seeded cache), png';
  return {
    name: 'capture-website',
    version: version(req, 'capture-website'),
    options,
    async shoot(p) {
      const t = performance.now();
      const vp = viewportOf(p);
      const common = {
        inputType: p.url ? 'url' : 'html',
        launchOptions: { ...launchOptions, args: [...launchOptions.args] },
        blockAds: true,
        timeout: 30,
      };
      const fmt = formatOf(p);
      const own =
        setting === 'aligned'
          ? {
              width: vp.width,
              height: vp.height,
              scaleFactor: 1,
              fullPage: p.req.fullPage ?? false,
              type: fmt,
              ...(fmt !== 'png' ? { quality: (p.req.quality ?? 80) / 100 } : {}),
            }
          : {};
      const buf = await captureWebsite.buffer(p.url ?? p.html, { ...common, ...own });
      if (process.env.PEER_SHOTS) writeFileSync(path.join(process.env.PEER_SHOTS, `capture-website-${p.name}.${formatOf(p)}`), buf);
      return { ms: performance.now() - t, ok: buf.length > 0, tag: p.name, bytes: buf.length };
    },
    close: async () => {},
  };
}

export async function startBrowserless(executablePath: string, setting: Setting): Promise<Contender> {
  const req = peersRequire();
  const createBrowser = req('browserless') as ((o: Record<string, unknown>) => {
    createContext(o?: Record<string, unknown>): Promise<{
      screenshot(url: string, o: Record<string, unknown>): Promise<Uint8Array>;
      destroyContext(): Promise<void>;
    }>;
    close(): Promise<void>;
  }) & { driver: { defaultArgs: string[] } };
  const browser = createBrowser({ executablePath, headless: true, args: [...createBrowser.driver.defaultArgs, PEER_RESOLVER_RULES], timeout: 30_000 });
  const options =
    setting === 'aligned'
      ? 'createContext + screenshot(url or {html}) + destroyContext; adblock on (its default: ad engine + autoconsent opt-out); waitUntil load, waitForDom 0; viewport of the page at scale 1; the page type/quality/fullPage'
      : 'createContext + screenshot(url or {html}) + destroyContext with its defaults: waitUntil auto (load, then networkidle2 or a white-screen retry), "Macbook Pro 13" device (scale 2), adblock on, png';
  return {
    name: '@browserless/screenshot',
    version: `${version(req, '@browserless/screenshot')} (browserless ${version(req, 'browserless')})`,
    options,
    async shoot(p) {
      const t = performance.now();
      const vp = viewportOf(p);
      const fmt = formatOf(p);
      const own =
        setting === 'aligned'
          ? {
              waitUntil: 'load',
              waitForDom: 0,
              viewport: { ...vp, deviceScaleFactor: 1 },
              fullPage: p.req.fullPage ?? false,
              type: fmt,
              ...(fmt !== 'png' ? { quality: p.req.quality ?? 80 } : {}),
            }
          : {};
      const ctx = await browser.createContext();
      try {
        const buf = await ctx.screenshot(p.url ?? '', { ...(p.url ? {} : { html: p.html }), ...own });
        if (process.env.PEER_SHOTS) writeFileSync(path.join(process.env.PEER_SHOTS, `browserless-${p.name}.${formatOf(p)}`), buf);
        return { ms: performance.now() - t, ok: buf.length > 0, tag: p.name, bytes: buf.length };
      } finally {
        await ctx.destroyContext();
      }
    },
    close: () => browser.close(),
  };
}

/** Ours over HTTP: html mode, or url mode for a page served here. */
export function oursContender(shotUrl: string, key: string, setting: Setting): Contender {
  return {
    name: 'ours',
    version: 'this tree',
    options:
      setting === 'aligned'
        ? 'POST /v1/screenshot, waitUntil load, blockCookieBanners (default on)'
        : 'POST /v1/screenshot with the defaults (networkidle2, blockCookieBanners)',
    async shoot(p) {
      const t = performance.now();
      const res = await fetch(shotUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ ...(p.url ? { url: p.url } : { html: p.html }), ...p.req, ...(setting === 'aligned' ? { waitUntil: 'load' } : {}) }),
      });
      const buf = Buffer.from(await res.arrayBuffer());
      return { ms: performance.now() - t, ok: res.status === 200 && buf.length > 0, tag: p.name, bytes: buf.length };
    },
    close: async () => {},
  };
}

/**
 * A real-looking page with many subresources from many hosts, served on loopback: an article with
 * stylesheets, scripts, a web font and images from `hosts` origins (127.0.0.2 ... as IP literals on
 * one port: distinct hosts to the browser, no name to resolve) and third-party names that do not
 * resolve (as on a site whose trackers are unreachable). `allow` is what ours needs in EGRESS_ALLOW.
 */
export async function startManyHostsSite(hosts = 24, failing = 8): Promise<{ page: PeerPage; allow: string[]; close(): Promise<void> }> {
  const img = await sharp({ create: { width: 240, height: 160, channels: 3, background: { r: 120, g: 150, b: 190 } } })
    .composite([{ input: Buffer.from('<svg width="240" height="160"><circle cx="120" cy="80" r="60" fill="#d84"/></svg>'), top: 0, left: 0 }])
    .png()
    .toBuffer();
  const server = http.createServer((req, res) => {
    const u = req.url ?? '/';
    if (u.endsWith('.png')) return void res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(img);
    if (u.endsWith('.css'))
      return void res
        .writeHead(200, { 'content-type': 'text/css' })
        .end(`.h${u.length}{color:#234} article p{line-height:1.5} .card{display:inline-block;margin:6px}`);
    if (u.endsWith('.js'))
      return void res
        .writeHead(200, { 'content-type': 'text/javascript' })
        .end(
          `document.addEventListener('DOMContentLoaded',()=>{const p=document.createElement('p');p.textContent='widget ${u.length}';document.body.appendChild(p)});`,
        );
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  const port = (server.address() as AddressInfo).port;
  const host = (i: number) => `127.0.0.${2 + (i % hosts)}:${port}`;
  let head = '';
  let body = '<header style="background:#234;color:#fff;padding:20px"><h1>A news site</h1></header><article style="padding:20px;font:16px sans-serif">';
  for (let i = 0; i < hosts; i++) {
    if (i % 3 === 0) head += `<link rel="stylesheet" href="http://${host(i)}/s${i}.css">`;
    if (i % 3 === 1) head += `<script src="http://${host(i)}/w${i}.js"></script>`;
  }
  for (let i = 0; i < failing; i++) {
    head += `<script async src="https://tracker${i}.nonexistent-analytics.com/t.js"></script>`;
    body += `<img src="https://pixel${i}.nonexistent-ads.net/p.gif" width="1" height="1">`;
  }
  for (let i = 0; i < 48; i++) {
    body += `<div class="card"><img src="http://${host(i)}/img${i}.png" width="240" height="160"><p>Story ${i}</p></div>`;
    if (i % 8 === 7) body += `<p>${'The article text goes on, with a paragraph between the pictures. '.repeat(4)}</p>`;
  }
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>many hosts</title>${head}</head><body style="margin:0">${body}</article></body></html>`;
  const allow = [`127.0.0.1:${port}`, ...Array.from({ length: hosts }, (_, i) => host(i))];
  return {
    page: { name: 'many-hosts', html, url: `http://127.0.0.1:${port}/`, req: {} },
    allow,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface ContenderFigures {
  name: string;
  version: string;
  options: string;
  medianMs: number;
  p95Ms: number;
  errors: number;
  byPageMedianMs: Record<string, number>;
  bytesMedian: number;
  throughputPerSecond: number;
  cpuPerCaptureMs: number;
}

/**
 * The contenders on a set of pages: time per capture one at a time, the contenders in turns
 * (round after round, each page by each contender before the next page), so that a machine whose
 * speed drifts during the run moves every contender alike; then each alone, saturated (2 clients:
 * throughput and CPU, which needs the machine to itself).
 */
export async function measureContenders(cs: Contender[], pages: PeerPage[], rounds: number, saturated: number): Promise<ContenderFigures[]> {
  for (const c of cs) for (const p of pages) await c.shoot(p).catch(() => undefined); // warm-up
  const samples = new Map<Contender, Shot[]>(cs.map((c) => [c, []]));
  for (let r = 0; r < rounds; r++)
    for (const p of pages) for (const c of cs) samples.get(c)!.push(await c.shoot(p).catch((): Shot => ({ ms: NaN, ok: false, tag: p.name, bytes: 0 })));
  const out: ContenderFigures[] = [];
  for (const c of cs) {
    const all = samples.get(c)!;
    const ok = all.filter((s) => s.ok);
    const byPage: Record<string, number> = {};
    for (const p of pages) byPage[p.name] = median(ok.filter((s) => s.tag === p.name).map((s) => s.ms));
    let i = 0;
    const { result, cpu } = await cpuPerCapture(
      () => closedLoop(() => c.shoot(pages[i++ % pages.length]!), 2, saturated),
      (x) => x.ms.length + x.errors,
    );
    out.push({
      name: c.name,
      version: c.version,
      options: c.options,
      medianMs: median(ok.map((s) => s.ms)),
      p95Ms: pct(
        ok.map((s) => s.ms),
        95,
      ),
      errors: all.length - ok.length + result.errors,
      byPageMedianMs: byPage,
      bytesMedian: median(ok.map((s) => s.bytes)),
      throughputPerSecond: result.rps,
      cpuPerCaptureMs: cpu.totalMs,
    });
  }
  return out;
}

/** Ours against each peer, higher is better: throughput ours/theirs, time and p95 theirs/ours. */
export function peerRatios(figures: ContenderFigures[]): Record<string, { throughput: number; time: number; timeP95: number; cpu: number }> {
  const ours = figures.find((f) => f.name === 'ours')!;
  return Object.fromEntries(
    figures
      .filter((f) => f.name !== 'ours')
      .map((f) => [
        f.name,
        {
          throughput: ours.throughputPerSecond / f.throughputPerSecond,
          time: f.medianMs / ours.medianMs,
          timeP95: f.p95Ms / ours.p95Ms,
          cpu: f.cpuPerCaptureMs / ours.cpuPerCaptureMs,
        },
      ]),
  );
}

export function peerRows(title: string, figures: ContenderFigures[]): string[][] {
  const rows: string[][] = [];
  for (const f of figures)
    rows.push([
      `${title}: ${f.name} ${f.version}`,
      `median ${f.medianMs.toFixed(0)} p95 ${f.p95Ms.toFixed(0)} ms${f.errors ? ` errors ${f.errors}` : ''}`,
      f.medianMs.toFixed(0),
      `${f.throughputPerSecond.toFixed(2)}/s, CPU/capture ${f.cpuPerCaptureMs.toFixed(0)} ms, ${(f.bytesMedian / 1024).toFixed(0)} KiB`,
      '',
    ]);
  for (const [name, r] of Object.entries(peerRatios(figures)))
    rows.push([
      `${title}: ours vs ${name}`,
      `throughput ${r.throughput.toFixed(2)}x, time ${r.time.toFixed(2)}x, p95 ${r.timeP95.toFixed(2)}x`,
      '',
      `CPU ${r.cpu.toFixed(2)}x`,
      '>= 1.3x',
    ]);
  return rows;
}

export interface PeersResult {
  setting: Record<Setting, { mix: ContenderFigures[]; manyHosts: ContenderFigures[] }>;
  /** `aligned` on the mix and on the many-hosts page, ours over each peer (higher is better). */
  ratios: { mix: ReturnType<typeof peerRatios>; manyHosts: ReturnType<typeof peerRatios> };
  defaultsRatios: { mix: ReturnType<typeof peerRatios>; manyHosts: ReturnType<typeof peerRatios> };
  resolverRules: string;
  load: number[];
}

/**
 * The whole section. `startOurs(allow)` starts the reference server allowed to reach the
 * many-hosts site; the contenders take turns on the same pages (measureContenders).
 */
export async function peersSection(
  executablePath: string,
  mix: BenchPage[],
  startOurs: (allow: string[]) => Promise<{ shotUrl: string; key: string; close(): Promise<void> }>,
  quick: boolean,
): Promise<PeersResult> {
  peersRequire();
  const site = await startManyHostsSite();
  const ours = await startOurs(site.allow);
  const rounds = quick ? 1 : 3;
  const sat = quick ? 4 : 8;
  const out = {} as PeersResult['setting'];
  try {
    for (const setting of ['aligned', 'defaults'] as const) {
      out[setting] = { mix: [], manyHosts: [] };
      const cs: Contender[] = [];
      try {
        cs.push(oursContender(ours.shotUrl, ours.key, setting));
        cs.push(await startBrowserless(executablePath, setting));
        cs.push(await startCaptureWebsite(executablePath, setting));
        out[setting].mix = await measureContenders(cs, mix, rounds, sat);
        out[setting].manyHosts = await measureContenders(cs, [site.page], quick ? 4 : 8, sat);
      } finally {
        for (const c of cs) await c.close();
      }
    }
  } finally {
    await ours.close();
    await site.close();
  }
  return {
    setting: out,
    ratios: { mix: peerRatios(out.aligned.mix), manyHosts: peerRatios(out.aligned.manyHosts) },
    defaultsRatios: { mix: peerRatios(out.defaults.mix), manyHosts: peerRatios(out.defaults.manyHosts) },
    resolverRules: PEER_RESOLVER_RULES,
    load: os.loadavg(),
  };
}

export function peersRows(r: PeersResult): string[][] {
  return [
    ...peerRows('PEERS aligned, mix', r.setting.aligned.mix),
    ...peerRows('PEERS aligned, many hosts', r.setting.aligned.manyHosts),
    ...peerRows('PEERS defaults (not targets), mix', r.setting.defaults.mix),
    ...peerRows('PEERS defaults (not targets), many hosts', r.setting.defaults.manyHosts),
    ...r.setting.aligned.mix.map((f) => [`  options (aligned) ${f.name}`, f.options, '', '', '']),
    ...r.setting.defaults.mix.map((f) => [`  options (defaults) ${f.name}`, f.options, '', '', '']),
  ];
}
