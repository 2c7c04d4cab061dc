// The reference deployment on one machine: N replicas of the server sharing one PostgreSQL
// (ledger, keys, rate limits, result cache) behind HAProxy rendered from the one template.
// Used by `npm run cluster` (scripts/cluster.ts) and by the cluster tests (test/cluster).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHECKS, startBalancer, type Haproxy } from './haproxy.ts';
import { startReplica, type Replica } from './replica.ts';

export interface ClusterOptions {
  replicas?: number;
  databaseUrl: string;
  /** The replicas' environment (DATABASE_URL, PORT, HOST and TMPDIR are set here). */
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
  /** The replicas now serving, by slot (r1 is replicas[0]). */
  replicas: Replica[];
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
  stop(): Promise<void>;
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const n = opts.replicas ?? 3;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'screenshot-cluster-'));
  const slotName = (i: number) => `r${i + 1}`;
  // behind HAProxy every connection comes from it; it caps connections per client address itself
  // Each replica runs its batch items itself (RUN_BATCHES=inline): its /metrics shows the items it
  // runs, which the cluster test's kill picks its victim by. Separate worker replicas are not here yet.
  const env = {
    MAX_CONNECTIONS_PER_IP: '0',
    RUN_BATCHES: 'inline',
    ...opts.env,
    DATABASE_URL: opts.databaseUrl,
    HOST: '127.0.0.1',
    DATA_DIR: path.join(dir, 'data'),
  };
  const launch = (i: number) =>
    startReplica({
      name: slotName(i),
      env,
      onLine: opts.onLine && ((l) => opts.onLine!(slotName(i), l)),
    });

  const replicas: Replica[] = [];
  let haproxy: Haproxy | undefined;
  const stopAll = async () => {
    await Promise.all(
      replicas.map(async (r) => {
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
    const started = await Promise.allSettled(Array.from({ length: n }, (_, i) => launch(i)));
    for (const s of started) if (s.status === 'fulfilled') replicas.push(s.value);
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
    stop: stopAll,
  };
  await cluster.waitFor((s) => Object.keys(s).length === n && Object.values(s).every((x) => x === 'UP'), 60_000, 'every replica UP');
  return cluster;
}
