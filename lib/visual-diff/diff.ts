// The comparison itself, on decoded pictures (RGBA, 8 bits per channel): which pixels differ
// (pixelmatch's perceptual YIQ distance with its anti-aliasing detection), outside the masked
// rectangles, grouped into regions; and the diff picture, the current picture faded to grey with
// every differing pixel in red, masked areas tinted blue and each region outlined.
//
// Fast where pictures are alike: rows whose bytes are equal in both pictures are never looked at
// pixel by pixel (a byte comparison, memcmp), so the cost follows the changed rows, not the size.
// pixelmatch runs on bands of differing rows with two equal rows of context on each side, which
// is what its anti-aliasing test reads (a pixel's neighbours and theirs), so the count is the one
// pixelmatch gives for the whole picture.
//
// Pictures of different sizes are compared where they overlap (top left corners together); every
// pixel that only one of them has counts as differing. A size change is a difference, reported
// with both sizes, never an error.
import pixelmatch from 'pixelmatch';
import { changedRegions, type Rect } from './regions.ts';

export type { Rect } from './regions.ts';

/** The pixelmatch this comparator is built on, pinned in package.json: it decides which pixels differ. */
export const PIXELMATCH_VERSION = '7.2.0';

export interface Rgba {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel, row-major. */
  data: Uint8Array;
}

export interface DiffOptions {
  /** Per-pixel colour distance, 0 to 1, below which two pixels count as the same (pixelmatch's threshold). */
  threshold: number;
  /** Count pixels pixelmatch judges anti-aliasing (edges of text and shapes) as differences. */
  includeAA: boolean;
  /** Rectangles left out of the comparison, in pixels of the compared area (both pictures' top left corners together). */
  masks?: readonly Rect[];
}

export interface Size {
  width: number;
  height: number;
}

export interface Diff {
  /** The compared area: the larger width and the larger height of the two pictures. */
  width: number;
  height: number;
  current: Size;
  baseline: Size;
  /** Differing pixels outside the masks. */
  diffPixels: number;
  /** diffPixels over the compared area's pixels. */
  ratio: number;
  /** The changed regions (at most MAX_REGIONS, the largest, in reading order) and how many there were. */
  regions: Rect[];
  regionCount: number;
  /** One 32-bit word per pixel of the compared area, non-zero where the pixel differs. */
  changed: Uint32Array;
  /** Half-open row ranges outside which no pixel differs. */
  bands: Array<[number, number]>;
}

/** Equal rows on each side of a band of differing rows: what pixelmatch's anti-aliasing test reads. */
const CONTEXT_ROWS = 2;

const view = (a: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** pixelmatch reads pixels as 32-bit words: it needs 4-byte aligned views. */
const aligned = (a: Uint8Array): Uint8Array => (a.byteOffset % 4 === 0 ? a : new Uint8Array(a));

/** The top left width x height of a picture, as a picture of its own. */
function crop(img: Rgba, width: number, height: number): Uint8Array {
  if (img.width === width) return img.data.subarray(0, width * height * 4);
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) out.set(img.data.subarray(y * img.width * 4, (y * img.width + width) * 4), y * width * 4);
  return out;
}

/** Half-open row ranges where the two pictures' bytes differ, widened by CONTEXT_ROWS and merged. */
export function differingBands(a: Uint8Array, b: Uint8Array, width: number, height: number): Array<[number, number]> {
  const A = view(a),
    B = view(b);
  const row = width * 4;
  const bands: Array<[number, number]> = [];
  for (let y = 0; y < height; y++) {
    if (A.compare(B, y * row, (y + 1) * row, y * row, (y + 1) * row) === 0) continue;
    const from = Math.max(0, y - CONTEXT_ROWS);
    const to = Math.min(height, y + 1 + CONTEXT_ROWS);
    const last = bands[bands.length - 1];
    if (last && from <= last[1]) last[1] = to;
    else bands.push([from, to]);
  }
  return bands;
}

/** Marks (in `changed`, width w) the differing pixels of two pictures of the same size w x h. */
function markDiffering(a: Uint8Array, b: Uint8Array, w: number, h: number, changed: Uint32Array, opts: DiffOptions): Array<[number, number]> {
  const bands = differingBands(a, b, w, h);
  const out = new Uint8Array(changed.buffer, changed.byteOffset, changed.byteLength);
  const row = w * 4;
  for (const [from, to] of bands) {
    pixelmatch(a.subarray(from * row, to * row), b.subarray(from * row, to * row), out.subarray(from * row, to * row), w, to - from, {
      threshold: opts.threshold,
      includeAA: opts.includeAA,
      diffMask: true,
    });
  }
  return bands;
}

/** Compares the current picture with the baseline. */
export function diffPictures(current: Rgba, baseline: Rgba, opts: DiffOptions): Diff {
  const W = Math.max(current.width, baseline.width);
  const H = Math.max(current.height, baseline.height);
  const ow = Math.min(current.width, baseline.width);
  const oh = Math.min(current.height, baseline.height);
  const changed = new Uint32Array(W * H);
  let bands: Array<[number, number]>;
  if (W === ow && H === oh) {
    bands = markDiffering(aligned(current.data), aligned(baseline.data), W, H, changed, opts);
  } else {
    // The overlap, compared as a picture of its own, then placed in the compared area.
    const overlap = new Uint32Array(ow * oh);
    markDiffering(aligned(crop(current, ow, oh)), aligned(crop(baseline, ow, oh)), ow, oh, overlap, opts);
    for (let y = 0; y < oh; y++) changed.set(overlap.subarray(y * ow, (y + 1) * ow), y * W);
    // What only one picture has: the right strip of the overlap's rows, the rows below it.
    const wider = current.width > baseline.width ? current : baseline;
    const taller = current.height > baseline.height ? current : baseline;
    for (let y = 0; y < oh; y++) if (wider.width > ow) changed.fill(1, y * W + ow, y * W + wider.width);
    for (let y = oh; y < H; y++) changed.fill(1, y * W, y * W + taller.width);
    bands = [[0, H]];
  }
  for (const m of opts.masks ?? []) {
    const x0 = Math.max(0, Math.floor(m.x)),
      x1 = Math.min(W, Math.ceil(m.x + m.width));
    const y0 = Math.max(0, Math.floor(m.y)),
      y1 = Math.min(H, Math.ceil(m.y + m.height));
    if (x1 > x0) for (let y = y0; y < y1; y++) changed.fill(0, y * W + x0, y * W + x1);
  }
  const found = changedRegions(changed, W, H, bands);
  return {
    width: W,
    height: H,
    current: { width: current.width, height: current.height },
    baseline: { width: baseline.width, height: baseline.height },
    diffPixels: found.pixels,
    ratio: found.pixels / (W * H),
    regions: found.regions,
    regionCount: found.count,
    changed,
    bands,
  };
}
