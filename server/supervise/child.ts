// One process `npm start` keeps running: started (under `nice` when it has a niceness), watched,
// started again when it dies, with a backoff that doubles from 1 s to 30 s and starts over once
// it has stayed up a minute. Its IPC channel tells it when npm start is gone (it then stops).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
const STABLE_MS = 60_000;

export interface ChildSpec {
  name: string;
  /** The entry point, a file of server/. */
  entry: string;
  env: NodeJS.ProcessEnv;
  /** Started under `nice -n` (every process it forks inherits it). */
  niceness?: number;
  /** Waits for the child's 'ready' message before counting it started. */
  waitReady?: boolean;
}

export interface Events {
  started(name: string, pid: number): void;
  exited(name: string, how: string, restartInMs: number): void;
}

export class Child {
  proc: ChildProcess | undefined;
  private backoff = FIRST_BACKOFF_MS;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly spec: ChildSpec,
    private readonly events: Events,
  ) {}

  /** Starts it; resolves once it is ready (or has started, without waitReady). */
  start(): Promise<void> {
    const node = [process.execPath, ...process.execArgv, path.join(SERVER, this.spec.entry)];
    const [cmd, ...args] = this.spec.niceness ? ['nice', '-n', String(this.spec.niceness), ...node] : node;
    const proc = spawn(cmd!, args, { env: this.spec.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.proc = proc;
    const upAt = Date.now();
    const ready = new Promise<void>((resolve, reject) => {
      if (!this.spec.waitReady) return resolve();
      proc.on('message', (m) => m === 'ready' && resolve());
      proc.once('exit', () => reject(new Error(`${this.spec.name} exited before it was ready`)));
    });
    proc.once('spawn', () => this.events.started(this.spec.name, proc.pid!));
    proc.once('exit', (code, signal) => {
      if (this.proc === proc) this.proc = undefined;
      if (this.stopping) return;
      if (Date.now() - upAt > STABLE_MS) this.backoff = FIRST_BACKOFF_MS;
      const wait = this.backoff;
      this.backoff = Math.min(MAX_BACKOFF_MS, this.backoff * 2);
      this.events.exited(this.spec.name, signal ?? `code ${code}`, wait);
      this.timer = setTimeout(() => void this.start().catch(() => {}), wait);
    });
    return ready;
  }

  /** Sends it `signal` and waits for it to exit; it is not started again. */
  async stop(signal: NodeJS.Signals): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill(signal);
    await exited;
  }
}
