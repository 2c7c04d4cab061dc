// The browser pool: one long-lived Chromium serving many requests, each in a fresh incognito
// context prepared ahead of demand; bounded concurrency and a bounded queue (503 overloaded
// beyond it); a crashed or hung browser is replaced; the browser is recycled after N renders.
import { EventEmitter } from 'node:events';
import type { ScreenshotRequest } from '../request/schema.ts';
import { Overloaded, RenderFailed, RenderTimeout, ServiceError } from '../errors.ts';
import type { SandboxSettings } from '../sandbox/index.ts';
import { launchBrowser, type LaunchedBrowser, type LaunchOptions } from './browser.ts';
import { Deadline } from './deadline.ts';
import { runPipeline, type PipelineDeps, type RenderResult } from './pipeline.ts';
import { prepareSlot, type Slot } from './slot.ts';

export interface PoolOptions {
  executablePath: string;
  launchArgs: string[];
  concurrency: number;
  queueLimit: number;
  recycleAfter: number;
  renderBudgetMs: number;
  /** How Chromium is confined (server/sandbox; default BROWSER_SANDBOX=auto). */
  sandbox?: SandboxSettings;
  log?: (level: 'info' | 'warn' | 'error', msg: string, extra?: object) => void;
  /** Starts one browser (default launchBrowser). Tests pass one that also keeps what it launched. */
  launch?: (opts: LaunchOptions) => Promise<LaunchedBrowser>;
}

/** One browser process and the slots prepared in it. */
interface Generation {
  id: number;
  launched: LaunchedBrowser;
  slots: Slot[];
  preparing: number;
  renders: number;
  active: number;
  retired: boolean;
  dead: boolean;
}

const DISPOSE_TIMEOUT_MS = 5000; // a context that cannot be closed in this time means a hung browser
/** A request waiting for a render slot. */
interface Waiter {
  wake(): void;
  /** 503 overloaded now: it would not start in time. */
  refuse(): void;
  /** performance.now() after which it is too late to start. */
  latestStartAt: number;
}

/** Queue policy (issue 15; docs/api.md "Limits"): see minStartMs, expectedWaitMs, sweep. */
const MIN_START_FRACTION = 0.25;
const HOLD_EWMA_WEIGHT = 0.2; // the mean follows the last ~5 renders
const INITIAL_HOLD_MS = 1000; // before any render has finished: a typical render
const MIN_FREE_IN_MS = 100; // a render past its budget is being torn down: its slot frees soon
const SWEEP_MS = 250; // how often queued requests are checked against their budget
const RETRY_AFTER_MIN_S = 1;
const RETRY_AFTER_MAX_S = 60;

/**
 * What the pool reports as it works (read by server/metrics.ts):
 *   'admitted'         (waitedMs)                  a render got its permit after waiting this long
 *   'rejected'         (reason)                    a render was refused before it started: queue full,
 *                                                 queue too long for the budget (queue_wait), shutting down
 *   'browser-retired'  ({ reason, renders })       a browser left service: 'crashed' or 'recycled'
 */
export interface PoolEvents {
  admitted: [waitedMs: number];
  rejected: [reason: 'queue_full' | 'queue_wait' | 'shutting_down'];
  'browser-retired': [{ reason: 'crashed' | 'recycled'; renders: number }];
}

export class BrowserPool extends EventEmitter<PoolEvents> {
  private gen: Promise<Generation> | undefined;
  /** The generation `gen` resolved to, known synchronously so that retire() can replace it at once. */
  private currentGen: Generation | undefined;
  private genSeq = 0;
  private running = 0;
  /** Recent mean time a permit is held (render plus teardown), an exponentially weighted mean. */
  private meanHoldMs = INITIAL_HOLD_MS;
  /** When each permit now held was taken (performance.now()). */
  private readonly holds = new Set<{ since: number }>();
  private readonly queue: Array<Waiter> = [];
  private sweeper: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly live = new Set<Generation>();
  /** The browser's version string (e.g. "HeadlessChrome/156.0.8078.79"), once launched. */
  browserVersion: string | undefined;

  constructor(private readonly opts: PoolOptions) {
    super();
  }

  get queueDepth(): number {
    return this.queue.length;
  }
  get inFlight(): number {
    return this.running;
  }
  /** True when a new render would be refused now: every slot busy and the queue full. */
  get saturated(): boolean {
    return this.running >= this.opts.concurrency && this.queue.length >= this.opts.queueLimit;
  }
  /** Prepared slots waiting for a request. */
  get warmSlots(): number {
    let n = 0;
    for (const g of this.live) if (!g.retired && !g.dead) n += g.slots.length;
    return n;
  }

  async start(): Promise<void> {
    await this.current();
  }

  /** True when a browser is up and answers within the timeout (never waits for one starting). */
  async ready(timeoutMs = 2000): Promise<boolean> {
    const g = this.currentGen;
    if (this.closing || !g || g.dead || g.retired) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    const ok = await Promise.race([g.launched.browser.version().then(() => true, () => false), late]);
    clearTimeout(timer);
    return ok;
  }

  private log(level: 'info' | 'warn' | 'error', msg: string, extra?: object) {
    this.opts.log?.(level, msg, extra);
  }

  private current(): Promise<Generation> {
    if (!this.gen) {
      const p = this.launch();
      this.gen = p;
      p.catch(() => {
        if (this.gen === p) this.gen = undefined; // the next request tries again
      });
    }
    return this.gen;
  }

  private async launch(): Promise<Generation> {
    const launched = await (this.opts.launch ?? launchBrowser)({ executablePath: this.opts.executablePath, args: this.opts.launchArgs, sandbox: this.opts.sandbox });
    if (this.closing) {
      // close() ran while this browser was starting (e.g. the replacement after a recycle).
      await launched.close();
      throw new Overloaded('the server is shutting down', 5);
    }
    const g: Generation = { id: ++this.genSeq, launched, slots: [], preparing: 0, renders: 0, active: 0, retired: false, dead: false };
    this.live.add(g);
    this.currentGen = g;
    launched.browser.on('disconnected', () => {
      if (!g.dead && !this.closing) this.log('warn', 'browser disconnected; replacing it', { generation: g.id });
      this.retire(g, true);
    });
    this.browserVersion = await launched.browser.version();
    const { confinement } = launched;
    this.log('info', 'browser launched', { generation: g.id, version: this.browserVersion, sandbox: confinement.sandbox, uid: confinement.uid });
    // Loud at every launch: without the sandbox a compromised renderer can open sockets around
    // the egress proxy (server/sandbox). BROWSER_SANDBOX=require makes this a start-up error.
    if (!confinement.sandbox) this.log('warn', 'Chromium runs WITHOUT its sandbox: a compromised renderer could reach the network around the egress proxy; set BROWSER_SANDBOX=require to refuse this', { generation: g.id, reason: confinement.reason });
    this.refill(g);
    return g;
  }

  /**
   * Keeps concurrency + 1 slots prepared in the current generation. Called at launch and after a
   * render has finished, not when a slot is taken: preparing a context costs CPU that a render
   * in progress would otherwise have to share.
   */
  private refill(g: Generation): void {
    while (!g.retired && !g.dead && !this.closing && g.slots.length + g.preparing < this.opts.concurrency + 1) {
      g.preparing++;
      prepareSlot(g.launched.browser)
        .then((slot) => {
          if (g.retired || g.dead || this.closing) void slot.dispose();
          else g.slots.push(slot);
        })
        .catch((e) => {
          if (!g.dead) this.log('warn', 'preparing a slot failed', { err: String(e) });
        })
        .finally(() => g.preparing--);
    }
  }

  /** Takes a generation out of service; its browser closes once its renders are done. */
  private retire(g: Generation, dead = false): void {
    g.dead ||= dead;
    if (!g.retired) {
      g.retired = true;
      if (!this.closing) this.emit('browser-retired', { reason: g.dead ? 'crashed' : 'recycled', renders: g.renders });
      if (this.currentGen === g) {
        this.currentGen = undefined;
        this.gen = undefined; // so that current() below launches the replacement now
      }
      for (const s of g.slots.splice(0)) void s.dispose();
      if (!this.closing) void this.current().catch((e) => this.log('error', 'browser launch failed', { err: String(e) }));
    }
    if (g.dead || g.active === 0) {
      this.live.delete(g);
      void g.launched.close();
    }
  }

  /** Expected wait for a slot of a request queued behind `ahead` others: to refuse at arrival, and for Retry-After. */
  private expectedWaitMs(ahead: number): number {
    return this.expectedWaitsMs(ahead + 1)[ahead]!;
  }

  /**
   * Expected waits of the next `n` requests to queue, by simulation: each slot frees when its
   * render is expected to end (slotFreeInMs), then serves one queued request after another, each
   * holding it for the recent mean.
   */
  private expectedWaitsMs(n: number): number[] {
    const free = this.slotFreeInMs();
    const waits: number[] = [];
    for (let k = 0; k < n; k++) {
      let i = 0;
      for (let j = 1; j < free.length; j++) if (free[j]! < free[i]!) i = j;
      waits.push(free[i]!);
      free[i] = free[i]! + this.meanHoldMs;
    }
    return waits;
  }

  /**
   * For each slot, when it is expected to be free. An idle slot now. A render younger than the
   * recent mean: at the mean. An older one has shown it is slow: about as long again as it has
   * run, but no longer than its budget allows (pages that spin until the budget ends count while
   * they run, not only once they have finished).
   */
  private slotFreeInMs(): number[] {
    const now = performance.now();
    const budget = this.opts.renderBudgetMs;
    const out = [...this.holds].map((h) => {
      const age = now - h.since;
      return age < this.meanHoldMs ? this.meanHoldMs - age : Math.max(MIN_FREE_IN_MS, Math.min(age, budget - age));
    });
    while (out.length < this.opts.concurrency) out.push(0);
    return out.slice(0, Math.max(1, this.opts.concurrency));
  }

  /**
   * Every SWEEP_MS while requests wait: one whose expected wait no longer fits its budget is
   * refused now, so that the caller can go elsewhere early; at the latest when its latest start
   * has passed (a wait is never negative), so that none is started only to time out.
   */
  private sweep(): void {
    const now = performance.now();
    let waits = this.expectedWaitsMs(this.queue.length);
    for (let i = 0; i < this.queue.length; ) {
      const w = this.queue[i]!;
      if (waits[i]! > w.latestStartAt - now) {
        w.refuse(); // leaves the queue: those behind it move up
        waits = this.expectedWaitsMs(this.queue.length);
      } else i++;
    }
    if (this.queue.length === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** 503 overloaded with Retry-After from the queue: when the queue ahead should have drained. */
  private overloaded(message: string, reason: 'queue_full' | 'queue_wait'): Overloaded {
    this.emit('rejected', reason);
    const seconds = Math.ceil(this.expectedWaitMs(this.queue.length) / 1000);
    return new Overloaded(message, Math.min(RETRY_AFTER_MAX_S, Math.max(RETRY_AFTER_MIN_S, seconds)));
  }

  /** RENDER_BUDGET_MS: the whole capture's budget, waits for a slot or an identical render included. */
  get renderBudgetMs(): number {
    return this.opts.renderBudgetMs;
  }

  /**
   * The least budget worth starting a render with (issue 15): a request still queued when its
   * remaining budget falls below this is refused (503) rather than started; a request whose
   * expected wait would leave less than this is refused at arrival.
   */
  private get minStartMs(): number {
    return this.opts.renderBudgetMs * MIN_START_FRACTION;
  }

  /** Waits for a permit within the deadline (it started at arrival: queue time counts, issue 15). */
  private async acquirePermit(deadline: Deadline, signal?: AbortSignal): Promise<void> {
    if (this.closing) {
      this.emit('rejected', 'shutting_down');
      throw new Overloaded('the server is shutting down', 5);
    }
    if (this.running < this.opts.concurrency) {
      this.running++;
      return;
    }
    if (this.queue.length >= this.opts.queueLimit) throw this.overloaded(`the render queue is full (${this.opts.queueLimit} waiting)`, 'queue_full');
    const latestStart = deadline.remaining() - this.minStartMs;
    if (this.expectedWaitMs(this.queue.length) > latestStart) throw this.overloaded('the render queue is too long to start this render within the render budget', 'queue_wait');
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
        latestStartAt: performance.now() + latestStart,
      };
      const closed = () => leave(new ServiceError('client_closed', 'the client closed the connection while queued'));
      signal?.addEventListener('abort', closed, { once: true });
      this.queue.push(waiter);
      this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
    });
  }

  private releasePermit(heldMs: number): void {
    this.meanHoldMs += HOLD_EWMA_WEIGHT * (heldMs - this.meanHoldMs);
    const next = this.queue.shift();
    if (next) next.wake(); // the permit passes straight to the next waiter
    else this.running--;
  }

  /**
   * One render. The deadline starts at the request's arrival (`arrivedAt`, default now), before
   * the wait for a slot and for an identical render (issue 15), so that no answer comes later than
   * the budget (plus the slack of docs/api.md "Limits"). The permit is held until the page is really
   * gone; the answer does not wait for that.
   */
  async render(req: ScreenshotRequest, deps: PipelineDeps, signal?: AbortSignal, arrivedAt = Date.now()): Promise<RenderResult> {
    const deadline = new Deadline(this.opts.renderBudgetMs, signal, arrivedAt);
    const asked = performance.now();
    await this.acquirePermit(deadline, signal);
    const admitted = performance.now();
    const hold = { since: admitted };
    this.holds.add(hold);
    this.emit('admitted', admitted - asked);
    let freed!: Promise<void>;
    try {
      return await this.renderInSlot(req, deps, deadline, (p) => (freed = p));
    } finally {
      const release = () => {
        this.holds.delete(hold);
        this.releasePermit(performance.now() - admitted);
      };
      if (freed !== undefined) void freed.then(release, release);
      else release();
    }
  }

  /** `onFinish` is given the promise of the slot's disposal once the slot is taken. */
  private async renderInSlot(req: ScreenshotRequest, deps: PipelineDeps, deadline: Deadline, onFinish: (done: Promise<void>) => void): Promise<RenderResult> {
    const browser = () =>
      deadline.step('browser', this.current()).catch((e) => {
        throw e instanceof ServiceError ? e : new RenderFailed(`the browser could not be started: ${String(e).split('\n')[0]}`);
      });
    let g = await browser();
    // Another render may have retired this browser (recycle, crash) while we waited; its
    // replacement is the current one. Checked and claimed (active++) in one synchronous step, so
    // that the browser cannot be closed under us.
    while (g.retired || g.dead) g = await browser();
    g.active++;
    g.renders++;
    let slot: Slot;
    try {
      slot = g.slots.shift() ?? (await deadline.step('page', prepareSlot(g.launched.browser)));
    } catch (e) {
      g.active--;
      if (g.retired && g.active === 0) this.retire(g);
      throw toServiceError(e, g);
    }
    let abandoned = false; // timed out, cut short (captureOnTimeout), or the caller went away: the page may still be busy
    try {
      const crashed = slot.crashed.then((e) => {
        throw new RenderFailed(`the page crashed: ${e.message}`);
      });
      const r = await Promise.race([runPipeline(slot, req, deadline, deps), crashed]);
      // captureOnTimeout: a page captured before it settled may still be busy, as after a timeout.
      abandoned = r.waitTimedOut.length > 0;
      return r;
    } catch (e) {
      abandoned = e instanceof RenderTimeout || (e instanceof ServiceError && e.code === 'client_closed');
      throw toServiceError(e, g);
    } finally {
      // A finished render's context closes in the background: the caller has its image and the
      // next render its permit ~10 ms sooner. After a timeout or a lost caller the page may be
      // busy (a script loop): then the permit (not the answer) is held until the context is
      // really gone, so that runaway pages can never outnumber the permits.
      const done = this.finishSlot(slot, g, abandoned);
      if (abandoned) onFinish(done);
    }
  }

  private async finishSlot(slot: Slot, g: Generation, afterTimeout: boolean): Promise<void> {
    await this.disposeSlot(slot, g, afterTimeout);
    g.active--;
    this.refill(g);
    if (g.renders >= this.opts.recycleAfter && !g.retired) {
      this.log('info', 'recycling browser', { generation: g.id, renders: g.renders });
      this.retire(g);
    } else if (g.retired && g.active === 0) {
      this.retire(g);
    }
  }

  /** Closes the request's context; if the browser cannot even do that, it is hung: replace it. */
  private async disposeSlot(slot: Slot, g: Generation, afterTimeout: boolean): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), DISPOSE_TIMEOUT_MS)));
    const outcome = await Promise.race([slot.dispose().then(() => 'closed' as const), hung]);
    clearTimeout(timer);
    if (outcome === 'hung') {
      this.log('error', 'browser did not close a context in time; killing it', { generation: g.id, afterTimeout });
      g.launched.browser.process()?.kill('SIGKILL');
      this.retire(g, true);
    }
  }

  /** Stops taking renders, waits for those in flight (up to `graceMs`), closes every browser. */
  async close(graceMs = 25_000): Promise<void> {
    this.closing = true;
    // Queued renders proceed (they were admitted); each counts as running, so that the wait below
    // covers them too and Chromium is not closed under them.
    for (const w of this.queue.splice(0)) {
      this.running++;
      w.wake();
    }
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const until = Date.now() + graceMs;
    while (this.running > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await this.gen?.catch(() => {}); // a browser still starting is closed by launch() itself
    await Promise.all([...this.live].map((g) => g.launched.close()));
    this.live.clear();
    this.gen = undefined;
  }
}

/** Browser-level failures (closed targets, lost sessions) become render_failed. */
function toServiceError(e: unknown, g: Generation): ServiceError {
  if (e instanceof ServiceError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  if (g.dead) return new RenderFailed('the browser crashed during the render');
  return new RenderFailed(`rendering failed: ${msg.split('\n')[0]}`);
}
