// The queue policy (README "Limits"): how long a request queued for a render slot is expected to
// wait, from the renders in progress and the recent mean time a slot is held; which queued
// requests to refuse because they would not start in time; and the Retry-After of a refusal.
// The render budget counts from arrival (spec §8: the whole capture, waits included), so a request
// that would spend most of it queued is refused early (503 overloaded, DESIGN §3) rather than
// started only to time out. Pure arithmetic on the ages it is given: no clock, no timers, no
// browser, so every rule here is unit-tested on its own (policy.test.ts).

/** A request whose expected wait would leave less than this fraction of the budget is refused. */
export const MIN_START_FRACTION = 0.25;
const HOLD_EWMA_WEIGHT = 0.2; // the mean follows the last ~5 renders
export const INITIAL_HOLD_MS = 1000; // before any render has finished: a typical render
export const MIN_FREE_IN_MS = 100; // a render past its budget is being torn down: its slot frees soon
export const RETRY_AFTER_MIN_S = 1;
export const RETRY_AFTER_MAX_S = 60;

export interface PolicyOptions {
  /** Render slots (RENDER_CONCURRENCY). */
  concurrency: number;
  /** RENDER_BUDGET_MS: the whole capture's budget, waits included. */
  renderBudgetMs: number;
}

export class QueuePolicy {
  /** Recent mean time a permit is held (render plus teardown), an exponentially weighted mean. */
  private mean = INITIAL_HOLD_MS;

  constructor(private readonly opts: PolicyOptions) {}

  get meanHoldMs(): number {
    return this.mean;
  }

  /** A permit was held this long: the mean follows. */
  held(ms: number): void {
    this.mean += HOLD_EWMA_WEIGHT * (ms - this.mean);
  }

  /**
   * The least budget worth starting a render with: a request still queued when its remaining
   * budget falls below this is refused rather than started; a request whose expected wait would
   * leave less than this is refused at arrival.
   */
  get minStartMs(): number {
    return this.opts.renderBudgetMs * MIN_START_FRACTION;
  }

  /**
   * For each slot, when it is expected to be free, given the ages of the permits held now (ms
   * since each was taken). An idle slot now. A render younger than the recent mean: at the mean.
   * An older one has shown it is slow: about as long again as it has run, but no longer than its
   * budget allows (pages that spin until the budget ends count while they run, not only once they
   * have finished).
   */
  slotFreeInMs(holdAges: readonly number[]): number[] {
    const budget = this.opts.renderBudgetMs;
    const out = holdAges.map((age) => (age < this.mean ? this.mean - age : Math.max(MIN_FREE_IN_MS, Math.min(age, budget - age))));
    while (out.length < this.opts.concurrency) out.push(0);
    return out.slice(0, Math.max(1, this.opts.concurrency));
  }

  /**
   * Expected waits of the next `n` requests to queue, by simulation: each slot frees when its
   * render is expected to end (slotFreeInMs), then serves one queued request after another, each
   * holding it for the recent mean. The k-th wait does not depend on `n`.
   */
  expectedWaitsMs(holdAges: readonly number[], n: number): number[] {
    const free = this.slotFreeInMs(holdAges);
    const waits: number[] = [];
    for (let k = 0; k < n; k++) {
      let i = 0;
      for (let j = 1; j < free.length; j++) if (free[j]! < free[i]!) i = j;
      waits.push(free[i]!);
      free[i] = free[i]! + this.mean;
    }
    return waits;
  }

  /** Expected wait for a slot of a request queued behind `ahead` others. */
  expectedWaitMs(holdAges: readonly number[], ahead: number): number {
    return this.expectedWaitsMs(holdAges, ahead + 1)[ahead]!;
  }

  /**
   * The queued requests to refuse now, as indexes into the queue (in order): those whose expected
   * wait no longer fits the time they have left to start (`leftToStartMs`, in queue order). A
   * refused request leaves the queue, so the next one takes its place in the simulation. One
   * whose time to start has run out is always refused (a wait is never negative).
   */
  refusals(holdAges: readonly number[], leftToStartMs: readonly number[]): number[] {
    const waits = this.expectedWaitsMs(holdAges, leftToStartMs.length);
    const out: number[] = [];
    let place = 0;
    leftToStartMs.forEach((left, i) => {
      if (waits[place]! > left) out.push(i);
      else place++;
    });
    return out;
  }

  /** Retry-After of a refusal: when the queue ahead (`queued` requests) should have drained, in whole seconds, clamped. */
  retryAfterSeconds(holdAges: readonly number[], queued: number): number {
    const seconds = Math.ceil(this.expectedWaitMs(holdAges, queued) / 1000);
    return Math.min(RETRY_AFTER_MAX_S, Math.max(RETRY_AFTER_MIN_S, seconds));
  }
}
