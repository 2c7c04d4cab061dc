// captureOnTimeout: a capture that still arrives when a page never settles (a chat widget
// polling forever, a dead ad server holding the load event). Off by default: then
// every wait runs under the render budget like any step and the render ends in 504
// render_timeout (spec §4.1 rule 6, §7), unchanged.
//
// With the option, the waits of the pipeline (their names: `load`, `idle`, `selector`,
// `lazy-scroll`, `lazy-idle`, and `delay`, the request's fixed wait before the capture) end at the
// budget minus a capture reserve (captureReserveMs:
// CAPTURE_RESERVE_MAX_MS, at most CAPTURE_RESERVE_SHARE of the budget, below). A wait still running then is cut, and the waits
// after it are skipped: each is named in the response header x-wait-timed-out, in order. The
// banner clean-up then runs until half the reserve is left, and the capture has the rest.
//
// `load` (the navigation and its load event) is cut only once the main document has committed
// (its response has started to arrive and the browser shows it): a page whose ad script or image
// never answers is captured as far as it got. A target that has sent nothing by then stays a 504
// at the budget, as without the option: there is nothing of it to capture. In html mode the markup
// is written into the page before the load event is awaited, so it is always there to capture.
import type { Frame, HTTPResponse, Page } from 'puppeteer-core';
import type { Deadline } from './deadline.ts';
import type { StepLabel } from './step-names.ts';

/** The most of the render budget kept for clean-up and capture once a wait is cut. */
export const CAPTURE_RESERVE_MAX_MS = 3000;
/** ... and at most this share of the budget (a shortened budget keeps most of it for waiting). */
export const CAPTURE_RESERVE_SHARE = 0.25;

/** The part of the budget kept, after a cut wait, for the clean-up and the capture. */
export function captureReserveMs(budgetMs: number): number {
  return Math.min(CAPTURE_RESERVE_MAX_MS, Math.round(budgetMs * CAPTURE_RESERVE_SHARE));
}

/** The named steps that are waits, and may be cut: the values of x-wait-timed-out. */
const WAITS = {
  load: 'loading the page',
  idle: 'waiting for network idle',
  selector: 'waiting for selector',
  'lazy-scroll': 'loading lazy content',
  'lazy-idle': 'waiting for lazy content',
  delay: 'waiting for delay',
} as const;
export type WaitStep = keyof typeof WAITS;
export const WAIT_STEPS = Object.keys(WAITS) as WaitStep[];
export const WAIT_LABELS: readonly StepLabel[] = WAIT_STEPS.map((name) => ({ name, description: WAITS[name] }));
const labelOf = (name: WaitStep): StepLabel => ({ name, description: WAITS[name] });

const CUT = Symbol('cut');

/** The waits of one render, under its deadline; with captureOnTimeout, cut before it. */
export class Waits {
  /** Waits that did not finish, in order: the one cut and those skipped after it (WAITS names). */
  readonly timedOut: WaitStep[] = [];
  /** When the waits end (epoch ms): the deadline itself without the option. */
  readonly until: number;

  constructor(
    private readonly deadline: Deadline,
    readonly captureOnTimeout: boolean,
  ) {
    this.until = captureOnTimeout ? deadline.at - captureReserveMs(deadline.budgetMs) : deadline.at;
  }

  /** Milliseconds left for waiting. */
  remaining(): number {
    return Math.max(0, this.until - Date.now());
  }

  /** When the banner clean-up must end: the deadline, or after a cut wait, half the reserve before it. */
  cleanupEnd(): number {
    return this.timedOut.length > 0 ? this.deadline.at - captureReserveMs(this.deadline.budgetMs) / 2 : this.deadline.at;
  }

  /** Runs a wait step; true when it finished, false when it was cut or skipped (only with captureOnTimeout). */
  async step(name: WaitStep, work: Promise<unknown> | (() => Promise<unknown>), stage: string = WAITS[name]): Promise<boolean> {
    if (!this.captureOnTimeout) {
      await this.deadline.step(labelOf(name), work, stage);
      return true;
    }
    return (await this.cut(name, work, stage, () => true)) !== CUT;
  }

  /**
   * The `load` step: the navigation's (or setContent's) result, or undefined when it was cut.
   * `committed` says whether there is a document to capture; until there is, the load is never
   * cut and the render ends in 504 at the budget as without the option.
   */
  async load<T>(work: Promise<T>, committed: () => boolean, stage: string = WAITS.load): Promise<T | undefined> {
    if (!this.captureOnTimeout) return this.deadline.step(labelOf('load'), work, stage);
    const r = await this.cut('load', work, stage, committed);
    return r === CUT ? undefined : r;
  }

  private async cut<T>(name: WaitStep, work: Promise<T> | (() => Promise<T>), stage: string, canCut: () => boolean): Promise<T | typeof CUT> {
    const p = typeof work === 'function' ? work() : work;
    if (this.remaining() <= 0 && canCut()) {
      p.catch(() => {}); // skipped: an earlier wait used up the time
      this.timedOut.push(name);
      return CUT;
    }
    let timer: NodeJS.Timeout | undefined;
    // At `until`: cut if allowed, else go on waiting for the work itself (the deadline still bounds it).
    const end = new Promise<T | typeof CUT>((resolve) => {
      timer = setTimeout(() => resolve(canCut() ? CUT : p), this.remaining());
    });
    try {
      const r = await this.deadline.step(labelOf(name), Promise.race([p, end]), stage);
      if (r === CUT) this.timedOut.push(name);
      return r;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The main document of a url-mode navigation, watched from before it starts: whether it has
 * committed (the browser shows it) and the HTTP status of its last response, for a load that is
 * cut before page.goto() could return that response (x-target-status).
 */
export function watchMainDocument(page: Page): { committed(): boolean; status(): number | undefined; dispose(): void } {
  let committed = false;
  let status: number | undefined;
  const onNavigated = (f: Frame) => {
    if (f === page.mainFrame()) committed = true;
  };
  const onResponse = (r: HTTPResponse) => {
    if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) status = r.status();
  };
  page.on('framenavigated', onNavigated);
  page.on('response', onResponse);
  return {
    committed: () => committed,
    status: () => status,
    dispose: () => {
      page.off('framenavigated', onNavigated);
      page.off('response', onResponse);
    },
  };
}
