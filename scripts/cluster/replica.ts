// One process of the reference deployment, as operators run it: an API replica (`node --import
// tsx server/main.ts`, on port 0, its port read from its "listening" log line) or a batch worker
// (`server/worker.ts`, what `npm run worker` runs, with WORKER_METRICS_PORT=0: the port of its
// /metrics, read from its "listening" line, is how it is watched from outside).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './haproxy.ts';

/** What each role runs, and where its port comes from. */
export const ROLES = {
  api: { entry: 'server/main.ts', portVariable: 'PORT' },
  worker: { entry: 'server/worker.ts', portVariable: 'WORKER_METRICS_PORT' },
} as const;
export type Role = keyof typeof ROLES;

export interface Replica {
  name: string;
  role: Role;
  proc: ChildProcess;
  pid: number;
  port: number;
  url: string;
  /** stdout and stderr so far (pino JSON lines). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startReplica(opts: {
  name: string;
  /** Default: api. */
  role?: Role;
  env: Record<string, string>;
  /** Each output line as it comes (the cluster script prints them prefixed). */
  onLine?: (line: string) => void;
  timeoutMs?: number;
}): Promise<Replica> {
  // TMPDIR stays shared: tsx keeps its compiled modules there (a cold cache costs seconds per start).
  const role = opts.role ?? 'api';
  const { entry, portVariable } = ROLES[role];
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...opts.env, [portVariable]: '0' };
  // A process group of its own: npm start's processes (store, API, worker, their browsers) are in
  // it, so that `exited` can wait for all of them, not only for npm start.
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let partial = '';
  const take = (d: Buffer) => {
    out += d;
    if (out.length > 400_000) out = out.slice(-200_000);
    if (!opts.onLine) return;
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) opts.onLine(l);
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    proc.once('exit', (code, signal) => void groupGone(proc.pid!).then(() => r({ code, signal }))),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${opts.name}: no "listening" log line within ${opts.timeoutMs ?? 180_000} ms:\n${out.slice(-4000)}`));
    }, opts.timeoutMs ?? 180_000);
    const look = () => {
      for (const line of out.split('\n')) {
        if (!line.includes('listening on')) continue;
        try {
          const p = JSON.parse(line).port;
          if (typeof p === 'number') {
            clearTimeout(timer);
            proc.stdout!.off('data', look);
            return resolve(p);
          }
        } catch {
          // not JSON: keep looking
        }
      }
    };
    proc.stdout!.on('data', look);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${opts.name} exited (${code ?? signal}) before listening:\n${out.slice(-4000)}`));
    });
  });
  return { name: opts.name, role, proc, pid: proc.pid!, port, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

/**
 * Resolves once no process of the group is left (npm start killed outright: its processes see
 * their IPC channel close and stop; the store's process closes the store first), or after 20 s.
 */
async function groupGone(pgid: number): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    try {
      process.kill(-pgid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return; // EPERM: some are left, another user's
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
