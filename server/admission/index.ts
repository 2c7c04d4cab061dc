// Admission to a render slot: RENDER_CONCURRENCY permits, at most QUEUE_LIMIT requests waiting in
// order for one, and the queue policy (policy.ts) applied at arrival and every SWEEP_MS while
// requests wait. Refusals are 503 overloaded with Retry-After (DESIGN §3); a caller that goes
// away while queued leaves the queue at once. Knows nothing of browsers: the pool takes a permit
// here before it renders and gives it back when the page is really gone.
import { Overloaded, ServiceError } from '../errors.ts';
import { QueuePolicy } from './policy.ts';

export const SWEEP_MS = 250; // how often queued requests are checked against their budget

/** 503 overloaded while the server shuts down, with a Retry-After for which a replacement should be up. */
export function shuttingDown(): Overloaded {
  return new Overloaded('the server is shutting down', 5);
}

export type Refusal = 'queue_full' | 'queue_wait' | 'shutting_down';

/** Time as admission reads it; tests pass a fake one. */
export interface Clock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called; never keeps the process alive. */
  every(ms: number, fn: () => void): () => void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  every(ms, fn) {
    const t = setInterval(fn, ms).unref();
    return () => clearInterval(t);
  },
};

export interface AdmissionOptions {
  concurrency: number;
  queueLimit: number;
  renderBudgetMs: number;
  clock?: Clock;
  /** A request got its permit after waiting this long. */
  onAdmitted?: (waitedMs: number) => void;
  /** A request was refused before it started. */
  onRejected?: (reason: Refusal) => void;
}

/** A render slot, held until release(); releasing twice is a no-op. */
export interface Permit {
  release(): void;
}

/** A request waiting for a permit. */
interface Waiter {
  wake(): void;
  /** 503 overloaded now: it would not start in time. */
  refuse(): void;
  /** clock.now() after which it is too late to start. */
  latestStartAt: number;
}

export class Admission {
  readonly policy: QueuePolicy;
  private readonly clock: Clock;
  private running = 0;
  /** When each permit now held was taken (clock.now()). */
  private readonly holds = new Set<{ since: number }>();
  private readonly queue: Waiter[] = [];
  /** Background work (batch items) waiting for a permit: served only when no request waits. */
  private readonly background: Array<() => void> = [];
  private stopSweep: (() => void) | undefined;
  private closing = false;

  constructor(private readonly opts: AdmissionOptions) {
    this.clock = opts.clock ?? realClock;
    this.policy = new QueuePolicy(opts);
  }

  get queueDepth(): number {
    return this.queue.length;
  }
  get inFlight(): number {
    return this.running;
  }
  /** True when a new request would be refused now: every permit taken and the queue full. */
  get saturated(): boolean {
    return this.running >= this.opts.concurrency && this.queue.length >= this.opts.queueLimit;
  }

  /**
   * A permit, at once or after waiting in the queue; `remainingMs` is what is left of the
   * request's budget (it counts from arrival, so the wait spends it). Rejects with Overloaded
   * when the queue is full or too long to start within the budget, with client_closed when
   * `signal` aborts while queued.
   */
  async acquire(remainingMs: number, signal?: AbortSignal): Promise<Permit> {
    const asked = this.clock.now();
    if (this.closing) {
      this.opts.onRejected?.('shutting_down');
      throw shuttingDown();
    }
    if (this.running < this.opts.concurrency) {
      this.running++;
      return this.granted(asked);
    }
    if (this.queue.length >= this.opts.queueLimit) throw this.overloaded(`the render queue is full (${this.opts.queueLimit} waiting)`, 'queue_full');
    const latestStart = remainingMs - this.policy.minStartMs;
    if (this.policy.expectedWaitMs(this.holdAges(), this.queue.length) > latestStart) {
      throw this.overloaded('the render queue is too long to start this render within the render budget', 'queue_wait');
    }
    if (signal?.aborted) throw new ServiceError('client_closed', 'the client closed the connection while queued');
    await new Promise<void>((resolve, reject) => {
      const leave = (e: ServiceError) => {
        signal?.removeEventListener('abort', closed);
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(e);
      };
      const waiter: Waiter = {
        wake: () => {
          signal?.removeEventListener('abort', closed);
          resolve();
        },
        refuse: () => leave(this.overloaded('no render slot will become free in time to render within the render budget', 'queue_wait')),
        latestStartAt: this.clock.now() + latestStart,
      };
      const closed = () => leave(new ServiceError('client_closed', 'the client closed the connection while queued'));
      signal?.addEventListener('abort', closed, { once: true });
      this.queue.push(waiter);
      this.stopSweep ??= this.clock.every(SWEEP_MS, () => this.sweep());
    });
    return this.granted(asked);
  }

  /**
   * A permit for background work (a batch item), which has no caller waiting and no budget to
   * spend while queued: granted only when a permit is free and no request is queued, and a
   * permit released goes to a queued request first. So a request never waits behind background
   * work that had not started; it may wait for one that is running, as for any render.
   */
  async acquireBackground(signal?: AbortSignal): Promise<Permit> {
    const asked = this.clock.now();
    if (this.closing) throw shuttingDown();
    if (this.running < this.opts.concurrency && this.queue.length === 0) {
      this.running++;
      return this.granted(asked);
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', gone);
        resolve();
      };
      const gone = () => {
        const i = this.background.indexOf(wake);
        if (i >= 0) this.background.splice(i, 1);
        reject(new ServiceError('client_closed', 'background work stopped while waiting for a render slot'));
      };
      signal?.addEventListener('abort', gone, { once: true });
      this.background.push(wake);
    });
    return this.granted(asked);
  }

  /** Stops admitting: requests already queued proceed (they were admitted), new ones are refused. */
  close(): void {
    this.closing = true;
    // Each woken request counts as running, so that drained() waits for it too.
    for (const w of this.queue.splice(0)) {
      this.running++;
      w.wake();
    }
    // Background work not yet started stays unstarted: it is queued elsewhere (durably) and runs
    // on another replica or after the restart.
    for (const w of this.background.splice(0)) {
      this.running++;
      w();
    }
    this.stopSweep?.();
    this.stopSweep = undefined;
  }

  /** Resolves once no permit is held, or after `graceMs` (real time). */
  async drained(graceMs: number): Promise<void> {
    const until = Date.now() + graceMs;
    while (this.running > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  }

  private granted(asked: number): Permit {
    const hold = { since: this.clock.now() };
    this.holds.add(hold);
    this.opts.onAdmitted?.(hold.since - asked);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.holds.delete(hold);
        this.policy.held(this.clock.now() - hold.since);
        // The permit passes straight to the next waiter: a request first, else background work.
        const next = this.queue.shift();
        const work = next ? undefined : this.background.shift();
        if (next) next.wake();
        else if (work) work();
        else this.running--;
      },
    };
  }

  private holdAges(): number[] {
    const now = this.clock.now();
    return [...this.holds].map((h) => now - h.since);
  }

  /**
   * Every SWEEP_MS while requests wait: one whose expected wait no longer fits its budget is
   * refused now, so that the caller can go elsewhere early; at the latest when its latest start
   * has passed, so that none is started only to time out.
   */
  private sweep(): void {
    const now = this.clock.now();
    const refused = this.policy.refusals(
      this.holdAges(),
      this.queue.map((w) => w.latestStartAt - now),
    );
    for (const w of refused.map((i) => this.queue[i]!)) w.refuse(); // each leaves the queue
    if (this.queue.length === 0 && this.stopSweep) {
      this.stopSweep();
      this.stopSweep = undefined;
    }
  }

  /** 503 overloaded with Retry-After from the queue: when the queue ahead should have drained. */
  private overloaded(message: string, reason: 'queue_full' | 'queue_wait'): Overloaded {
    this.opts.onRejected?.(reason);
    return new Overloaded(message, this.policy.retryAfterSeconds(this.holdAges(), this.queue.length));
  }
}
