// The plain page (one 1280x720 text page, html mode, PNG), ours against two floors, in turns by
// the client process (bench/turns.ts): the reused-page floor (one page kept open, no HTTP, no
// isolation: bench/client.ts), the isolated floor (a fresh context per capture, the server's own
// launch, flags, sandbox and egress proxy, behind a minimal HTTP server: bench/isolated-floor.ts),
// ours with `waitUntil: load` and no banner clean-up (the floors' work), and ours with the default
// wait (`networkidle2`: the spec's 500 ms quiet window on top). Ours is a server of its own here.
import os from 'node:os';
import { rmSync } from 'node:fs';
import type { Config } from '../server/config.ts';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/start.ts';
import { startIsolatedFloor } from './isolated-floor.ts';
import { BENCH_KEY, benchEnv } from './server-env.ts';
import { figuresOf, measureInTurns, roundRatio, type ContenderFigures } from './turns.ts';

export const PLAIN_HTML = `<!doctype html><html><body style="margin:0;font:16px sans-serif">
<header style="background:#234;color:#fff;padding:24px"><h1>Benchmark page</h1></header>
<main style="padding:24px">${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. </p>'.repeat(20)}</main></body></html>`;

export interface PlainFigures {
  floor: ContenderFigures;
  isolatedFloor: ContenderFigures;
  ours: {
    load: ContenderFigures & { ratioToFloor: number; ratioToIsolatedFloor: number; ratioToIsolatedFloorP95: number; ratioToIsolatedFloorByRound: number };
    networkidle2: ContenderFigures & { overFloorMs: number; overIsolatedFloorMs: number };
  };
  /** The isolated floor over the reused page: what isolation and HTTP cost the cheapest capture. */
  isolatedOverFloor: number;
  rounds: number;
  perRound: number;
  gapMs: number;
  loadAverage: { before: number[]; after: number[] };
}

export async function benchPlain(base: Config, quick: boolean): Promise<PlainFigures> {
  const dataDir = `${os.tmpdir()}/bench-data-${process.pid}-plain`;
  const ours = await startServer(loadConfig({ ...benchEnv(dataDir), CACHE_TTL_SECONDS: '0' }));
  const iso = await startIsolatedFloor(base.chromiumPath, base.browserSandbox);
  const json = { 'content-type': 'application/json' };
  const oursBody = (extra: object) => JSON.stringify({ html: PLAIN_HTML, blockCookieBanners: false, ...extra });
  const oursHeaders = { ...json, authorization: `Bearer ${BENCH_KEY}` };
  const rounds = quick ? 8 : 20;
  const perRound = quick ? 2 : 3;
  const gapMs = 300;
  const before = os.loadavg();
  try {
    const samples = await measureInTurns({
      rounds,
      perRound,
      gapMs,
      warmup: 3,
      contenders: [
        { name: 'floor', kind: 'reused-page', executablePath: base.chromiumPath, html: PLAIN_HTML },
        { name: 'isolated', kind: 'http', url: iso.url, headers: json, body: JSON.stringify({ html: PLAIN_HTML }) },
        { name: 'load', kind: 'http', url: `${ours.url}/v1/screenshot`, headers: oursHeaders, body: oursBody({ waitUntil: 'load' }) },
        { name: 'networkidle2', kind: 'http', url: `${ours.url}/v1/screenshot`, headers: oursHeaders, body: oursBody({}), perRound: 1 },
      ],
    });
    const floor = figuresOf(samples, 'floor');
    const isolatedFloor = figuresOf(samples, 'isolated');
    const load = figuresOf(samples, 'load');
    const idle = figuresOf(samples, 'networkidle2');
    return {
      floor,
      isolatedFloor,
      ours: {
        load: {
          ...load,
          ratioToFloor: load.medianMs / floor.medianMs,
          ratioToIsolatedFloor: load.medianMs / isolatedFloor.medianMs,
          ratioToIsolatedFloorP95: load.p95Ms / isolatedFloor.p95Ms,
          ratioToIsolatedFloorByRound: roundRatio(samples, 'load', 'isolated'),
        },
        networkidle2: { ...idle, overFloorMs: idle.medianMs - floor.medianMs, overIsolatedFloorMs: idle.medianMs - isolatedFloor.medianMs },
      },
      isolatedOverFloor: isolatedFloor.medianMs / floor.medianMs,
      rounds,
      perRound,
      gapMs,
      loadAverage: { before, after: os.loadavg() },
    };
  } finally {
    await Promise.all([ours.close(), iso.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const f0 = (n: number) => n.toFixed(0);
const fmtSteps = (steps?: Record<string, number>) =>
  steps
    ? Object.entries(steps)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')
    : 'none';
const x2 = (n: number) => `${n.toFixed(2)}x`;

export function plainRows(p: PlainFigures): string[][] {
  const l = p.ours.load;
  const n = (f: ContenderFigures) => `${f.captures} captures${f.errors ? `, ${f.errors} errors (${f.statuses.join(' ')})` : ''}`;
  return [
    [
      `PLAIN, in turns (${p.rounds} rounds x ${p.perRound}, ${p.gapMs} ms apart), client in its own process`,
      `load average ${p.loadAverage.before.map((v) => v.toFixed(1)).join(' ')}`,
      '',
      '',
      '',
    ],
    ['  floor: reused page, setContent + default PNG', `p95 ${f0(p.floor.p95Ms)}, ${n(p.floor)}`, f0(p.floor.medianMs), '', ''],
    [
      '  isolated floor: fresh context, proxy, sandbox, HTTP',
      `p95 ${f0(p.isolatedFloor.p95Ms)}, ${n(p.isolatedFloor)}`,
      f0(p.isolatedFloor.medianMs),
      `${x2(p.isolatedOverFloor)} floor`,
      '',
    ],
    [
      '  ours: waitUntil load',
      `p95 ${f0(l.p95Ms)}, ${n(l)}`,
      f0(l.medianMs),
      `${x2(l.ratioToIsolatedFloor)} isolated (p95 ${x2(l.ratioToIsolatedFloorP95)}, by round ${x2(l.ratioToIsolatedFloorByRound)}), ${x2(l.ratioToFloor)} floor`,
      '<= 1.10x, <= 1.25x',
    ],
    ['  steps, Server-Timing (median ms): isolated floor', fmtSteps(p.isolatedFloor.stepsMedianMs), '', '', ''],
    ['  steps, Server-Timing (median ms): ours, load', fmtSteps(l.stepsMedianMs), '', '', ''],
    [
      '  ours: networkidle2 (default)',
      `p95 ${f0(p.ours.networkidle2.p95Ms)}, ${n(p.ours.networkidle2)}`,
      f0(p.ours.networkidle2.medianMs),
      `floor + ${f0(p.ours.networkidle2.overFloorMs)} ms`,
      '<= floor + 600',
    ],
  ];
}
