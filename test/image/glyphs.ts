// Are the image's fonts there? A page of single characters, each in a cell of its own (Latin, CJK,
// emoji, and two code points no font has), judged by pixels. A font that is missing draws the
// same "tofu" box (or nothing) for every character it lacks, so: each Latin and CJK cell has ink,
// differs from the tofu cell and from the other cells (two CJK glyphs drawn as tofu would be
// identical); each emoji cell is in colour (the text is black: only a colour emoji font paints
// colour). The two unassigned code points are the control: the method sees their tofu as alike.
import type { Raw } from '../support/image.ts';

export const CELL = 80;
export const GLYPHS = [
  { name: 'Latin a', ch: 'a', kind: 'text' },
  { name: 'Latin Q', ch: 'Q', kind: 'text' },
  { name: 'CJK 漢', ch: '漢', kind: 'text' },
  { name: 'CJK 字', ch: '字', kind: 'text' },
  { name: 'kana あ', ch: 'あ', kind: 'text' },
  { name: 'Hangul 한', ch: '한', kind: 'text' },
  { name: 'emoji 😀', ch: '😀', kind: 'emoji' },
  { name: 'emoji 🚀', ch: '🚀', kind: 'emoji' },
  { name: 'tofu U+0378', ch: '\u0378', kind: 'tofu' },
  { name: 'tofu U+0379', ch: '\u0379', kind: 'tofu' },
] as const;

export const glyphPage = (): string =>
  `<!doctype html><meta charset="utf-8"><style>
  body { margin: 0; background: #fff; }
  span { display: inline-block; width: ${CELL}px; height: ${CELL}px; font: 56px/${CELL}px sans-serif; text-align: center; color: #000; overflow: hidden; vertical-align: top; }
  </style><body>${GLYPHS.map((g) => `<span>${g.ch}</span>`).join('')}</body>`;

export const glyphViewport = { width: CELL * GLYPHS.length, height: CELL };

interface Cell {
  name: string;
  kind: string;
  /** Pixels darker than mid-grey (ink). */
  ink: number;
  /** Pixels in colour: channels apart by more than 80. */
  colour: number;
  gray: Uint8Array;
}

function cells(img: Raw): Cell[] {
  return GLYPHS.map((g, i) => {
    const gray = new Uint8Array(CELL * CELL);
    let ink = 0;
    let colour = 0;
    for (let y = 0; y < CELL; y++) {
      for (let x = 0; x < CELL; x++) {
        const [r, gr, b] = img.at(i * CELL + x, y);
        const v = Math.round((r + gr + b) / 3);
        gray[y * CELL + x] = v;
        if (v < 128) ink++;
        if (Math.max(r, gr, b) - Math.min(r, gr, b) > 80) colour++;
      }
    }
    return { name: g.name, kind: g.kind, ink, colour, gray };
  });
}

/** Pixels whose grey level differs by more than 64. */
function differing(a: Cell, b: Cell): number {
  let n = 0;
  for (let i = 0; i < a.gray.length; i++) if (Math.abs(a.gray[i]! - b.gray[i]!) > 64) n++;
  return n;
}

const MIN_INK = 60; // a 56 px glyph has hundreds of ink pixels; a stray antialiased edge has a few
const MIN_DIFF = 60;
const MIN_COLOUR = 300;

/** What the capture fails to show (empty when every glyph is drawn), and a summary of the cells. */
export function judgeGlyphs(img: Raw): { failures: string[]; summary: string } {
  const cs = cells(img);
  const failures: string[] = [];
  const [tofuA, tofuB] = cs.filter((c) => c.kind === 'tofu') as [Cell, Cell];
  if (differing(tofuA, tofuB) > MIN_DIFF)
    failures.push(`control: the two unassigned code points drew differently (${differing(tofuA, tofuB)} px), so tofu is not recognisable here`);
  const drawn = cs.filter((c) => c.kind !== 'tofu');
  for (const c of drawn) {
    const vsTofu = differing(c, tofuA);
    if (c.kind === 'text' && c.ink < MIN_INK) failures.push(`${c.name}: no ink (${c.ink} px)`);
    if (c.kind === 'emoji' && c.colour < MIN_COLOUR) failures.push(`${c.name}: not in colour (${c.colour} colour px): no colour emoji font`);
    if (vsTofu < MIN_DIFF) failures.push(`${c.name}: drawn like the missing-glyph box (${vsTofu} px differ)`);
  }
  for (let i = 0; i < drawn.length; i++) {
    for (let j = i + 1; j < drawn.length; j++) {
      const d = differing(drawn[i]!, drawn[j]!);
      if (d < MIN_DIFF) failures.push(`${drawn[i]!.name} and ${drawn[j]!.name} look alike (${d} px differ): tofu`);
    }
  }
  const summary = drawn.map((c) => `${c.name.split(' ')[1]} ${c.kind === 'emoji' ? `${c.colour} colour px` : `${c.ink} ink px`}`).join(', ');
  return { failures, summary };
}
