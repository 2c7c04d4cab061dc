// `npm run bench [-- --json FILE] [--quick]`: speed figures measured side by side in one run, on
// the same browser binary. Not a test: it prints figures and ratios against the targets of
// issue 2 (and the cleanup overheads of issue 4); it never fails a build.
//
//   floor       raw puppeteer setContent + screenshot on an already open page (no isolation)
//   naive       an HTTP server that creates a context and page per request
//   per-launch  an HTTP server that launches a browser per request
//   ours        the reference server, end to end over HTTP
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { startServer } from '../server/start.ts';
import { loadConfig } from '../server/config.ts';
import { launchBrowser } from '../server/render/browser.ts';
import { startBaselineServer, type Baseline } from './baselines.ts';
import { closedLoop, median, openLoop, peakMemoryDuring, pct, type Sample } from './measure.ts';

const args = process.argv.slice(2);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const quick = args.includes('--quick');
const N = quick ? 10 : 30;
const KEY = 'bench-key-0123456789abcdef';
const HTML = `<!doctype html><html><body style="margin:0;font:16px sans-serif">
<header style="background:#234;color:#fff;padding:24px"><h1>Benchmark page</h1></header>
<main style="padding:24px">${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. </p>'.repeat(20)}</main></body></html>`;
const body = (extra: object = {}) => JSON.stringify({ html: HTML, blockCookieBanners: false, waitUntil: 'load', ...extra });

const config = loadConfig({ ...process.env, API_KEYS: KEY, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', DATA_DIR: `${os.tmpdir()}/bench-data-${process.pid}`, FREE_CREDITS: '1000000' });
const results: Record<string, unknown> = {
  machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, chromium: config.chromiumPath },
  renderConcurrency: config.renderConcurrency,
};
const rows: string[][] = [];
const row = (...cells: (string | number)[]) => rows.push(cells.map(String));

function post(url: string, payload: string, auth = true): () => Promise<Sample> {
  return async () => {
    const t = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${KEY}` } : {}) }, body: payload });
    const buf = Buffer.from(await res.arrayBuffer());
    return { ms: performance.now() - t, ok: res.status === 200 && buf.length > 0 };
  };
}

// (a) the floor: one open page, no isolation.
const floorBrowser = await launchBrowser({ executablePath: config.chromiumPath, args: [] });
const floorPage = await floorBrowser.browser.newPage();
await floorPage.setViewport({ width: 1280, height: 720 });
const floorOnce = async (): Promise<Sample> => {
  const t = performance.now();
  await floorPage.setContent(HTML, { waitUntil: 'load' });
  await floorPage.screenshot({ type: 'png' });
  return { ms: performance.now() - t, ok: true };
};
for (let i = 0; i < 3; i++) await floorOnce();
const floorSeq: number[] = [];
for (let i = 0; i < N; i++) floorSeq.push((await floorOnce()).ms);
const floorOpen = await openLoop(floorOnce, 2, N);
const floor = median(floorOpen.ms);
row('floor: open page, setContent+screenshot, 2 req/s', median(floorSeq).toFixed(0) + ' seq', floor.toFixed(0), '', '');
results.floor = { sequentialMedianMs: median(floorSeq), openLoop2rpsMedianMs: floor };
await floorBrowser.close();

// The reference server.
const ours = await startServer(config);
const shotUrl = `${ours.url}/v1/screenshot`;
for (let i = 0; i < 3; i++) await post(shotUrl, body())();
const oursLoad = await openLoop(post(shotUrl, body()), 2, N);
const oursIdle = await openLoop(post(shotUrl, body({ waitUntil: 'networkidle2' })), 2, N);
row('ours: waitUntil load, 2 req/s (open loop)', '', median(oursLoad.ms).toFixed(0), `${(median(oursLoad.ms) / floor).toFixed(2)}x floor`, '<= 1.3x');
row('ours: networkidle2, 2 req/s (open loop)', '', median(oursIdle.ms).toFixed(0), `floor + ${(median(oursIdle.ms) - floor).toFixed(0)} ms`, '<= floor + 600');
results.ours = { load2rps: { medianMs: median(oursLoad.ms), p95Ms: pct(oursLoad.ms, 95), ratioToFloor: median(oursLoad.ms) / floor, errors: oursLoad.errors }, networkidle2_2rps: { medianMs: median(oursIdle.ms), overFloorMs: median(oursIdle.ms) - floor, errors: oursIdle.errors } };

// Saturation: closed loop at several client concurrencies, throughput in captures/s.
const levels = quick ? [2, 4] : [1, 2, 4, 8];
const perLevel = quick ? 16 : 40;
const sat = async (name: string, url: string, lv: number[], count: number, auth = true) => {
  const out: Record<number, { rps: number; medianMs: number; errors: number }> = {};
  for (const c of lv) {
    const r = await closedLoop(post(url, body(), auth), c, count);
    out[c] = { rps: r.rps, medianMs: median(r.ms), errors: r.errors };
  }
  const best = Math.max(...Object.values(out).map((x) => x.rps));
  row(`${name}: saturation throughput`, Object.entries(out).map(([c, x]) => `C${c}=${x.rps.toFixed(1)}`).join(' '), '', `best ${best.toFixed(2)}/s`, '');
  return { byConcurrency: out, best };
};
const oursSat = await sat('ours', shotUrl, levels, perLevel);

const naive: Baseline = await startBaselineServer('naive', config.chromiumPath);
const naiveSat = await sat('naive (context+page per request)', naive.url, levels, perLevel, false);
await naive.close();
const perLaunch: Baseline = await startBaselineServer('per-launch', config.chromiumPath);
const perLaunchSat = await sat('per-launch (browser per request)', perLaunch.url, quick ? [2] : [1, 2, 4], quick ? 6 : 12, false);
await perLaunch.close();
row('ours / naive best throughput', '', '', `${(oursSat.best / naiveSat.best).toFixed(2)}x`, '>= 0.9x');
row('ours / per-launch best throughput', '', '', `${(oursSat.best / perLaunchSat.best).toFixed(2)}x`, '>= 2.5x');
results.saturation = { ours: oursSat, naive: naiveSat, perLaunch: perLaunchSat, oursOverNaive: oursSat.best / naiveSat.best, oursOverPerLaunch: oursSat.best / perLaunchSat.best };

// fullPage 1280x30000: time and peak memory (server process + its browser).
const tall = `<body style="margin:0">${Array.from({ length: 30 }, (_, i) => `<div style="height:1000px;background:hsl(${i * 12},70%,55%)"></div>`).join('')}</body>`;
const fp = await peakMemoryDuring(() => post(shotUrl, JSON.stringify({ html: tall, fullPage: true, waitUntil: 'load', blockCookieBanners: false }))());
row('fullPage 1280x30000 PNG', `${fp.result.ms.toFixed(0)} ms`, '', `peak RSS ${fp.peakMiB.toFixed(0)} MiB (node ${fp.nodeMiB.toFixed(0)} + chromium ${fp.chromiumMiB.toFixed(0)})`, '');
results.fullPage30000 = { ms: fp.result.ms, ok: fp.result.ok, peakRssMiB: fp.peakMiB, nodePeakMiB: fp.nodeMiB, chromiumPeakMiB: fp.chromiumMiB };

// Cleanup overhead (issue 4), when the cleanup bench exists.
try {
  const mod = await import('./cleanup-bench.ts');
  const cb = await launchBrowser({ executablePath: config.chromiumPath, args: [] });
  const r = await mod.benchCleanup(cb.browser, { iterations: quick ? 5 : 15 });
  await cb.close();
  results.cleanup = r;
  row('cleanup overhead, page without a banner', '', `${Number(r.noBannerMedianMs).toFixed(0)}`, '', '<= 50 ms');
  row('cleanup overhead, CMP page', '', `${Number(r.cmpMedianMs).toFixed(0)}`, '', '<= 1500 ms');
} catch (e) {
  row('cleanup overhead', 'not measured', String(e).slice(0, 60), '', '');
}
await ours.close();

const widths = [50, 40, 10, 40, 12];
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join(' ');
console.log(`\nmachine: ${os.cpus().length} cores, ${results.machine && (results.machine as any).cpuModel}; node ${process.version}; browser ${config.chromiumPath}; RENDER_CONCURRENCY=${config.renderConcurrency}`);
console.log(line(['measure', 'detail', 'median ms', 'ratio / figure', 'target']));
for (const r of rows) console.log(line(r));
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2));
process.exit(0);
