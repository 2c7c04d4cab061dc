// The one render budget (spec §4.1 rule 6, §8: 20 seconds for the whole capture, waits included).
// Every step runs under the same deadline; when it passes, the step's promise is abandoned with
// RenderTimeout and the caller tears the page down (closing its browser context), so nothing of
// a timed-out render keeps running.
import { RenderTimeout, ServiceError } from '../errors.ts';
import type { StepLabel, StepTiming } from './step-names.ts';

export class Deadline {
  readonly at: number;
  readonly budgetMs: number;
  stage = 'starting';
  /** Duration of each named step, in order (sent as the Server-Timing header; names: each step's label, all of them in STEP_LABELS, server/render/pipeline.ts). */
  readonly timings: StepTiming[] = [];
  private aborted: ServiceError | undefined;
  private onAbort: Array<(e: ServiceError) => void> = [];

  constructor(budgetMs: number, signal?: AbortSignal, now = Date.now()) {
    this.budgetMs = budgetMs;
    this.at = now + budgetMs;
    signal?.addEventListener('abort', () => this.abort(), { once: true });
    if (signal?.aborted) this.abort();
  }

  /** The caller went away: the current and every later step reject, so the page is torn down. */
  private abort(): void {
    this.aborted ??= new ServiceError('client_closed', `the client closed the connection (while ${this.stage})`);
    for (const f of this.onAbort.splice(0)) f(this.aborted);
  }
  remaining(): number {
    return Math.max(0, this.at - Date.now());
  }
  timeout(): RenderTimeout {
    return new RenderTimeout(this.stage, this.budgetMs);
  }
  /** Runs one named step (`stage`: a more precise description than the label's); rejects with RenderTimeout if the deadline passes first. */
  async step<T>(label: StepLabel, work: Promise<T> | (() => Promise<T>), stage: string = label.description): Promise<T> {
    this.stage = stage;
    const p = typeof work === 'function' ? work() : work;
    const left = this.remaining();
    if (this.aborted || left <= 0) {
      p.catch(() => {});
      throw this.aborted ?? this.timeout();
    }
    let timer: NodeJS.Timeout | undefined;
    const started = performance.now();
    let cancel: ((e: ServiceError) => void) | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.timeout()), left);
      cancel = reject;
      this.onAbort.push(reject);
    });
    try {
      return await Promise.race([p, expired]);
    } finally {
      clearTimeout(timer);
      this.onAbort = this.onAbort.filter((f) => f !== cancel);
      this.timings.push({ step: label.name, stage, ms: performance.now() - started, at: started });
      p.catch(() => {}); // an abandoned step must not become an unhandled rejection
    }
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
