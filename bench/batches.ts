// Synchronous captures while a batch runs (docs/batches.md "Durability and fairness"): the p95 of
// the same captures alone and while a 200-item batch runs on the same server; the ratio is in
// --json under ratios.batchSyncP95 (target <= 1.5: a batch may slow a synchronous capture a
// little, never queue it behind itself). The batch's items are the same page as the captures, made
// distinct so that no cache serves them; the batch is cancelled after the measurement.
// Beside it, what any work on the other core costs these captures on this host: their p95 while
// one busy loop runs at SCHED_IDLE (a policy under which the loop never takes CPU time from them)
// over their p95 alone, `idleLoopRatio`. On a 2-vCPU virtual machine it is the floor of the batch
// ratio: a batch item at any CPU priority costs at least what that loop costs.
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/start.ts';
import { pct } from './measure.ts';
import { BENCH_KEY, benchEnv } from './server-env.ts';

export const BATCH_ITEMS = 200;

const page = (n: string) =>
  `<!doctype html><html><body style="margin:0;font:16px sans-serif"><header style="background:#234;color:#fff;padding:24px"><h1>Batch bench ${n}</h1></header>` +
  `<main style="padding:24px">${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. </p>'.repeat(20)}</main></body></html>`;
const capture = (n: string) => ({ html: page(n), viewport: { width: 800, height: 600 }, blockCookieBanners: false, waitUntil: 'load' });

export interface BatchBench {
  items: number;
  syncCaptures: number;
  aloneP95Ms: number;
  duringP95Ms: number;
  ratio: number;
  /** The same captures while one busy loop runs at SCHED_IDLE (`chrt --idle 0`); null without chrt. */
  idleLoopP95Ms: number | null;
  idleLoopRatio: number | null;
  /** During p95 over the idle-loop p95: what a batch costs the captures beyond what any work on the other core costs them. */
  syncP95VsIdleLoop: number | null;
  /** Batch items settled while the synchronous captures ran (the batch did run beside them), and still pending after. */
  itemsDoneDuring: number;
  /** Items settled per second while the captures ran, and in a window as long right after, the batch alone. */
  itemsPerSecondDuring: number;
  itemsPerSecondAlone: number;
  /** During over alone: the share of its own pace a batch keeps beside synchronous captures. */
  throughputShare: number;
  /** Where the store was: PGlite in the data directory, or PostgreSQL (DATABASE_URL set). */
  store: 'embedded' | 'postgres';
  itemsPendingAfter: number;
  renderConcurrency: number;
  batchSlotShare: number;
  loadAverage: number[];
}

export async function benchBatches(quick: boolean): Promise<BatchBench> {
  const dataDir = `${os.tmpdir()}/bench-data-${process.pid}-batches`;
  // In-process: the items run here (RUN_BATCHES=inline), as before the worker role; npm start's
  // worker process is measured from outside by test/api/batches-worker.test.ts.
  const config = loadConfig({ ...benchEnv(dataDir), CACHE_TTL_SECONDS: '0', RUN_BATCHES: 'inline' });
  const server = await startServer(config);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` };
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(server.url + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as any };
  };
  const n = quick ? 16 : 80; // a p95 of 40 moved by 0.15 between runs
  let seq = 0;
  /** Sequential captures, one client: what a user waiting for one picture sees. */
  const run = async () => {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const res = await fetch(`${server.url}/v1/screenshot`, { method: 'POST', headers, body: JSON.stringify(capture(`sync ${++seq}`)) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`a synchronous capture answered ${res.status}`);
      ms.push(performance.now() - t);
    }
    return ms;
  };
  try {
    await run(); // warm: the browser's first contexts, the store
    const alone = await run();
    const idleLoop = await withIdleLoop(run);
    const submitted = await api('POST', '/v1/batches', { requests: Array.from({ length: BATCH_ITEMS }, (_, i) => capture(`item ${i}`)) });
    if (submitted.status !== 202) throw new Error(`the batch was refused: ${JSON.stringify(submitted.json)}`);
    const id = submitted.json.id as string;
    const counts = async () => (await api('GET', `/v1/batches/${id}`)).json.counts as { succeeded: number; failed: number; pending: number };
    // Measured once the batch's items run (the queue starts with the store's first batch).
    let before = await counts();
    for (let i = 0; i < 600 && before.succeeded + before.failed === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      before = await counts();
    }
    const t0 = performance.now();
    const during = await run();
    const after = await counts();
    const duringSeconds = (performance.now() - t0) / 1000;
    // The batch alone for as long: its pace without the captures beside it.
    const t1 = performance.now();
    await new Promise((r) => setTimeout(r, duringSeconds * 1000));
    const alone1 = await counts();
    const aloneSeconds = (performance.now() - t1) / 1000;
    await api('DELETE', `/v1/batches/${id}`);
    const aloneP95Ms = pct(alone, 95);
    const duringP95Ms = pct(during, 95);
    const settled = (c: { succeeded: number; failed: number }) => c.succeeded + c.failed;
    const itemsPerSecondDuring = (settled(after) - settled(before)) / duringSeconds;
    const itemsPerSecondAlone = (settled(alone1) - settled(after)) / aloneSeconds;
    return {
      items: BATCH_ITEMS,
      syncCaptures: n,
      aloneP95Ms,
      duringP95Ms,
      ratio: duringP95Ms / aloneP95Ms,
      idleLoopP95Ms: idleLoop && pct(idleLoop, 95),
      idleLoopRatio: idleLoop && pct(idleLoop, 95) / aloneP95Ms,
      syncP95VsIdleLoop: idleLoop && duringP95Ms / pct(idleLoop, 95),
      itemsDoneDuring: settled(after) - settled(before),
      itemsPerSecondDuring,
      itemsPerSecondAlone,
      throughputShare: itemsPerSecondDuring / itemsPerSecondAlone,
      store: config.databaseUrl ? 'postgres' : 'embedded',
      itemsPendingAfter: alone1.pending,
      renderConcurrency: config.renderConcurrency,
      batchSlotShare: config.batches.slotSharePercent,
      loadAverage: os.loadavg(),
    };
  } finally {
    await server.close();
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

/** The batch's headline ratios, under `ratios` in --json. */
export function batchRatios(b: BatchBench) {
  return {
    // synchronous captures' p95 while a 200-item batch runs, over their p95 alone
    batchSyncP95: b.ratio,
    // the same captures beside one busy loop at SCHED_IDLE over alone: what any work on the other core costs them on this host
    batchSyncP95IdleLoop: b.idleLoopRatio,
    // their p95 during the batch over their p95 beside that loop: what the batch costs beyond it (issue 48)
    batchSyncP95VsIdleLoop: b.syncP95VsIdleLoop,
    // the batch's items per second beside the captures over its pace alone
    batchThroughputShare: b.throughputShare,
  };
}

export function batchRows(b: BatchBench): string[][] {
  return [
    [
      `sync p95 during a ${b.items}-item batch / alone`,
      `${b.duringP95Ms.toFixed(0)} / ${b.aloneP95Ms.toFixed(0)} ms, ${b.syncCaptures} captures each; ${b.itemsDoneDuring} items done meanwhile (RENDER_CONCURRENCY ${b.renderConcurrency}, BATCH_SLOT_SHARE ${b.batchSlotShare} %)`,
      b.duringP95Ms.toFixed(0),
      `${b.ratio.toFixed(2)}x`,
      '<= 1.5x',
    ],
    [
      "  sync p95 beside one busy loop at SCHED_IDLE / alone (this host's floor of the ratio)",
      b.idleLoopP95Ms === null ? 'no chrt' : `${b.idleLoopP95Ms.toFixed(0)} / ${b.aloneP95Ms.toFixed(0)} ms`,
      b.idleLoopP95Ms === null ? '' : b.idleLoopP95Ms.toFixed(0),
      b.idleLoopRatio === null ? '' : `${b.idleLoopRatio.toFixed(2)}x`,
      '',
    ],
    [
      '  sync p95 during the batch / beside the idle loop',
      b.idleLoopP95Ms === null ? 'no chrt' : `${b.duringP95Ms.toFixed(0)} / ${b.idleLoopP95Ms.toFixed(0)} ms`,
      '',
      b.syncP95VsIdleLoop === null ? '' : `${b.syncP95VsIdleLoop.toFixed(2)}x`,
      '',
    ],
    [
      `  batch items per second beside the captures / alone (${b.store} store)`,
      `${b.itemsPerSecondDuring.toFixed(2)} / ${b.itemsPerSecondAlone.toFixed(2)}`,
      '',
      `${b.throughputShare.toFixed(2)}x`,
      '',
    ],
  ];
}
