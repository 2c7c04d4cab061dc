// `node --import tsx bench/breakdown.ts [--rounds R] [--per N] [--pages card,thumbs] [--concurrency C]`:
// where the CPU of a capture goes. Each page of the bench's mix is captured N times by the floor
// (bench/floor.ts: a reused page, Chromium's default encoder) and by ours end to end over HTTP
// (`waitUntil: load`, no banner clean-up: the floor's work), C at a time, in alternating rounds,
// and the CPU per capture is read from /proc by where it ran (bench/cpu.ts: Node's main thread and
// its other threads, Chromium's browser, renderer, GPU and network processes). Medians over the
// rounds. `--profile FILE` also records Node's CPU profile of the measured rounds (not the start-up:
// open it in Chrome's DevTools) to split the main thread's share by function. Not a test: it
// prints figures (and --json FILE).
import { rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/start.ts';
import { cpuPerCapture, formatByKind, PROCESS_KINDS, type ByKind, type CpuPerCapture } from './cpu.ts';
import { startFloor } from './floor.ts';
import { closedLoop, median } from './measure.ts';
import { buildPages, type BenchPage } from './pages.ts';
import { poster } from './workload.ts';
import { BENCH_KEY, benchEnv } from './server-env.ts';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : dflt);
const rounds = Number(opt('rounds', '3'));
const per = Number(opt('per', '6'));
const only = opt('only', 'floor,ours').split(',');
const jsonOut = args.includes('--json') ? opt('json', '') : undefined;
const dataDir = `${os.tmpdir()}/bench-breakdown-${process.pid}`;
const config = loadConfig(benchEnv(dataDir));
const concurrency = Number(opt('concurrency', String(config.renderConcurrency)));

const { mix } = await buildPages();
const pages = args.includes('--pages') ? mix.filter((p) => opt('pages', '').split(',').includes(p.name)) : mix;

type Shoot = (p: BenchPage) => Promise<{ ms: number; ok: boolean }>;
const contenders: Array<{ name: string; shoot: Shoot; close(): Promise<void> }> = [];
if (only.includes('floor')) {
  const floor = await startFloor(config.chromiumPath, concurrency);
  contenders.push({ name: 'floor', shoot: floor.shoot, close: floor.close });
}
if (only.includes('ours')) {
  const ours = await startServer(config);
  contenders.push({
    name: 'ours',
    shoot: poster(`${ours.url}/v1/screenshot`, BENCH_KEY, { waitUntil: 'load', blockCookieBanners: false }),
    close: () => ours.close(),
  });
}
for (const c of contenders) for (const p of pages) for (let i = 0; i < 2; i++) await c.shoot(p); // warm

const profileOut = args.includes('--profile') ? opt('profile', '') : undefined;
const inspector = profileOut ? new Session() : undefined;
if (inspector) {
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
}

// samples[contender][page]: one CpuPerCapture per round
const samples: Record<string, Record<string, CpuPerCapture[]>> = {};
const wall: Record<string, Record<string, number[]>> = {};
for (let r = 0; r < rounds; r++) {
  for (const p of pages) {
    for (const c of r % 2 ? [...contenders].reverse() : contenders) {
      const { result, cpu } = await cpuPerCapture(
        () => closedLoop(() => c.shoot(p), concurrency, per),
        (x) => x.ms.length + x.errors,
      );
      ((samples[c.name] ??= {})[p.name] ??= []).push(cpu);
      ((wall[c.name] ??= {})[p.name] ??= []).push(median(result.ms));
      if (result.errors) console.error(`${c.name} ${p.name}: ${result.errors} errors`);
    }
  }
}
if (inspector) {
  const { profile } = await inspector.post('Profiler.stop');
  writeFileSync(profileOut!, JSON.stringify(profile));
  inspector.disconnect();
}
for (const c of contenders) await c.close();
rmSync(dataDir, { recursive: true, force: true });

const medianOf = (xs: CpuPerCapture[]): CpuPerCapture => {
  const byKind = Object.fromEntries(PROCESS_KINDS.map((k) => [k, median(xs.map((x) => x.byKind[k]))])) as ByKind;
  return {
    nodeMs: median(xs.map((x) => x.nodeMs)),
    chromiumMs: median(xs.map((x) => x.chromiumMs)),
    totalMs: median(xs.map((x) => x.totalMs)),
    captures: xs.reduce((a, x) => a + x.captures, 0),
    byKind,
  };
};
const out: Record<string, Record<string, CpuPerCapture & { wallMedianMs: number }>> = {};
console.log(
  `\nCPU ms per capture (median of ${rounds} rounds of ${per}, ${concurrency} at a time); load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (const p of pages) {
  for (const c of contenders) {
    const m = medianOf(samples[c.name]![p.name]!);
    (out[c.name] ??= {})[p.name] = { ...m, wallMedianMs: median(wall[c.name]![p.name]!) };
    console.log(`${p.name.padEnd(8)} ${c.name.padEnd(6)} total ${m.totalMs.toFixed(0).padStart(5)}  ${formatByKind(m.byKind)}`);
  }
}
const mixMean = (name: string) => {
  const per = Object.values(out[name] ?? {});
  return per.length ? per.reduce((a, x) => a + x.totalMs, 0) / per.length : NaN;
};
if (out.floor && out.ours)
  console.log(
    `mix (mean of the pages): ours ${mixMean('ours').toFixed(0)} / floor ${mixMean('floor').toFixed(0)} = ${(mixMean('ours') / mixMean('floor')).toFixed(2)}x`,
  );
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ rounds, per, concurrency, loadavg: os.loadavg(), byPage: out }, null, 2));
process.exit(0);
