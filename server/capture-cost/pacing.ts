// Tall captures leave the browser's capture pipeline to the others half of the time. Chromium makes
// one capture at a time per browser: measured on Chromium 156, a 1280x720 capture started while a
// 1280x30000 one runs ends right after it (~450 ms later) in the same browser, at once in another;
// loading, scripts and everything else go on meanwhile (only Page.captureScreenshot waits). Tall
// captures back to back would therefore hold every small capture behind them (median +250 to +500
// ms for small captures beside a repeated 30000 px full page, where the +50 ms bound is ours).
// So while small captures are being made, a tall capture's Chromium part waits until the browser
// has been free of tall captures for as long as the last one took: at most half of the pipeline
// goes to tall captures, and most small captures find it free. With no small capture about (a
// batch of full pages) tall captures follow each other without a pause.
//
// Tall captures already take turns (index.ts inTurn): one at a time, so one pause to track.

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: Clock = { now: () => performance.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export class Pacing {
  private smallInFlight = 0;
  private lastSmallEnd = -Infinity;
  private lastTallEnd = -Infinity;
  private lastTallMs = 0;

  constructor(private readonly clock: Clock = realClock) {}

  /** Runs a small capture's Chromium part (noted, so that tall captures leave it room). */
  async small<T>(work: () => Promise<T>): Promise<T> {
    this.smallInFlight++;
    try {
      return await work();
    } finally {
      this.smallInFlight--;
      this.lastSmallEnd = this.clock.now();
    }
  }

  /** How long the next tall capture waits now (0 when no small capture is about, or the pause is over). */
  pauseMs(): number {
    const now = this.clock.now();
    const othersAbout = this.smallInFlight > 0 || now - this.lastSmallEnd <= this.lastTallMs;
    return othersAbout ? Math.max(0, this.lastTallEnd + this.lastTallMs - now) : 0;
  }

  /** Before a tall capture is planned: waits for the pause, at most `maxMs()` (what the budget can spare, asked only when there is a pause). */
  async roomForOthers(maxMs: () => number): Promise<void> {
    const pause = this.pauseMs();
    const ms = pause > 0 ? Math.min(pause, Math.max(0, maxMs())) : 0;
    if (ms > 0) await this.clock.sleep(ms);
  }

  /** Runs a tall capture's Chromium part, timed: the pause after it lasts as long. */
  async tall<T>(work: () => Promise<T>): Promise<T> {
    const started = this.clock.now();
    try {
      return await work();
    } finally {
      this.lastTallEnd = this.clock.now();
      this.lastTallMs = this.lastTallEnd - started;
    }
  }
}

/** This process's pacing: one browser's capture pipeline is shared by every render in the process. */
export const pacing = new Pacing();
