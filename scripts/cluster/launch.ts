// The reference deployment on one machine, in the roles of compose.yaml and deploy/kubernetes: N
// API replicas (RUN_BATCHES=false) behind HAProxy rendered from the one template, and M batch
// workers (server/worker.ts) apart from it, all sharing one PostgreSQL (ledger, keys, rate limits,
// result cache, the batch queue) and, being on one machine, one DATA_DIR (the workers write batch
// pictures there, the API replicas serve them: what the results bucket does across machines).
// Used by `npm run cluster` (scripts/cluster.ts) and by the cluster tests (test/cluster).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHECKS, startBalancer, type Haproxy } from './haproxy.ts';
import { startReplica, type Replica } from './replica.ts';

export interface ClusterOptions {
  /** API replicas (default 3). */
  replicas?: number;
  /** Batch workers (default 2). */
  workers?: number;
  databaseUrl: string;
  /** Every process's environment (DATABASE_URL, PORT, HOST, DATA_DIR and the role's settings are set here). */
  env: Record<string, string>;
  haproxyBinary: string;
  /** Health-check timing (default: CHECKS, as shipped in compose). */
  checks?: Partial<typeof CHECKS>;
  /** The balancer's port (default 0: the kernel picks a free one). */
  port?: number;
  haproxyLogLevel?: 'err' | 'warning' | 'notice' | 'info';
  onLine?: (replica: string, line: string) => void;
}

export interface Cluster {
  /** The one URL to use. */
  url: string;
  statsUrl: string;
  haproxy: Haproxy;
  /** The API replicas now serving, by slot (r1 is replicas[0]). */
  replicas: Replica[];
  /** The batch workers, by slot (w1 is workers[0]); `url` is where each serves /metrics. */
  workers: Replica[];
  dir: string;
  /** Polls the balancer until `ok(states)` holds; returns the states, or throws after `ms`. */
  waitFor(ok: (states: Record<string, string>) => boolean, ms: number, what: string): Promise<Record<string, string>>;
  /** Signals a replica and waits for its process to end. */
  stopReplica(i: number, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Starts a new process for slot i and points the balancer at it once `after` has settled (e.g.
   * the old process's exit: the new one starts while the old one drains, as a rolling update does).
   */
  startReplica(i: number, after?: Promise<unknown>): Promise<Replica>;
  /** Starts a new worker process for slot i (after one was stopped or killed). */
  startWorker(i: number): Promise<Replica>;
  stop(): Promise<void>;
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const n = opts.replicas ?? 3;
  const m = opts.workers ?? 2;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'screenshot-cluster-'));
  const slotName = (i: number) => `r${i + 1}`;
  const workerName = (i: number) => `w${i + 1}`;
  const shared = { ...opts.env, DATABASE_URL: opts.databaseUrl, HOST: '127.0.0.1', DATA_DIR: path.join(dir, 'data') };
  // Behind HAProxy every connection comes from it; it caps connections per client address itself.
  // RUN_BATCHES=false whatever the caller's environment says: batch items are the workers' alone.
  const apiEnv = { MAX_CONNECTIONS_PER_IP: '0', ...shared, RUN_BATCHES: 'false' };
  // As compose's workers: nothing else renders there, so every slot is for items, at normal priority.
  const workerEnv = { BATCH_SLOT_SHARE: '100', BATCH_NICENESS: '0', ...shared };
  const launch = (i: number) =>
    startReplica({
      name: slotName(i),
      env: apiEnv,
      onLine: opts.onLine && ((l) => opts.onLine!(slotName(i), l)),
    });
  const launchWorker = (i: number) =>
    startReplica({
      name: workerName(i),
      role: 'worker',
      env: workerEnv,
      onLine: opts.onLine && ((l) => opts.onLine!(workerName(i), l)),
    });

  const replicas: Replica[] = [];
  const workers: Replica[] = [];
  let haproxy: Haproxy | undefined;
  const stopAll = async () => {
    await Promise.all(
      [...replicas, ...workers].map(async (r) => {
        if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill('SIGTERM');
        const late = setTimeout(() => r.proc.kill('SIGKILL'), 30_000);
        await r.exited;
        clearTimeout(late);
      }),
    );
    await haproxy?.stop();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const started = await Promise.allSettled([...Array.from({ length: n }, (_, i) => launch(i)), ...Array.from({ length: m }, (_, i) => launchWorker(i))]);
    for (const s of started) if (s.status === 'fulfilled') (s.value.role === 'api' ? replicas : workers).push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;

    haproxy = await startBalancer({
      binary: opts.haproxyBinary,
      dir,
      port: opts.port,
      logLevel: opts.haproxyLogLevel ?? 'notice',
      checks: opts.checks,
      servers: replicas.map((r, i) => ({ name: slotName(i), port: r.port })),
    });
  } catch (e) {
    await stopAll();
    throw e;
  }
  const h = haproxy;

  const cluster: Cluster = {
    url: h.url,
    statsUrl: h.statsUrl,
    haproxy: h,
    replicas,
    workers,
    dir,
    async waitFor(ok, ms, what) {
      const until = Date.now() + ms;
      let last: Record<string, string> = {};
      for (;;) {
        last = await h.states().catch(() => last);
        if (ok(last)) return last;
        if (Date.now() > until) throw new Error(`the balancer did not reach "${what}" within ${ms} ms: ${JSON.stringify(last)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stopReplica(i, signal) {
      const r = replicas[i]!;
      r.proc.kill(signal);
      return r.exited;
    },
    async startReplica(i, after) {
      const [r] = await Promise.all([launch(i), after]);
      replicas[i] = r;
      await h.setAddress(slotName(i), '127.0.0.1', r.port);
      return r;
    },
    async startWorker(i) {
      const w = await launchWorker(i);
      workers[i] = w;
      return w;
    },
    stop: stopAll,
  };
  await cluster.waitFor((s) => Object.keys(s).length === n && Object.values(s).every((x) => x === 'UP'), 60_000, 'every replica UP');
  return cluster;
}
