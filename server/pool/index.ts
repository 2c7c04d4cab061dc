// The browser pool: one long-lived Chromium serving many requests, each in a fresh incognito
// context prepared ahead of demand (supervisor.ts); bounded concurrency and a bounded queue with
// its policy (server/admission: 503 overloaded beyond it); each render in a slot of its own
// (slot-render.ts). This file only joins them: a permit, then the render, then the permit back.
import { EventEmitter } from 'node:events';
import { Admission, type Permit, type Refusal } from '../admission/index.ts';
import type { LaunchedBrowser, LaunchOptions } from '../toolkit/browser.ts';
import { Deadline } from '../toolkit/deadline.ts';
import type { PipelineDeps, RenderResult } from '../render/pipeline.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';
import type { SandboxSettings } from '../sandbox/index.ts';
import { renderInSlot } from './slot-render.ts';
import { BrowserSupervisor, type Log } from './supervisor.ts';

export interface PoolOptions {
  executablePath: string;
  launchArgs: string[];
  concurrency: number;
  queueLimit: number;
  recycleAfter: number;
  renderBudgetMs: number;
  /** How Chromium is confined (server/sandbox; default BROWSER_SANDBOX=auto). */
  sandbox?: SandboxSettings;
  log?: Log;
  /** Starts one browser (default launchBrowser). Tests pass one that also keeps what it launched. */
  launch?: (opts: LaunchOptions) => Promise<LaunchedBrowser>;
}

/**
 * What the pool reports as it works (read by server/metrics.ts):
 *   'admitted'         (waitedMs)                  a render got its permit after waiting this long
 *   'rejected'         (reason)                    a render was refused before it started: queue full,
 *                                                 queue too long for the budget (queue_wait), shutting down
 *   'browser-retired'  ({ reason, renders })       a browser left service: 'crashed' or 'recycled'
 */
export interface PoolEvents {
  admitted: [waitedMs: number];
  rejected: [reason: Refusal];
  'browser-retired': [{ reason: 'crashed' | 'recycled'; renders: number }];
}

export class BrowserPool extends EventEmitter<PoolEvents> {
  private readonly admission: Admission;
  private readonly browsers: BrowserSupervisor;

  constructor(private readonly opts: PoolOptions) {
    super();
    this.admission = new Admission({
      ...opts,
      onAdmitted: (ms) => this.emit('admitted', ms),
      onRejected: (reason) => this.emit('rejected', reason),
    });
    this.browsers = new BrowserSupervisor({ ...opts, onRetired: (e) => this.emit('browser-retired', e) });
  }

  get queueDepth(): number {
    return this.admission.queueDepth;
  }
  get inFlight(): number {
    return this.admission.inFlight;
  }
  /** True when a new render would be refused now: every slot busy and the queue full. */
  get saturated(): boolean {
    return this.admission.saturated;
  }
  /** Prepared slots waiting for a request. */
  get warmSlots(): number {
    return this.browsers.warmSlots;
  }
  /** The browser's version string (e.g. "HeadlessChrome/156.0.8078.79"), once launched. */
  get browserVersion(): string | undefined {
    return this.browsers.browserVersion;
  }
  /** RENDER_BUDGET_MS: the whole capture's budget, waits for a slot or an identical render included. */
  get renderBudgetMs(): number {
    return this.opts.renderBudgetMs;
  }

  async start(): Promise<void> {
    await this.browsers.current();
  }

  /** True when a browser is up and answers within the timeout (never waits for one starting). */
  ready(timeoutMs = 2000): Promise<boolean> {
    return this.browsers.ready(timeoutMs);
  }

  /**
   * One render. The deadline starts at the request's arrival (`arrivedAt`, default now), before
   * the wait for a slot and for an identical render (spec §8: the budget covers the whole
   * capture), so that no answer comes later than the budget (plus the slack of README "Limits").
   * The permit is held until the page is really gone; the answer does not wait for that.
   */
  async render(req: ScreenshotRequest, deps: PipelineDeps, signal?: AbortSignal, arrivedAt = Date.now(), background = false): Promise<RenderResult> {
    // Background work (a batch item) has no caller counting: its budget starts with its slot.
    const permit = background ? await this.admission.acquireBackground(signal) : undefined;
    const deadline = new Deadline(this.opts.renderBudgetMs, signal, background ? Date.now() : arrivedAt);
    return this.renderWith(permit ?? (await this.admission.acquire(deadline.remaining(), signal)), req, deps, deadline);
  }

  private async renderWith(permit: Permit, req: ScreenshotRequest, deps: PipelineDeps, deadline: Deadline): Promise<RenderResult> {
    let freed!: Promise<void>;
    try {
      return await renderInSlot(this.browsers, req, deps, deadline, (p) => (freed = p));
    } finally {
      if (freed !== undefined) void freed.then(permit.release, permit.release);
      else permit.release();
    }
  }

  /** Stops taking renders, waits for those in flight (up to `graceMs`), closes every browser. */
  async close(graceMs = 25_000): Promise<void> {
    this.admission.close(); // queued renders proceed: they were admitted
    this.browsers.stop();
    await this.admission.drained(graceMs);
    await this.browsers.close();
  }
}
