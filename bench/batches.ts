// Synchronous captures while a batch runs (docs/batches.md "Durability and fairness"), on the
// server as operators run it: `npm start` (server/main.ts) in a process of its own, its API
// process answering, its worker process (at BATCH_NICENESS) running the items, and, without
// DATABASE_URL, its store process; the bench's client is this process.
// Phases in turns, round after round, so that a drifting host weighs on each alike:
//   alone      sequential captures, nothing else running
//   idle loop  the same beside one busy loop at SCHED_IDLE (a policy under which the loop never
//              takes CPU time from them): what any work on the other core costs them on this host,
//              the floor of the batch ratio on a 2-vCPU virtual machine
//   during     the same while a 200-item batch runs (its items distinct, so no cache serves them)
//   batch alone the batch by itself for as long: its pace without the captures beside it
// Then the batch is cancelled and its running items let finish before the next round. Figures
// pool the rounds' captures (p95 of all of them) and their items.
// The same run is made on the embedded store and on PostgreSQL (DATABASE_URL; a throwaway cluster
// from scripts/setup-postgres.sh when the variable is not set).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReplica } from '../scripts/cluster/replica.ts';
import { cpuMs, descendantsMentioning } from '../test/support/processes.ts';
import { pct } from './measure.ts';
import { BENCH_KEY, benchEnv } from './server-env.ts';

export const BATCH_ITEMS = 200;

const page = (n: string) =>
  `<!doctype html><html><body style="margin:0;font:16px sans-serif"><header style="background:#234;color:#fff;padding:24px"><h1>Batch bench ${n}</h1></header>` +
  `<main style="padding:24px">${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. </p>'.repeat(20)}</main></body></html>`;
const capture = (n: string) => ({ html: page(n), viewport: { width: 800, height: 600 }, blockCookieBanners: false, waitUntil: 'load' });

export interface BatchBench {
  store: 'embedded' | 'postgres';
  items: number;
  rounds: number;
  /** Captures per phase, all rounds together. */
  syncCaptures: number;
  aloneP95Ms: number;
  duringP95Ms: number;
  ratio: number;
  /** The same captures while one busy loop runs at SCHED_IDLE (`chrt --idle 0`); null without chrt. */
  idleLoopP95Ms: number | null;
  idleLoopRatio: number | null;
  /** During p95 over the idle-loop p95: what a batch costs the captures beyond what any work on the other core costs them. */
  syncP95VsIdleLoop: number | null;
  /** The same ratio round by round (its spread shows the noise). */
  syncP95VsIdleLoopByRound: number[];
  /** Batch items settled while the synchronous captures ran (the batch did run beside them). */
  itemsDoneDuring: number;
  /** Items settled per second while the captures ran, and in the window right after, the batch alone. */
  itemsPerSecondDuring: number;
  itemsPerSecondAlone: number;
  /** During over alone: the share of its own pace a batch keeps beside synchronous captures. */
  throughputShare: number;
  /** CPU ms per item settled in the batch-alone windows, per process of the server (from /proc). */
  cpuPerItemMs: { api: number; store: number | null; workerNode: number };
  loadAverage: number[];
}

export interface BatchBenches {
  embedded: BatchBench;
  /** Null when no PostgreSQL could be had (why, in `postgresSkipped`). */
  postgres: BatchBench | null;
  postgresSkipped?: string;
}

const SCRIPT = path.resolve(import.meta.dirname, '../scripts/setup-postgres.sh');

export async function benchBatches(quick: boolean): Promise<BatchBenches> {
  const embedded = await benchOn(quick, null);
  let url = process.env.DATABASE_URL ?? null;
  let pgDir: string | undefined;
  if (!url) {
    try {
      const out = execFileSync('bash', [SCRIPT, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      url = /TEST_DATABASE_URL=(\S+)/.exec(out)?.[1] ?? null;
      pgDir = /PG_TEST_DIR=(\S+)/.exec(out)?.[1];
    } catch (e) {
      return { embedded, postgres: null, postgresSkipped: `scripts/setup-postgres.sh start failed: ${(e as Error).message.split('\n')[0]}` };
    }
  }
  try {
    return { embedded, postgres: url ? await benchOn(quick, url) : null };
  } finally {
    if (pgDir) execFileSync('bash', [SCRIPT, 'stop', pgDir], { stdio: 'ignore' });
  }
}

async function benchOn(quick: boolean, databaseUrl: string | null): Promise<BatchBench> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-batches-'));
  const env = benchEnv(dataDir, { CACHE_TTL_SECONDS: '0', LOG_LEVEL: 'info', RUN_BATCHES: 'worker', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
  delete env.PORT;
  if (!databaseUrl) delete env.DATABASE_URL;
  const server = await startReplica({ name: 'bench-batches', env: env as Record<string, string> });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` };
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(server.url + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as any };
  };
  const rounds = quick ? 2 : 4;
  const perPhase = quick ? 10 : 25;
  let seq = 0;
  /** Sequential captures, one client: what a user waiting for one picture sees. */
  const run = async () => {
    const ms: number[] = [];
    for (let i = 0; i < perPhase; i++) {
      const t = performance.now();
      const res = await fetch(`${server.url}/v1/screenshot`, { method: 'POST', headers, body: JSON.stringify(capture(`sync ${++seq}`)) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`a synchronous capture answered ${res.status}`);
      ms.push(performance.now() - t);
    }
    return ms;
  };
  const submit = async (n: number, tag: string) => {
    const r = await api('POST', '/v1/batches', { requests: Array.from({ length: n }, (_, i) => capture(`${tag} ${i}`)) });
    if (r.status !== 202) throw new Error(`the batch was refused: ${JSON.stringify(r.json)}`);
    return r.json.id as string;
  };
  const counts = async (id: string) =>
    (await api('GET', `/v1/batches/${id}`)).json.counts as { succeeded: number; failed: number; cancelled: number; pending: number };
  const settled = (c: { succeeded: number; failed: number }) => c.succeeded + c.failed;
  const until = async (id: string, done: (c: Awaited<ReturnType<typeof counts>>) => boolean, ms: number) => {
    const end = performance.now() + ms;
    for (;;) {
      const c = await counts(id);
      if (done(c)) return c;
      if (performance.now() > end) throw new Error(`batch ${id}: still ${JSON.stringify(c)} after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const pids = () => ({
    api: descendantsMentioning(server.pid, 'server/main.ts').find((p) => p !== server.pid),
    store: descendantsMentioning(server.pid, 'server/store-server.ts')[0],
    worker: descendantsMentioning(server.pid, 'server/worker.ts')[0],
  });
  const phases = { alone: [] as number[], idle: [] as number[], during: [] as number[] };
  const byRound: number[] = [];
  let doneDuring = 0;
  let secondsDuring = 0;
  let doneAlone = 0;
  let secondsAlone = 0;
  const cpu = { api: 0, store: 0, worker: 0 };
  try {
    // Warm: the queue (made with the store's first batch), the worker's browser, the captures' contexts.
    const warm = await submit(4, 'warm');
    await until(warm, (c) => c.pending === 0, 240_000);
    await run();
    for (let r = 0; r < rounds; r++) {
      const alone = await run();
      const idle = await withIdleLoop(run);
      const id = await submit(BATCH_ITEMS, `round ${r}`);
      const before = await until(id, (c) => settled(c) > 0, 120_000);
      const t0 = performance.now();
      const during = await run();
      const after = await counts(id);
      const duringSeconds = (performance.now() - t0) / 1000;
      // The batch alone for as long (at least 10 s: an item takes a few hundred ms), with the
      // CPU each process of the server spends meanwhile.
      const p = pids();
      const cpu0 = { api: p.api ? cpuMs(p.api) : 0, store: p.store ? cpuMs(p.store) : 0, worker: p.worker ? cpuMs(p.worker) : 0 };
      const t1 = performance.now();
      await new Promise((res) => setTimeout(res, Math.max(10, duringSeconds) * 1000));
      const alone1 = await counts(id);
      const aloneSeconds = (performance.now() - t1) / 1000;
      cpu.api += p.api ? cpuMs(p.api) - cpu0.api : 0;
      cpu.store += p.store ? cpuMs(p.store) - cpu0.store : 0;
      cpu.worker += p.worker ? cpuMs(p.worker) - cpu0.worker : 0;
      await api('DELETE', `/v1/batches/${id}`);
      await until(id, (c) => c.pending === 0, 120_000); // its running items finish before the next round
      phases.alone.push(...alone);
      phases.during.push(...during);
      if (idle) {
        phases.idle.push(...idle);
        byRound.push(pct(during, 95) / pct(idle, 95));
      }
      doneDuring += settled(after) - settled(before);
      secondsDuring += duringSeconds;
      doneAlone += settled(alone1) - settled(after);
      secondsAlone += aloneSeconds;
    }
    const aloneP95Ms = pct(phases.alone, 95);
    const duringP95Ms = pct(phases.during, 95);
    const idleP95 = phases.idle.length ? pct(phases.idle, 95) : null;
    const itemsPerSecondDuring = doneDuring / secondsDuring;
    const itemsPerSecondAlone = doneAlone / secondsAlone;
    return {
      store: databaseUrl ? 'postgres' : 'embedded',
      items: BATCH_ITEMS,
      rounds,
      syncCaptures: phases.during.length,
      aloneP95Ms,
      duringP95Ms,
      ratio: duringP95Ms / aloneP95Ms,
      idleLoopP95Ms: idleP95,
      idleLoopRatio: idleP95 && idleP95 / aloneP95Ms,
      syncP95VsIdleLoop: idleP95 && duringP95Ms / idleP95,
      syncP95VsIdleLoopByRound: byRound,
      itemsDoneDuring: doneDuring,
      itemsPerSecondDuring,
      itemsPerSecondAlone,
      throughputShare: itemsPerSecondDuring / itemsPerSecondAlone,
      cpuPerItemMs: { api: cpu.api / doneAlone, store: databaseUrl ? null : cpu.store / doneAlone, workerNode: cpu.worker / doneAlone },
      loadAverage: os.loadavg(),
    };
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `fn` while one CPU-bound process runs at SCHED_IDLE; null where chrt is missing. */
async function withIdleLoop<T>(fn: () => Promise<T>): Promise<T | null> {
  if (!existsSync('/usr/bin/chrt')) return null;
  const loop = spawn('/usr/bin/chrt', ['--idle', '0', process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 300));
    return await fn();
  } finally {
    loop.kill('SIGKILL');
  }
}

/** The batch's headline ratios, under `ratios` in --json: the embedded store's, then PostgreSQL's. */
export function batchRatios(b: BatchBenches) {
  const pg = b.postgres;
  return {
    // synchronous captures' p95 while a 200-item batch runs, over their p95 alone
    batchSyncP95: b.embedded.ratio,
    // the same captures beside one busy loop at SCHED_IDLE over alone: what any work on the other core costs them on this host
    batchSyncP95IdleLoop: b.embedded.idleLoopRatio,
    // their p95 during the batch over their p95 beside that loop: what the batch costs beyond it
    batchSyncP95VsIdleLoop: b.embedded.syncP95VsIdleLoop,
    // the batch's items per second beside the captures over its pace alone
    batchThroughputShare: b.embedded.throughputShare,
    batchSyncP95VsIdleLoopPostgres: pg ? pg.syncP95VsIdleLoop : null,
    batchThroughputSharePostgres: pg ? pg.throughputShare : null,
  };
}

export function batchRows(bs: BatchBenches): string[][] {
  const rows: string[][] = [];
  for (const b of [bs.embedded, bs.postgres]) {
    if (!b) {
      rows.push(['batches on PostgreSQL', bs.postgresSkipped ?? 'skipped', '', '', '']);
      continue;
    }
    const on = `${b.store} store`;
    rows.push(
      [
        `sync p95 during a ${b.items}-item batch / alone (npm start, ${on})`,
        `${b.duringP95Ms.toFixed(0)} / ${b.aloneP95Ms.toFixed(0)} ms, ${b.syncCaptures} captures each in ${b.rounds} rounds; ${b.itemsDoneDuring} items done meanwhile`,
        b.duringP95Ms.toFixed(0),
        `${b.ratio.toFixed(2)}x`,
        '',
      ],
      [
        "  sync p95 beside one busy loop at SCHED_IDLE / alone (this host's floor)",
        b.idleLoopP95Ms === null ? 'no chrt' : `${b.idleLoopP95Ms.toFixed(0)} / ${b.aloneP95Ms.toFixed(0)} ms`,
        b.idleLoopP95Ms === null ? '' : b.idleLoopP95Ms.toFixed(0),
        b.idleLoopRatio === null ? '' : `${b.idleLoopRatio.toFixed(2)}x`,
        '',
      ],
      [
        '  sync p95 during the batch / beside the idle loop',
        b.idleLoopP95Ms === null
          ? 'no chrt'
          : `${b.duringP95Ms.toFixed(0)} / ${b.idleLoopP95Ms.toFixed(0)} ms; by round ${b.syncP95VsIdleLoopByRound.map((x) => x.toFixed(2)).join(' ')}`,
        '',
        b.syncP95VsIdleLoop === null ? '' : `${b.syncP95VsIdleLoop.toFixed(2)}x`,
        '<= 1.15x',
      ],
      [
        '  batch items per second beside the captures / alone',
        `${b.itemsPerSecondDuring.toFixed(2)} / ${b.itemsPerSecondAlone.toFixed(2)}`,
        '',
        `${b.throughputShare.toFixed(2)}x`,
        '>= 0.5x',
      ],
      [
        '  CPU ms per item, batch alone: API process / store process / worker (Node)',
        `${b.cpuPerItemMs.api.toFixed(1)} / ${b.cpuPerItemMs.store === null ? '-' : b.cpuPerItemMs.store.toFixed(1)} / ${b.cpuPerItemMs.workerNode.toFixed(1)}`,
        '',
        '',
        'API <= 20',
      ],
    );
  }
  return rows;
}
