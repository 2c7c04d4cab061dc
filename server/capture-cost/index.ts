// What a capture costs on this machine, so that the capture step can be planned to end before the
// render budget does (spec §4.1 rule 6): wall-clock milliseconds per megapixel of output, for each
// part of a capture, learnt from the captures the service makes.
//
//   png | jpeg | webp   Page.captureScreenshot in that format: raster, Chromium's encoder, the
//                       base64 transfer over CDP (for PNG: Chromium's fast encoder)
//   reencode            the lossless PNG re-encode by sharp (server/render/capture.ts compactPng)
//
// A capture of P pixels is expected to take FIXED_MS + P / 1e6 x rate. Wall clock, not CPU time,
// on purpose: when the machine is shared (two renders at once on two cores, another job beside
// them) a capture takes longer, and the rate learnt from the last captures says so. The rate rises
// fast and falls slowly (a capture that turned out slower than planned matters more than one that
// was quicker), and is learnt only from captures of at least LEARN_MIN_PIXELS, where the
// per-pixel part dominates. Before the first such capture the seeds apply: measured on the
// reference machine (2 cores, two tall captures at once; README "Tall and endless pages").
//
// One model per process: the rate is the machine's, and every server in a process shares its CPU.

export type CostPart = 'png' | 'jpeg' | 'webp' | 'reencode';

/** ms per megapixel before anything is learnt (1280 x 65535 px is 83.9 megapixels). */
export const SEED_MS_PER_MEGAPIXEL: Readonly<Record<CostPart, number>> = { png: 70, jpeg: 50, webp: 120, reencode: 20 };
/** Paid by every capture whatever its size: the CDP round trip, layout metrics, the resize for captureBeyondViewport. */
export const FIXED_MS: Readonly<Record<CostPart, number>> = { png: 60, jpeg: 60, webp: 60, reencode: 5 };
/** Smaller captures teach nothing about the rate: their fixed part dominates. */
export const LEARN_MIN_PIXELS = 4_000_000;
/** How far one observation moves the rate: up (slower than thought), down (quicker). */
const RISE = 0.5;
const FALL = 0.2;
/** A plan must fit with this factor to spare: a rate is a mean, and on a shared machine one capture may be half as slow again. */
export const SAFETY = 1.5;
/** Kept free after the capture for what follows it in the budget (the response, the ledger). */
export const AFTER_CAPTURE_MS = 200;

export class CaptureCost {
  private readonly rates: Record<CostPart, number> = { ...SEED_MS_PER_MEGAPIXEL };

  /** The current rate of a part, ms per megapixel. */
  rate(part: CostPart): number {
    return this.rates[part];
  }

  /** Expected wall-clock ms of one part for `pixels` of output. */
  estimateMs(part: CostPart, pixels: number): number {
    return FIXED_MS[part] + (pixels / 1e6) * this.rates[part];
  }

  /** Whether a part for `pixels` fits, with the safety factor, in `ms`. */
  fits(part: CostPart, pixels: number, ms: number): boolean {
    return this.estimateMs(part, pixels) * SAFETY <= ms - AFTER_CAPTURE_MS;
  }

  /** The most pixels whose capture in `part` fits, with the safety factor, in `ms` (0 when none). */
  pixelsWithin(part: CostPart, ms: number): number {
    const usable = (ms - AFTER_CAPTURE_MS) / SAFETY - FIXED_MS[part];
    return usable <= 0 ? 0 : Math.floor((usable / this.rates[part]) * 1e6);
  }

  /** One observed capture: `ms` of wall clock for `pixels` of output. */
  learn(part: CostPart, pixels: number, ms: number): void {
    if (pixels < LEARN_MIN_PIXELS || !Number.isFinite(ms)) return;
    const sample = Math.max(0, ms - FIXED_MS[part]) / (pixels / 1e6);
    const r = this.rates[part];
    this.rates[part] = r + (sample > r ? RISE : FALL) * (sample - r);
  }

  /** Runs one part of a capture and learns from how long it took. */
  async measure<T>(part: CostPart, pixels: number, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const out = await work();
    this.learn(part, pixels, performance.now() - started);
    return out;
  }

  /** The rates now (for logs and the bench). */
  snapshot(): Record<CostPart, number> {
    return { ...this.rates };
  }
}

/** This process's model, kept up to date by every capture (server/render/capture.ts). */
export const captureCost = new CaptureCost();
