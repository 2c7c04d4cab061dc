// The diff picture: the current picture faded to light grey (its layout stays readable), every
// differing pixel in solid red, masked areas tinted blue (left out, not unchanged), and each
// changed region outlined in magenta so that a change of a few pixels is found at a glance. The
// compared area's size; where the current picture has no pixels (the baseline was larger) the
// background is a darker grey.
import type { Diff, Rect, Rgba } from './diff.ts';

/** How much of the current picture shows through the grey (pixelmatch's `alpha`). */
const FADE = 0.3;
const RED = [255, 0, 0] as const;
const OUTLINE = [230, 0, 126] as const;
const NO_PIXELS = 200;
/** Outline width and its distance from the region, in pixels. */
const LINE = 2;
const GAP = 2;

function clampRect(r: Rect, W: number, H: number) {
  const x0 = Math.max(0, Math.floor(r.x)),
    y0 = Math.max(0, Math.floor(r.y));
  return { x0, y0, x1: Math.min(W, Math.ceil(r.x + r.width)), y1: Math.min(H, Math.ceil(r.y + r.height)) };
}

/** A pixel as one little-endian 32-bit word (RGBA bytes in memory order), as the typed views below read it. */
const word = (r: number, g: number, b: number) => ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;

/** The current picture's pixel (a word) faded to grey: luma (BT.601, as pixelmatch's grey) blended towards white by its alpha and FADE. */
function faded(p: number): number {
  const r = p & 255,
    g = (p >>> 8) & 255,
    b = (p >>> 16) & 255,
    a = p >>> 24;
  const luma = r * 0.29889531 + g * 0.58662247 + b * 0.11448223;
  const v = Math.round(255 + (luma - 255) * FADE * (a / 255));
  return word(v, v, v);
}

/** The diff picture of a comparison, as RGBA of the compared area's size. */
export function diffPicture(current: Rgba, d: Diff, masks: readonly Rect[] = []): Rgba {
  const W = d.width,
    H = d.height,
    cw = current.width;
  const data = new Uint8Array(W * H * 4);
  const out = new Uint32Array(data.buffer);
  const src = new Uint32Array(current.data.buffer, current.data.byteOffset, cw * current.height);
  const red = word(...RED),
    none = word(NO_PIXELS, NO_PIXELS, NO_PIXELS);
  const rowChanged = new Uint8Array(H);
  for (const [from, to] of d.bands) rowChanged.fill(1, from, to);
  const rows = Buffer.from(current.data.buffer, current.data.byteOffset, current.data.byteLength);
  const rowBytes = cw * 4;
  // Pages are mostly runs of one colour: a pixel like the one before it takes its grey, and a row
  // like the one above it (neither with a change) its row.
  let last = -1,
    lastGrey = 0;
  for (let y = 0; y < H; y++) {
    const o = y * W,
      s = y * cw,
      inside = y < current.height ? cw : 0;
    if (y > 0 && W === cw && inside && !rowChanged[y] && !rowChanged[y - 1] && rows.compare(rows, s * 4 - rowBytes, s * 4, s * 4, s * 4 + rowBytes) === 0) {
      out.copyWithin(o, o - W, o);
      continue;
    }
    for (let x = 0; x < W; x++) {
      if (d.changed[o + x] !== 0) out[o + x] = red;
      else if (x < inside) {
        const p = src[s + x]!;
        if (p !== last) {
          last = p;
          lastGrey = faded(p);
        }
        out[o + x] = lastGrey;
      } else out[o + x] = none;
    }
  }
  for (const m of masks) {
    const { x0, y0, x1, y1 } = clampRect(m, W, H);
    for (let y = y0; y < y1; y++) {
      for (let o = (y * W + x0) * 4, end = (y * W + x1) * 4; o < end; o += 4) {
        // towards blue, the grey still readable
        data[o] = data[o]! * 0.55;
        data[o + 1] = data[o + 1]! * 0.7;
      }
    }
  }
  for (const r of d.regions) {
    const box = { x: r.x - GAP - LINE, y: r.y - GAP - LINE, width: r.width + 2 * (GAP + LINE), height: r.height + 2 * (GAP + LINE) };
    const edges: Rect[] = [
      { x: box.x, y: box.y, width: box.width, height: LINE },
      { x: box.x, y: box.y + box.height - LINE, width: box.width, height: LINE },
      { x: box.x, y: box.y, width: LINE, height: box.height },
      { x: box.x + box.width - LINE, y: box.y, width: LINE, height: box.height },
    ];
    for (const e of edges) {
      const { x0, y0, x1, y1 } = clampRect(e, W, H);
      for (let y = y0; y < y1; y++) out.fill(word(...OUTLINE), y * W + x0, y * W + x1);
    }
  }
  return { width: W, height: H, data };
}
