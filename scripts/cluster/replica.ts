// One replica of the reference deployment: `node --import tsx server/main.ts` as a child process,
// exactly as operators run it, on port 0 (the port is read from its "listening" log line).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './haproxy.ts';

export interface Replica {
  name: string;
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
  env: Record<string, string>;
  /** Each output line as it comes (the cluster script prints them prefixed). */
  onLine?: (line: string) => void;
  timeoutMs?: number;
}): Promise<Replica> {
  // TMPDIR stays shared: tsx keeps its compiled modules there (a cold cache costs seconds per start).
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...opts.env, PORT: '0' };
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/main.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.once('exit', (code, signal) => r({ code, signal })));
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
  return { name: opts.name, proc, pid: proc.pid!, port, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}
