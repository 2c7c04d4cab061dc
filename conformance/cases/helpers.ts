// Small constructors that keep the case files readable. They only build data.
import type { Expectation, GoldenSpec, Probe, Region } from '../model/model.ts';

export const RED: [number, number, number] = [0xe0, 0x20, 0x20];
export const GREEN: [number, number, number] = [0x20, 0xa0, 0x40];
export const BLUE: [number, number, number] = [0x20, 0x50, 0xd0];
export const YELLOW: [number, number, number] = [0xf0, 0xc0, 0x00];
export const WHITE: [number, number, number] = [0xff, 0xff, 0xff];
export const GREY: [number, number, number] = [0xee, 0xee, 0xee];
export const NAVY: [number, number, number] = [0x0f, 0x30, 0x57];
export const MAGENTA: [number, number, number] = [0xff, 0x00, 0xff];

/** The render budget (spec §4.1 rule 6, §8). */
export const RENDER_BUDGET_MS = 20_000;
/**
 * Upper bound of a response that the budget bounds: the budget plus slack for the exchange itself
 * and a busy machine. The only upper time bound the suite asserts: the spec states no other, so
 * no verdict depends on how fast a loaded machine renders.
 */
export const BUDGET_PLUS_SLACK_MS = RENDER_BUDGET_MS + 10_000;

/** A small viewport for cases where only the outcome matters, to keep the run quick. */
export const SMALL = { width: 320, height: 240 } as const;

export const box = (x: number, y: number, w: number, h: number): Region => ({ x, y, w, h });

/** A square probe region of side `s` centred on (cx, cy). */
export const around = (cx: number, cy: number, s = 20): Region => ({ x: Math.round(cx - s / 2), y: Math.round(cy - s / 2), w: s, h: s });

export const color = (region: Region, rgb: [number, number, number], label?: string, tolerance?: number): Probe => ({
  kind: 'color',
  region,
  rgb,
  ...(label ? { label } : {}),
  ...(tolerance !== undefined ? { tolerance } : {}),
});
export const absent = (region: Region, rgb: [number, number, number], label?: string): Probe => ({ kind: 'absent', region, rgb, ...(label ? { label } : {}) });
export const alpha = (region: Region, min: number, max: number, label?: string): Probe => ({ kind: 'alpha', region, min, max, ...(label ? { label } : {}) });

/** Probes of fixtures/pages/blocks.html at a w x h image (quadrant centres, avoiding the title). */
export function quadrants(w: number, h: number, tolerance?: number): Probe[] {
  const s = Math.max(4, Math.min(40, Math.floor(Math.min(w, h) / 10)));
  return [
    color(around(w / 4, h / 4, s), RED, 'top-left red', tolerance),
    color(around((3 * w) / 4, h / 4, s), GREEN, 'top-right green', tolerance),
    color(around(w / 4, (3 * h) / 4, s), BLUE, 'bottom-left blue', tolerance),
    color(around((3 * w) / 4, (3 * h) / 4, s), YELLOW, 'bottom-right yellow', tolerance),
  ];
}

/**
 * A golden with the default two-part tolerance: small per-pixel threshold, 0.5% or 2000 pixels,
 * whichever is smaller. `guards` says what it checks beyond the probes; text is masked (RUNNING.md
 * "Goldens": glyph rasterisation depends on launch flags, not on the spec).
 */
export const golden = (guards: string, over: Partial<Omit<GoldenSpec, 'guards'>> = {}): GoldenSpec => ({
  guards,
  threshold: 0.1,
  maxDiffPixels: 2000,
  maxDiffPixelRatio: 0.005,
  ...over,
});

/** 400 bad_request whose message names `field` (a regex source). */
export const badRequest = (field?: string): Expectation => ({ status: 400, error: 'bad_request', ...(field ? { message: field } : {}) });

export const png = (width: number, height: number, probes: Probe[] = [], extra: Partial<Expectation> = {}): Expectation => ({
  status: 200,
  image: { type: 'png', width, height },
  probes,
  ...extra,
});

export const html = (fixture: string, extra: Record<string, unknown> = {}) => ({ html: { $fixture: fixture }, ...extra });

/** The case with these tags added (for cases a helper builds: see Case.tags). */
export const tagged = <T extends { tags?: string[] }>(c: T, ...tags: string[]): T => ({ ...c, tags: [...(c.tags ?? []), ...tags] });
