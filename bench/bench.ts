// `npm run bench [-- --json FILE] [--quick]`: speed figures measured side by side in one run, on
// the same browser binary. Not a test: it prints figures and ratios against the
// targets in docs/performance.md (and the cleanup overheads); it never fails a build.
//
//   floor       raw puppeteer setContent + screenshot on an already open page (no isolation)
//   isolated    the cheapest capture with ours's isolation: a fresh context per capture, the
//               server's launch, flags, sandbox and egress proxy, behind a minimal HTTP server
//   naive       an HTTP server that creates a context and page per request
//   per-launch  an HTTP server that launches a browser per request
//   ours        the reference server, end to end over HTTP
//
// First the plain page (bench/plain.ts): floor, isolated floor and ours in turns, round after
// round, by a client in a process of its own (bench/turns.ts, bench/client.ts).
// Then the workload (bench/pages.ts): a mix of real-looking pages (share card, article
// with a web font and a cookie banner, 15k px fullPage list, many small images) through ours, the
// floor (a reused page per worker) and the naive server; long pages fullPage against the naive
// server; our PNG encode against Chromium's; CPU per capture; small captures beside a tall one;
// the frame-pacing flags; tall and endless full pages (bench/tall.ts). The headline ratios are in
// --json under `ratios`. Then request blocking on the mix (bench/blocking.ts), and the comparison of
// POST /v1/compare (bench/compare.ts, no browser), and the real peers (bench/peers.ts); then
// synchronous captures beside a 200-item batch, on npm start in a process of its own, embedded store
// and PostgreSQL (bench/batches.ts).
// `--only plain`, `--only blocking`, `--only tall`, `--only compare`, `--only peers`, `--only cleanup` and `--only batches` run one section alone.
//
// The open-loop rates follow the capacity measured on this host (bench/offered-load.ts): half the
// floor's saturated mix throughput for the mix, the same for every contender; printed first, and
// in --json under `offeredLoad`.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { startServer } from '../server/start.ts';
import { loadConfig } from '../server/config.ts';
import { launchBrowser } from '../server/toolkit/browser.ts';
import { startBaselineServer, type Baseline } from './baselines.ts';
import { startFloor } from './floor.ts';
import { formatByKind } from './cpu.ts';
import { closedLoop, median, peakMemoryDuring, type Sample } from './measure.ts';
import { fmtRate, offeredLoad, openLoopCount } from './offered-load.ts';
import { benchPlain, PLAIN_HTML, plainRows } from './plain.ts';
import { blockingOnMix, blockingRows } from './blocking.ts';
import { compareBench, compareRows } from './compare.ts';
import { batchRatios, batchRows, benchBatches } from './batches.ts';
import { BENCH_DIR, buildPages } from './pages.ts';
import { benchTall, tallRows } from './tall.ts';
import { peersRows, peersSection } from './peers.ts';
import { benchCleanup, cleanupRows } from './cleanup-bench.ts';
import { benchConsentBattery, consentBatteryRows, consentBatteryTables } from './consent-battery.ts';
import { cycle, eventLoopUnderFullPage, FRAME_FLAGS, fullPageVsNaive, mixLatency, mixThroughput, pngCard, poster, type LatencyFigures } from './workload.ts';
import { BENCH_KEY, benchEnv } from './server-env.ts';

const args = process.argv.slice(2);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const quick = args.includes('--quick');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const fmtEld = (d: { p50: number; p99: number; max: number }) => `${d.p50.toFixed(0)} ${d.p99.toFixed(0)} ${d.max.toFixed(0)}`;
const body = (extra: object = {}) => JSON.stringify({ html: PLAIN_HTML, blockCookieBanners: false, waitUntil: 'load', ...extra });

const dataDirs = [
  `${os.tmpdir()}/bench-data-${process.pid}`,
  `${os.tmpdir()}/bench-data-${process.pid}-flags`,
  `${os.tmpdir()}/bench-data-${process.pid}-blocking`,
  `${os.tmpdir()}/bench-data-${process.pid}-tall`,
  `${os.tmpdir()}/bench-data-${process.pid}-peers`,
  `${os.tmpdir()}/bench-data-${process.pid}-cleanup`,
  `${os.tmpdir()}/bench-data-${process.pid}-battery`,
];
const config = loadConfig(benchEnv(dataDirs[0]!));
const started = performance.now();
// Seconds each section took (--json `sectionSeconds`), to keep the run's length in check.
const sectionSeconds: Record<string, number> = {};
let section: [string, number] | undefined;
const mark = (name: string) => {
  const now = performance.now();
  if (section) sectionSeconds[section[0]] = Math.round((now - section[1]) / 100) / 10;
  section = [name, now];
};

if (only === 'batches') {
  const b = await benchBatches(quick);
  for (const r of batchRows(b)) console.log(r.join(' | '));
  console.log(
    `ratios: ${JSON.stringify(batchRatios(b), (_k, v) => (typeof v === 'number' ? Number(v.toFixed(3)) : v))}; load average ${b.embedded.loadAverage.map((l) => l.toFixed(2)).join(' ')}`,
  );
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ batches: b, ratios: batchRatios(b) }, null, 2));
  process.exit(0);
}
if (only === 'compare') {
  const c = await compareBench(quick);
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${os.cpus().length} cores`,
  );
  for (const r of compareRows(c)) console.log(r.join(' | '));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ compare: c }, null, 2));
  process.exit(0);
}
// The workload pages, written to fixtures/bench/ to look at (deterministic: unchanged files stay as they are).
const { mix, long } = await buildPages();
for (const p of [...mix, ...long]) {
  const file = path.join(BENCH_DIR, `${p.name}.html`);
  if (!existsSync(file) || readFileSync(file, 'utf8') !== p.html) writeFileSync(file, p.html);
}
// Request blocking on the mix (bench/blocking.ts): its own server, allowed to reach the site that serves the mix.
const blocking = () =>
  blockingOnMix(
    mix,
    quick ? 3 : 8,
    async (allow) => {
      const s = await startServer(loadConfig({ ...benchEnv(dataDirs[2]!), EGRESS_ALLOW: allow, CACHE_TTL_SECONDS: '0' }));
      return { url: s.url, close: () => s.close() };
    },
    async (url, payload) => {
      const t = performance.now();
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
        body: JSON.stringify(payload),
      });
      const buf = Buffer.from(await res.arrayBuffer());
      return { ms: performance.now() - t, ok: res.status === 200, bytes: buf.length, blocked: Number(res.headers.get('x-blocked-requests') ?? 0) };
    },
  );
// Real peers (bench/peers.ts): its own server, allowed to reach the many-hosts site.
const peersRun = () =>
  peersSection(
    config.chromiumPath,
    mix,
    async (allow) => {
      const s = await startServer(loadConfig({ ...benchEnv(dataDirs[4]!), EGRESS_ALLOW: allow.join(','), CACHE_TTL_SECONDS: '0' }));
      return { shotUrl: `${s.url}/v1/screenshot`, key: BENCH_KEY, close: () => s.close() };
    },
    quick,
  ).finally(() => rmSync(dataDirs[4]!, { recursive: true, force: true }));
// What the banner clean-up adds to a render (bench/cleanup-bench.ts): through a server of its own,
// allowed to reach the consent fixtures, from each capture's Server-Timing steps.
const cleanupSection = () =>
  benchCleanup(
    async (allow) => {
      const s = await startServer(loadConfig({ ...benchEnv(dataDirs[5]!), EGRESS_ALLOW: allow, CACHE_TTL_SECONDS: '0' }));
      return { shotUrl: `${s.url}/v1/screenshot`, key: BENCH_KEY, close: () => s.close() };
    },
    { iterations: quick ? 6 : 16 },
  ).finally(() => rmSync(dataDirs[5]!, { recursive: true, force: true }));
// The consent-library battery (bench/consent-battery.ts): ours and the two peers on its pages.
const batterySection = () =>
  benchConsentBattery(async (allow) => {
    const s = await startServer(loadConfig({ ...benchEnv(dataDirs[6]!), EGRESS_ALLOW: allow, CACHE_TTL_SECONDS: '0' }));
    return { shotUrl: `${s.url}/v1/screenshot`, key: BENCH_KEY, close: () => s.close() };
  }, config.chromiumPath).finally(() => rmSync(dataDirs[6]!, { recursive: true, force: true }));
// Tall and endless pages, A/B (bench/tall.ts): its own server.
const tallSection = async () => {
  try {
    return await benchTall(loadConfig({ ...benchEnv(dataDirs[3]!), CACHE_TTL_SECONDS: '0' }), quick ? 1 : 3);
  } finally {
    rmSync(dataDirs[3]!, { recursive: true, force: true });
  }
};
if (only === 'blocking') {
  const b = await blocking();
  rmSync(dataDirs[2]!, { recursive: true, force: true });
  for (const r of blockingRows(b)) console.log(r.filter(Boolean).join(' | '));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ blocking: b }, null, 2));
  process.exit(0);
} else if (only === 'tall') {
  const t = await tallSection();
  for (const r of tallRows(t)) console.log(r.filter(Boolean).join(' | '));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ tall: t }, null, 2));
  process.exit(0);
} else if (only === 'peers') {
  const r = await peersRun();
  for (const row of peersRows(r)) console.log(row.filter(Boolean).join(' | '));
  console.log(`ratios.peers: ${JSON.stringify(r.ratios)}`);
  if (jsonOut)
    writeFileSync(
      jsonOut,
      JSON.stringify(
        {
          peers: r,
          ratios: {
            peers: r.ratios.mix,
            peersManyHosts: r.ratios.manyHosts,
            peersDefaults: r.defaultsRatios.mix,
            peersManyHostsDefaults: r.defaultsRatios.manyHosts,
          },
        },
        null,
        2,
      ),
    );
  process.exit(0);
} else if (only === 'plain') {
  const p = await benchPlain(config, quick);
  for (const row of plainRows(p)) console.log(row.filter(Boolean).join(' | '));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ floor: p.floor, isolatedFloor: p.isolatedFloor, ours: p.ours, plain: p }, null, 2));
  process.exit(0);
} else if (only === 'cleanup') {
  const r = await cleanupSection();
  for (const row of cleanupRows(r)) console.log(row.filter(Boolean).join(' | '));
  const b = await batterySection();
  console.log(consentBatteryTables(b));
  for (const row of consentBatteryRows(b)) console.log(row.filter(Boolean).join(' | '));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ cleanup: r, consentBattery: b }, null, 2));
  process.exit(0);
} else if (only !== undefined) {
  console.error(`bench: --only knows seven sections, plain, blocking, tall, compare, peers, cleanup and batches (not ${only})`);
  process.exit(2);
}
const SAT_N = quick ? 8 : 16; // closed loop captures per concurrency level
const SAT_LEVELS = quick ? [2] : [2, 4];
// The frame-pacing flags cost two more mix runs: on in a full run, in --quick only with --frame-flags.
const frameFlags = !quick || args.includes('--frame-flags');
const cpuCell = (l: { cpuPerCapture: { totalMs: number; nodeMs: number; chromiumMs: number } }) =>
  `CPU/capture ${l.cpuPerCapture.totalMs.toFixed(0)} ms (node ${l.cpuPerCapture.nodeMs.toFixed(0)} + chromium ${l.cpuPerCapture.chromiumMs.toFixed(0)})`;
const pagesCell = (l: LatencyFigures) =>
  Object.entries(l.byPageMedianMs)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(' ');
const mixRows = (name: string, l: LatencyFigures) => {
  row(`${name}`, `p95 ${l.p95Ms.toFixed(0)}${l.errors ? ` errors ${l.errors}` : ''}`, l.medianMs.toFixed(0), cpuCell(l), '');
  row('  by page (median ms)', pagesCell(l), '', '', '');
};
const results: Record<string, unknown> = {
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    chromium: config.chromiumPath,
  },
  renderConcurrency: config.renderConcurrency,
};
const rows: string[][] = [];
const row = (...cells: (string | number)[]) => rows.push(cells.map(String));

function post(url: string, payload: string, auth = true): () => Promise<Sample> {
  return async () => {
    const t = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${BENCH_KEY}` } : {}) },
      body: payload,
    });
    const buf = Buffer.from(await res.arrayBuffer());
    return { ms: performance.now() - t, ok: res.status === 200 && buf.length > 0 };
  };
}

mark('plain');
// The plain page: ours against the reused-page floor and the isolated floor, in turns, by a client
// in its own process (bench/plain.ts).
const plain = await benchPlain(config, quick);
rows.push(...plainRows(plain));
results.floor = plain.floor;
results.isolatedFloor = plain.isolatedFloor;
results.ours = plain.ours;
results.plain = {
  rounds: plain.rounds,
  perRound: plain.perRound,
  gapMs: plain.gapMs,
  isolatedOverFloor: plain.isolatedOverFloor,
  loadAverage: plain.loadAverage,
};

mark('floor mix');
// The floor on the mix: one reused page per render slot. Its saturated throughput (closed loop, one
// client per worker) comes first: the offered load of every open-loop measure is derived from it
// and from the plain page's sequential time (bench/offered-load.ts). Then its latency at that rate;
// then the same with the frame-pacing flags, right after.
const floorMix = await startFloor(config.chromiumPath, config.renderConcurrency);
for (const p of mix) await floorMix.shoot(p);
const floorMixSat = await mixThroughput(cycle(mix, floorMix.shoot), [config.renderConcurrency], SAT_N);
const load = offeredLoad(floorMixSat.best.rps, plain.floor.medianMs);
const mixN = quick ? 8 : openLoopCount(load.mixPerSecond, mix.length, 12, 24);
const mixRate = fmtRate(load.mixPerSecond);
results.offeredLoad = { ...load, mixRequests: mixN };
row(
  'offered load (open loop), every contender',
  `mix ${mixRate} (the plain page: in turns, above)`,
  '',
  `floor capacity: mix ${load.floorMixCapacityPerSecond.toFixed(2)}/s, plain ${load.floorPlainCapacityPerSecond.toFixed(1)}/s`,
  '',
);
row('  rule', load.rule, '', '', '');
console.log(`bench: offered load ${mixRate} on the mix (${load.rule})`);
const floorMixLat = await mixLatency(cycle(mix, floorMix.shoot), load.mixPerSecond, mixN);
await floorMix.close();
let floorFlagsLat: LatencyFigures | undefined;
if (frameFlags) {
  const floorFlags = await startFloor(config.chromiumPath, config.renderConcurrency, FRAME_FLAGS);
  for (const p of mix) await floorFlags.shoot(p);
  floorFlagsLat = await mixLatency(cycle(mix, floorFlags.shoot), load.mixPerSecond, mixN);
  await floorFlags.close();
}
mixRows(`MIX floor: reused page, ${mixRate}`, floorMixLat);

mark('ours');
// The reference server.
const ours = await startServer(config);
const shotUrl = `${ours.url}/v1/screenshot`;
for (let i = 0; i < 3; i++) await post(shotUrl, body())();
// What affects pixels and speed is recorded with the figures: the browser's own version.
(results.machine as Record<string, unknown>).chromiumVersion = ours.pool.browserVersion;

mark('ours mix');
// Ours on the mix, end to end: the floor's work (waitUntil load, no banner clean-up: the floor
// removes no banner), then the defaults (networkidle2, blockCookieBanners);
// then a second server whose browsers get the frame-pacing flags (the server has no setting for
// extra flags: they are passed through startServer's launchBrowser override), right after.
const oursPage = poster(shotUrl, BENCH_KEY, { waitUntil: 'load', blockCookieBanners: false });
for (const p of mix) await oursPage(p);
const oursMixLoad = await mixLatency(cycle(mix, oursPage), load.mixPerSecond, mixN);
const oursMixDefault = await mixLatency(cycle(mix, poster(shotUrl, BENCH_KEY)), load.mixPerSecond, mixN);
let oursFlagsLat: LatencyFigures | undefined;
if (frameFlags) {
  const oursFlags = await startServer(loadConfig(benchEnv(dataDirs[1]!)), { launchBrowser: (o) => launchBrowser({ ...o, args: [...o.args, ...FRAME_FLAGS] }) });
  const oursFlagsPage = poster(`${oursFlags.url}/v1/screenshot`, BENCH_KEY, { waitUntil: 'load', blockCookieBanners: false });
  for (const p of mix) await oursFlagsPage(p);
  oursFlagsLat = await mixLatency(cycle(mix, oursFlagsPage), load.mixPerSecond, mixN);
  await oursFlags.close();
}
mixRows(`MIX ours: waitUntil load, no clean-up, ${mixRate}`, oursMixLoad);
mixRows(`MIX ours: defaults (networkidle2, banners), ${mixRate}`, oursMixDefault);
row(
  `MIX ours load / floor, ${mixRate}`,
  '',
  '',
  `${(oursMixLoad.medianMs / floorMixLat.medianMs).toFixed(2)}x (p95 ${(oursMixLoad.p95Ms / floorMixLat.p95Ms).toFixed(2)}x)`,
  '',
);
const flagRow = (name: string, without: LatencyFigures, withFlags?: LatencyFigures) =>
  withFlags
    ? row(
        `frame flags: ${name} mix ${mixRate}, without / with`,
        `${without.medianMs.toFixed(0)} / ${withFlags.medianMs.toFixed(0)} ms`,
        '',
        `CPU/capture ${without.cpuPerCapture.totalMs.toFixed(0)} / ${withFlags.cpuPerCapture.totalMs.toFixed(0)} ms`,
        '',
      )
    : row(`frame flags: ${name}`, 'not measured (--quick; add --frame-flags)', '', '', '');
flagRow('floor', floorMixLat, floorFlagsLat);
flagRow('ours load', oursMixLoad, oursFlagsLat);
const oursMixSat = await mixThroughput(cycle(mix, oursPage), SAT_LEVELS, SAT_N);

mark('saturation');
// Saturation: closed loop at several client concurrencies, throughput in captures/s.
const levels = quick ? [4] : [1, 2, 4, 8];
const perLevel = quick ? 12 : 24;
const sat = async (name: string, url: string, lv: number[], count: number, auth = true) => {
  const out: Record<number, { rps: number; medianMs: number; errors: number }> = {};
  for (const c of lv) {
    const r = await closedLoop(post(url, body(), auth), c, count);
    out[c] = { rps: r.rps, medianMs: median(r.ms), errors: r.errors };
  }
  const best = Math.max(...Object.values(out).map((x) => x.rps));
  row(
    `${name}: saturation throughput`,
    Object.entries(out)
      .map(([c, x]) => `C${c}=${x.rps.toFixed(1)}`)
      .join(' '),
    '',
    `best ${best.toFixed(2)}/s`,
    '',
  );
  return { byConcurrency: out, best };
};
const oursSat = await sat('ours', shotUrl, levels, perLevel);

const naive: Baseline = await startBaselineServer('naive', config.chromiumPath);
const naiveSat = await sat('naive (context+page per request)', naive.url, levels, perLevel, false);
const naivePage = poster(naive.url, undefined);
const naiveMixSat = await mixThroughput(cycle(mix, naivePage), SAT_LEVELS, SAT_N);
mark('fullPage long');
// Long pages, fullPage: ours {html, fullPage, waitUntil: load} vs the naive server's page.screenshot({fullPage}).
const fullPages = await fullPageVsNaive(long, poster(shotUrl, BENCH_KEY, { fullPage: true, waitUntil: 'load' }), naivePage, quick ? 1 : 2);
await naive.close();
mark('per-launch');
const perLaunch: Baseline = await startBaselineServer('per-launch', config.chromiumPath);
const perLaunchSat = await sat('per-launch (browser per request)', perLaunch.url, quick ? [2] : [1, 2, 4], quick ? 6 : 12, false);
await perLaunch.close();
row('ours / naive best throughput', '', '', `${(oursSat.best / naiveSat.best).toFixed(2)}x`, '>= 0.9x');
row('ours / per-launch best throughput', '', '', `${(oursSat.best / perLaunchSat.best).toFixed(2)}x`, '>= 2.5x');
results.saturation = {
  ours: oursSat,
  naive: naiveSat,
  perLaunch: perLaunchSat,
  oursOverNaive: oursSat.best / naiveSat.best,
  oursOverPerLaunch: oursSat.best / perLaunchSat.best,
};

mark('fullPage 30000');
// fullPage 1280x30000: time and peak memory (server process + its browser).
const tall = `<body style="margin:0">${Array.from({ length: 30 }, (_, i) => `<div style="height:1000px;background:hsl(${i * 12},70%,55%)"></div>`).join('')}</body>`;
const fp = await peakMemoryDuring(() => post(shotUrl, JSON.stringify({ html: tall, fullPage: true, waitUntil: 'load', blockCookieBanners: false }))());
row(
  'fullPage 1280x30000 PNG',
  `${fp.result.ms.toFixed(0)} ms`,
  '',
  `peak RSS ${fp.peakMiB.toFixed(0)} MiB (node ${fp.nodeMiB.toFixed(0)} + chromium ${fp.chromiumMiB.toFixed(0)})`,
  '',
);
results.fullPage30000 = { ms: fp.result.ms, ok: fp.result.ok, peakRssMiB: fp.peakMiB, nodePeakMiB: fp.nodeMiB, chromiumPeakMiB: fp.chromiumMiB };

mark('tall');
const tallFigures = await tallSection();
for (const r of tallRows(tallFigures)) row(r[0]!, r[1]!, r[2]!, r[3]!, '');
results.tall = tallFigures;

mark('event loop');
// Small captures beside a tall fullPage (1280x30000) captured again and again.
const eld = await eventLoopUnderFullPage(
  post(shotUrl, body()),
  post(shotUrl, JSON.stringify({ html: tall, fullPage: true, waitUntil: 'load', blockCookieBanners: false })),
  quick ? 10 : 24,
);
row(
  'small captures alone / beside 30000 px fullPage',
  `${eld.alone.smallMedianMs.toFixed(0)} / ${eld.beside.smallMedianMs.toFixed(0)} ms (${eld.beside.tallCaptures} tall)`,
  eld.beside.smallMedianMs.toFixed(0),
  `+${eld.addedMedianMs.toFixed(0)} ms`,
  '<= +50 ms',
);
row('  event-loop delay ms alone / beside (p50 p99 max)', `${fmtEld(eld.alone.eventLoopDelayMs)} / ${fmtEld(eld.beside.eventLoopDelayMs)}`, '', '', '');
results.eventLoop = eld;

mark('png card');
// Our PNG capture + encode of the share card vs Chromium's default PNG, in-process on one page.
const card = await pngCard(
  config.chromiumPath,
  mix.find((p) => p.name === 'card')!,
  config.maxOutputPixels,
  quick ? 5 : 20,
);
row(
  'share card PNG: ours capture() / Chromium default',
  `${card.oursMedianMs.toFixed(0)} / ${card.chromiumMedianMs.toFixed(0)} ms`,
  card.oursMedianMs.toFixed(0),
  `${(card.oursMedianMs / card.chromiumMedianMs).toFixed(2)}x time, ${(card.oursBytes / card.chromiumBytes).toFixed(2)}x bytes (${(card.oursBytes / 1024).toFixed(0)} / ${(card.chromiumBytes / 1024).toFixed(0)} KiB)`,
  '',
);
results.pngCard = card;

mark('cleanup');
try {
  const r = await cleanupSection();
  results.cleanup = r;
  rows.push(...cleanupRows(r));
} catch (e) {
  row('cleanup overhead', 'not measured', String(e).slice(0, 60), '', '');
}
try {
  const b = await batterySection();
  results.consentBattery = b;
  rows.push(...consentBatteryRows(b));
} catch (e) {
  row('consent-library battery', 'not measured', String(e).slice(0, 60), '', '');
}
await ours.close();

mark('blocking');
results.blocking = await blocking();
rows.push(...blockingRows(results.blocking as Awaited<ReturnType<typeof blocking>>));
mark('peers');
const peers = await peersRun();
results.peers = peers;
rows.push(...peersRows(peers));
mark('compare');
results.compare = await compareBench(quick);
rows.push(...compareRows(results.compare as Awaited<ReturnType<typeof compareBench>>));
mark('batches');
const batches = await benchBatches(quick);
results.batches = batches;
rows.push(...batchRows(batches));
for (const d of dataDirs) rmSync(d, { recursive: true, force: true });

const sat1 = (t: { best: { rps: number; concurrency: number } }) => `${t.best.rps.toFixed(2)}/s (C${t.best.concurrency})`;
row(
  'MIX throughput: ours / naive / floor',
  `${sat1(oursMixSat)} / ${sat1(naiveMixSat)} / ${sat1(floorMixSat)}`,
  '',
  `${(oursMixSat.best.rps / naiveMixSat.best.rps).toFixed(2)}x naive, ${(oursMixSat.best.rps / floorMixSat.best.rps).toFixed(2)}x floor`,
  '',
);
const cpuOurs = oursMixSat.best.cpuPerCapture;
const cpuFloor = floorMixSat.best.cpuPerCapture;
row(
  'MIX CPU per capture, saturated: ours / floor',
  `C${oursMixSat.best.concurrency} / C${floorMixSat.best.concurrency}`,
  '',
  `${cpuOurs.totalMs.toFixed(0)} / ${cpuFloor.totalMs.toFixed(0)} ms: ${(cpuOurs.totalMs / cpuFloor.totalMs).toFixed(2)}x (node ${cpuOurs.nodeMs.toFixed(0)} / ${cpuFloor.nodeMs.toFixed(0)})`,
  '<= 1.2x',
);
row('  ours by process (ms)', formatByKind(cpuOurs.byKind), '', '', '');
row('  floor by process (ms)', formatByKind(cpuFloor.byKind), '', '', '');
for (const [name, f] of Object.entries(fullPages.byPage))
  row(
    `fullPage ${name}: ours / naive`,
    `${f.oursMs.toFixed(0)} / ${f.naiveMs.toFixed(0)} ms${f.errors ? ` errors ${f.errors}` : ''}`,
    f.oursMs.toFixed(0),
    `${f.ratio.toFixed(2)}x`,
    '',
  );
row('fullPage long pages: ours / naive, median', '', '', `${fullPages.medianRatio.toFixed(2)}x`, '');

results.workload = {
  pages: Object.fromEntries([...mix, ...long].map((p) => [p.name, { htmlKiB: Math.round(p.html.length / 1024), ...p.req }])),
  mix: mix.map((p) => p.name),
  floor: { latency: floorMixLat, throughput: floorMixSat, workers: config.renderConcurrency },
  ours: { load: oursMixLoad, default: oursMixDefault, throughput: oursMixSat },
  naive: { throughput: naiveMixSat },
  frameFlags: {
    measured: frameFlags,
    flags: FRAME_FLAGS,
    how: 'ours: startServer launchBrowser override (no config setting for extra flags); floor: launchBrowser args',
    floor: { without: floorMixLat, with: floorFlagsLat },
    ours: { without: oursMixLoad, with: oursFlagsLat },
  },
  fullPage: fullPages,
};
results.ratios = {
  latencyLoadVsFloor: oursMixLoad.medianMs / floorMixLat.medianMs,
  throughputVsNaive: oursMixSat.best.rps / naiveMixSat.best.rps,
  throughputVsFloor: oursMixSat.best.rps / floorMixSat.best.rps,
  cpuPerCaptureVsFloor: cpuOurs.totalMs / cpuFloor.totalMs,
  pngCardVsChromiumDefault: card.oursMedianMs / card.chromiumMedianMs,
  pngBytesVsChromiumDefault: card.oursBytes / card.chromiumBytes,
  fullPageVsNaive: { ...Object.fromEntries(Object.entries(fullPages.byPage).map(([k, v]) => [k, v.ratio])), median: fullPages.medianRatio },
  blocking: (results.blocking as Awaited<ReturnType<typeof blocking>>).ratios,
  // ours over each real peer, waits aligned (bench/peers.ts): on the mix, and on the many-hosts page
  peers: peers.ratios.mix,
  peersManyHosts: peers.ratios.manyHosts,
  // the same with each contender's own defaults: printed beside, not targets (the spec fixes our default wait)
  peersDefaults: peers.defaultsRatios.mix,
  peersManyHostsDefaults: peers.defaultsRatios.manyHosts,
  cleanupNoBannerMs: (results.cleanup as { noBannerMedianMs?: number } | undefined)?.noBannerMedianMs,
  // the batch figures (bench/batches.ts): batchSyncP95, batchSyncP95IdleLoop, batchSyncP95VsIdleLoop, batchThroughputShare
  ...batchRatios(batches),
};
mark('end');
results.sectionSeconds = sectionSeconds;
results.runtimeSeconds = (performance.now() - started) / 1000;

const widths = [50, 40, 10, 40, 12];
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join(' ');
console.log(
  `\nmachine: ${os.cpus().length} cores, ${results.machine && (results.machine as any).cpuModel}; node ${process.version}; browser ${config.chromiumPath} (${(results.machine as { chromiumVersion?: string }).chromiumVersion ?? 'version unknown'}); RENDER_CONCURRENCY=${config.renderConcurrency}`,
);
console.log(line(['measure', 'detail', 'median ms', 'ratio / figure', 'target']));
for (const r of rows) console.log(line(r));
console.log(`\nratios: ${JSON.stringify(results.ratios, (_k, v) => (typeof v === 'number' ? Number(v.toFixed(3)) : v))}`);
console.log(
  `runtime ${Number(results.runtimeSeconds).toFixed(0)} s: ${Object.entries(sectionSeconds)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(', ')}`,
);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2));
process.exit(0);
