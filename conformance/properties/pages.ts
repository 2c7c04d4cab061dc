// Pages drawn for the relations (relations.ts): a window of drawn size with blocks of drawn colours
// on no background, each block absolutely placed in a cell of its own (so that hiding one moves
// no other), with a gradient in some for a lossy encoder to work on. Their geometry is known, so
// a relation can say where the page has a background and where a hidden block was; no text (its
// rasterisation, and its anti-aliased edges against a transparent background, are the engine's).
import fc from 'fast-check';

export interface Block {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
  rgb: [number, number, number];
  /** A second colour: the block is a diagonal gradient from rgb to this. */
  to?: [number, number, number];
}

export interface DrawnPage {
  width: number;
  height: number;
  blocks: Block[];
}

/** Cells per side of the grid the blocks sit in: at most 9 blocks. */
const GRID = 3;
/** Channels stay below this, so that no block is the white the page shows where it has no background. */
const CHANNEL_MAX = 200;

const channel = fc.integer({ min: 0, max: CHANNEL_MAX });
const rgb = fc.tuple(channel, channel, channel);

/** A page of `width` x `height` CSS px (multiples of 10: every edge a whole device pixel at the drawn scales). */
export function drawnPage(o: { minSide?: number; maxSide?: number } = {}): fc.Arbitrary<DrawnPage> {
  const side = fc.integer({ min: (o.minSide ?? 60) / 10, max: (o.maxSide ?? 300) / 10 }).map((n) => n * 10);
  const cell = fc.record({
    on: fc.boolean(),
    // fractions of the cell, in tenths: the block's edges stay on the 10 px grid
    x: fc.integer({ min: 0, max: 3 }),
    y: fc.integer({ min: 0, max: 3 }),
    w: fc.integer({ min: 4, max: 7 }),
    h: fc.integer({ min: 4, max: 7 }),
    rgb,
    to: fc.option(rgb, { nil: undefined }),
  });
  return fc.record({ width: side, height: side, cells: fc.array(cell, { minLength: GRID * GRID, maxLength: GRID * GRID }) }).map(({ width, height, cells }) => {
    const cw = Math.floor(width / GRID / 10) * 10;
    const ch = Math.floor(height / GRID / 10) * 10;
    const blocks = cells.flatMap((c, i) => {
      if (!c.on && i !== 4) return []; // the middle cell always holds one: no page is empty
      // at least 10 px: the smallest cell (20 px) still holds its block
      const w = Math.max(10, Math.floor((cw * c.w) / 100) * 10);
      const h = Math.max(10, Math.floor((ch * c.h) / 100) * 10);
      const x = (i % GRID) * cw + Math.floor((cw * c.x) / 100) * 10;
      const y = Math.floor(i / GRID) * ch + Math.floor((ch * c.y) / 100) * 10;
      return [{ id: `b${i}`, x, y, w, h, rgb: c.rgb, ...(c.to ? { to: c.to } : {}) }];
    });
    return { width, height, blocks };
  });
}

const css = (c: [number, number, number]) => `rgb(${c.join(',')})`;

/** The page's markup: nothing but the blocks, on no background. */
export function pageHtml(p: DrawnPage): string {
  const blocks = p.blocks
    .map((b) => {
      const fill = b.to ? `linear-gradient(135deg,${css(b.rgb)},${css(b.to)})` : css(b.rgb);
      return `<div id="${b.id}" style="left:${b.x}px;top:${b.y}px;width:${b.w}px;height:${b.h}px;background:${fill}"></div>`;
    })
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;width:${p.width}px;height:${p.height}px;overflow:hidden}div{position:absolute}</style></head><body>${blocks}</body></html>`;
}

/** Whether a CSS pixel (x, y) of the page lies inside one of these blocks. */
export const inside = (blocks: readonly Block[], x: number, y: number) => blocks.some((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h);
