// What a capture costs on this machine, so that the capture step can be planned to end before the
// render budget does (spec §4.1 rule 6): wall-clock milliseconds for each part of a capture,
//
//   png | jpeg | webp   Page.captureScreenshot in that format: raster, Chromium's encoder, the
//                       base64 transfer over CDP (for PNG: Chromium's fast encoder)
//   reencode            the lossless PNG re-encode by sharp (server/render/png.ts compactPng)
//
// as `fixed + megapixels x rate`, both learnt from the captures the service makes: the rate from
// tall captures (TALL_PIXELS or more, where the per-pixel part dominates), the fixed part from the
// others. Wall clock, not CPU time, on purpose: when the machine is shared (another job beside
// the service) a capture takes longer, and what was learnt from the last captures says so. Both
// rise fast and fall slowly: a capture slower than planned matters more than a quicker one.
// Before anything is learnt the seeds apply: on the slow side of what the reference machine (2
// cores) showed when busy, so that the first tall capture of a process is planned safely; quicker
// captures bring the rate down a fifth of the way each.
//
// Tall captures take turns, one at a time, each planned once its turn has come, on its share of
// what is left: the budget left divided among it and the tall captures waiting behind it. Two at
// once on two cores each take about as long as both one after the other (Chromium's encoder and
// compositor serve all its pages), so neither could be planned: measured with a 8 s budget and
// two 1280x65535 captures at once, side by side one in six ran over the budget; in turns, the
// first took all that was left and the second, planned on almost nothing, ran over; with shares,
// none did (README "Tall and endless pages"). Small captures never wait for a tall one's turn;
// inside Chromium they would wait for its capture, so while they are being made tall captures
// pause between turns (pacing.ts).
//
// One model per process: the cost is the machine's, and every server in a process shares its CPU.

export type CostPart = 'png' | 'jpeg' | 'webp' | 'reencode';

/**
 * ms per megapixel before anything is learnt (1280 x 65535 px is 83.9 megapixels). Measured on a
 * 1280 x 16000 feed, load average 20 on 2 cores: png 135, jpeg (quality 80) 60, webp 287; re-encode 15-45.
 */
export const SEED_MS_PER_MEGAPIXEL: Readonly<Record<CostPart, number>> = { png: 100, jpeg: 50, webp: 200, reencode: 25 };
/** ms paid by a capture whatever its size (the CDP round trip, the resize for captureBeyondViewport), before anything is learnt. */
export const SEED_FIXED_MS: Readonly<Record<CostPart, number>> = { png: 60, jpeg: 60, webp: 60, reencode: 5 };
/** A tall capture: it takes turns with the others, and teaches the rate (below, the fixed part dominates, and is learnt instead). */
export const TALL_PIXELS = 4_000_000;
/** How far one observation moves what it teaches: up (slower than thought), down (quicker). */
const RISE = 0.5;
const FALL = 0.2;
/** A plan must fit with this factor to spare: on a shared machine one capture may be half as slow again as the last ones. */
export const SAFETY = 1.5;
/** The lossless re-encode only saves bytes: it is done only with twice that to spare. */
export const REENCODE_SAFETY = 2 * SAFETY;
/** Kept free after the capture, a margin for what the model cannot see. */
export const AFTER_CAPTURE_MS = 200;

const toward = (from: number, sample: number) => from + (sample > from ? RISE : FALL) * (sample - from);

export class CaptureCost {
  private readonly rates: Record<CostPart, number> = { ...SEED_MS_PER_MEGAPIXEL };
  private readonly fixed: Record<CostPart, number> = { ...SEED_FIXED_MS };
  /** Settles when the tall capture now running (and those queued before the last caller) is done. */
  private turn: Promise<void> = Promise.resolve();
  private waiters = 0;

  /** The current rate of a part, ms per megapixel. */
  rate(part: CostPart): number {
    return this.rates[part];
  }

  /** The current fixed part of a part, ms. */
  fixedMs(part: CostPart): number {
    return this.fixed[part];
  }

  /** Expected wall-clock ms of one part for `pixels` of output. */
  estimateMs(part: CostPart, pixels: number): number {
    return this.fixed[part] + (pixels / 1e6) * this.rates[part];
  }

  /** Whether a part for `pixels` fits, with the safety factor, in `ms`. */
  fits(part: CostPart, pixels: number, ms: number, safety = SAFETY): boolean {
    return this.estimateMs(part, pixels) * safety <= ms - AFTER_CAPTURE_MS;
  }

  /** The most pixels whose capture in `part` fits, with the safety factor, in `ms` (0 when none). */
  pixelsWithin(part: CostPart, ms: number): number {
    const usable = (ms - AFTER_CAPTURE_MS) / SAFETY - this.fixed[part];
    return usable <= 0 ? 0 : Math.floor((usable / this.rates[part]) * 1e6);
  }

  /** One observed capture part: `ms` of wall clock for `pixels` of output. */
  learn(part: CostPart, pixels: number, ms: number): void {
    if (!Number.isFinite(ms) || pixels <= 0) return;
    if (pixels >= TALL_PIXELS) {
      this.rates[part] = toward(this.rates[part], Math.max(0, ms - this.fixed[part]) / (pixels / 1e6));
    } else {
      this.fixed[part] = toward(this.fixed[part], Math.max(SEED_FIXED_MS[part] / 2, ms - (pixels / 1e6) * this.rates[part]));
    }
  }

  /** Tall captures waiting for their turn. */
  get waiting(): number {
    return this.waiters;
  }

  /** The share of `ms` a tall capture whose turn has come may plan on: the rest is for those waiting behind it. */
  share(ms: number): number {
    return ms / (1 + this.waiters);
  }

  /** Runs `work` (a whole tall capture: plan, capture, re-encode) when the tall captures before it are done. */
  async inTurn<T>(work: () => Promise<T>): Promise<T> {
    const before = this.turn;
    let done!: () => void;
    this.turn = new Promise<void>((resolve) => (done = resolve));
    this.waiters++;
    try {
      await before;
      this.waiters--;
      return await work();
    } finally {
      done();
    }
  }

  /** Runs one part of a capture and learns from how long it took. */
  async measure<T>(part: CostPart, pixels: number, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const out = await work();
    this.learn(part, pixels, performance.now() - started);
    return out;
  }

  /** What is known now (for the bench). */
  snapshot(): { msPerMegapixel: Record<CostPart, number>; fixedMs: Record<CostPart, number> } {
    return { msPerMegapixel: { ...this.rates }, fixedMs: { ...this.fixed } };
  }
}

/** This process's model, kept up to date by every capture (server/render/capture.ts). */
export const captureCost = new CaptureCost();
