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

/**
 * What the pool reports as it works (read by server/metrics.ts):
 *   'admitted'         (waitedMs)                  a render got its permit after waiting this long
 *   'rejected'         (reason)                    a render was refused before it started
 *   'browser-retired'  ({ reason, renders })       a browser left service: 'crashed' or 'recycled'
 */
export interface PoolEvents {
  admitted: [waitedMs: number];
  rejected: [reason: 'queue_full' | 'shutting_down'];
  'browser-retired': [{ reason: 'crashed' | 'recycled'; renders: number }];
}

export class BrowserPool extends EventEmitter<PoolEvents> {
  private gen: Promise<Generation> | undefined;
  /** The generation `gen` resolved to, known synchronously so that retire() can replace it at once. */
  private currentGen: Generation | undefined;
  private genSeq = 0;
  private running = 0;
  private readonly queue: Array<() => void> = [];
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

  private async acquirePermit(signal?: AbortSignal): Promise<void> {
    if (this.closing) {
      this.emit('rejected', 'shutting_down');
      throw new Overloaded('the server is shutting down', 5);
    }
    if (this.running < this.opts.concurrency) {
      this.running++;
      return;
    }
    if (this.queue.length >= this.opts.queueLimit) {
      this.emit('rejected', 'queue_full');
      throw new Overloaded(`the render queue is full (${this.opts.queueLimit} waiting)`, 2);
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const i = this.queue.indexOf(wake);
        if (i >= 0) this.queue.splice(i, 1);
        reject(new ServiceError('client_closed', 'the client closed the connection while queued'));
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.queue.push(wake);
    });
  }

  private releasePermit(): void {
    const next = this.queue.shift();
    if (next) next(); // the permit passes straight to the next waiter
    else this.running--;
  }

  async render(req: ScreenshotRequest, deps: PipelineDeps, signal?: AbortSignal): Promise<RenderResult> {
    const asked = performance.now();
    await this.acquirePermit(signal);
    this.emit('admitted', performance.now() - asked);
    try {
      return await this.renderInSlot(req, deps, signal);
    } finally {
      this.releasePermit();
    }
  }

  private async renderInSlot(req: ScreenshotRequest, deps: PipelineDeps, signal?: AbortSignal): Promise<RenderResult> {
    const deadline = new Deadline(this.opts.renderBudgetMs, signal);
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
      // busy (a script loop): then the permit is held until the context is really gone, so that
      // runaway pages can never outnumber the permits.
      const done = this.finishSlot(slot, g, abandoned);
      if (abandoned) await done;
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
    for (const wake of this.queue.splice(0)) {
      this.running++;
      wake();
    }
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
