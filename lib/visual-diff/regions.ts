// The changed regions of a diff: differing pixels grouped into rectangles a person (or a
// dashboard) can point at. Pixels are binned into square cells; cells that hold a differing pixel
// and touch (8 neighbours) form one region, whose box is the exact bounds of its pixels. So
// changes less than about one cell apart (a line of text, a button and its label) are one region,
// and a changed picture of 1280x10000 is grouped in one pass over its differing rows.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Cell side in pixels: changes closer than this are one region. */
export const REGION_CELL = 16;
/** At most this many regions are reported (the largest); the count says how many there were. */
export const MAX_REGIONS = 50;

export interface Regions {
  /** The largest MAX_REGIONS regions, in reading order (top to bottom, then left to right). */
  regions: Rect[];
  /** How many regions there were in all. */
  count: number;
  /** How many pixels are set. */
  pixels: number;
}

/**
 * Regions of the set pixels of `changed` (one 32-bit word per pixel, non-zero = changed), looking
 * only at the rows in `bands` (half-open [from, to) row ranges; rows outside them have no change).
 */
export function changedRegions(changed: Uint32Array, width: number, height: number, bands: ReadonlyArray<readonly [number, number]> = [[0, height]]): Regions {
  const cols = Math.ceil(width / REGION_CELL);
  const rows = Math.ceil(height / REGION_CELL);
  // Per cell: min x, min y, max x, max y of its changed pixels (-1 = none).
  const box = new Int32Array(cols * rows * 4).fill(-1);
  const used: number[] = [];
  let pixels = 0;
  for (const [from, to] of bands) {
    for (let y = from; y < to; y++) {
      const row = y * width;
      const cy = (y / REGION_CELL) | 0;
      for (let x = 0; x < width; x++) {
        if (changed[row + x] === 0) continue;
        pixels++;
        const c = (cy * cols + ((x / REGION_CELL) | 0)) * 4;
        if (box[c] === -1) {
          box.set([x, y, x, y], c);
          used.push(c / 4);
        } else {
          if (x < box[c]!) box[c] = x;
          if (x > box[c + 2]!) box[c + 2] = x;
          box[c + 3] = y; // rows are scanned in order
        }
      }
    }
  }
  // Connected cells, by a flood over the 8 neighbours.
  const seen = new Uint8Array(cols * rows);
  const found: Rect[] = [];
  const stack: number[] = [];
  for (const start of used) {
    if (seen[start]) continue;
    seen[start] = 1;
    stack.push(start);
    let x0 = Infinity,
      y0 = Infinity,
      x1 = -1,
      y1 = -1;
    while (stack.length) {
      const cell = stack.pop()!;
      const c = cell * 4;
      x0 = Math.min(x0, box[c]!);
      y0 = Math.min(y0, box[c + 1]!);
      x1 = Math.max(x1, box[c + 2]!);
      y1 = Math.max(y1, box[c + 3]!);
      const cx = cell % cols,
        cy = (cell / cols) | 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = cx + dx,
            ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
          const n = ny * cols + nx;
          if (seen[n] || box[n * 4] === -1) continue;
          seen[n] = 1;
          stack.push(n);
        }
      }
    }
    found.push({ x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 });
  }
  const kept = found.length > MAX_REGIONS ? [...found].sort((a, b) => b.width * b.height - a.width * a.height).slice(0, MAX_REGIONS) : found;
  return { regions: kept.sort((a, b) => a.y - b.y || a.x - b.x), count: found.length, pixels };
}
