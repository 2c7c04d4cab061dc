// The browser pool: one long-lived Chromium serving many requests, each in a fresh incognito
// context prepared ahead of demand (supervisor.ts); bounded concurrency and a bounded queue with
// its policy (server/admission: 503 overloaded beyond it); each render in a slot of its own
// (slot-render.ts). Background work (batch items) renders in a second browser started at a lower
// CPU priority, so that a running batch yields the cores to the captures callers wait for; it is
// started with the first background render and closed when background work has stopped for a
// while. This file only joins them: a permit, then the render, then the permit back.
import { EventEmitter } from 'node:events';
import { Admission, type Permit } from '../admission/index.ts';
import type { PoolEvents } from '../metrics.ts';
import type { LaunchedBrowser, LaunchOptions } from '../toolkit/browser.ts';
import { Deadline } from '../toolkit/deadline.ts';
import type { PipelineDeps, RenderResult } from '../render/pipeline.ts';
import { traceRender } from '../render/step-spans.ts';
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
  /**
   * Background renders (batch items) in a browser of their own at this CPU niceness, with slots
   * prepared for `concurrency` of them (BATCH_NICENESS, the batch slots); without it (or at
   * niceness 0) they render in the captures' browser.
   */
  background?: { niceness: number; concurrency: number };
}

/** A background browser with no background render for this long is closed (its memory freed). */
export const BACKGROUND_IDLE_MS = 60_000;

export class BrowserPool extends EventEmitter<PoolEvents> {
  private readonly admission: Admission;
  private readonly browsers: BrowserSupervisor;
  private bg: { browsers: BrowserSupervisor; active: number; idle?: NodeJS.Timeout } | undefined;

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
    return traceRender(req, deadline, background, async () => {
      if (permit && this.opts.background?.niceness) return this.renderInBackground(permit, req, deps, deadline);
      return this.renderWith(this.browsers, permit ?? (await this.admission.acquire(deadline.remaining(), signal)), req, deps, deadline);
    });
  }

  private async renderWith(browsers: BrowserSupervisor, permit: Permit, req: ScreenshotRequest, deps: PipelineDeps, deadline: Deadline): Promise<RenderResult> {
    let freed!: Promise<void>;
    try {
      return await renderInSlot(browsers, req, deps, deadline, (p) => (freed = p));
    } finally {
      if (freed !== undefined) void freed.then(permit.release, permit.release);
      else permit.release();
    }
  }

  /** In the background browser (started now if there is none); its idle timer runs from the last one. */
  private async renderInBackground(permit: Permit, req: ScreenshotRequest, deps: PipelineDeps, deadline: Deadline): Promise<RenderResult> {
    const bg = (this.bg ??= {
      browsers: new BrowserSupervisor({
        ...this.opts,
        ...this.opts.background!,
        onRetired: (e) => this.emit('browser-retired', e),
      }),
      active: 0,
    });
    clearTimeout(bg.idle);
    bg.active++;
    try {
      return await this.renderWith(bg.browsers, permit, req, deps, deadline);
    } finally {
      if (--bg.active === 0)
        bg.idle = setTimeout(() => {
          if (this.bg !== bg || bg.active > 0) return;
          this.bg = undefined;
          bg.browsers.stop();
          void bg.browsers.close();
        }, BACKGROUND_IDLE_MS).unref();
    }
  }

  /** Stops taking renders, waits for those in flight (up to `graceMs`), closes every browser. */
  async close(graceMs = 25_000): Promise<void> {
    this.admission.close(); // queued renders proceed: they were admitted
    this.browsers.stop();
    this.bg?.browsers.stop();
    if (this.bg) clearTimeout(this.bg.idle);
    await this.admission.drained(graceMs);
    await Promise.all([this.browsers.close(), this.bg?.browsers.close()]);
  }
}
