// The ONE fixture page of the pairwise cases, as data: horizontal strips of known colour at known
// heights, each the full width of the window, so that the page lays out the same in any viewport
// from 1 px to 10000 px wide and every oracle is arithmetic on this table (oracle.ts). The page
// itself, fixtures/pages/pairwise.html, is written from it (write-fixture.ts; a self-test fails
// when the file is out of date), so no position or colour is spelled twice.
//
// Every edge lies on a multiple of 10 CSS px, so that at each scale the generator uses (0.1 to 4)
// every edge falls on a whole device pixel and nothing is blended across it.
import { BLUE, GREEN, MAGENTA, NAVY, RED, WHITE, YELLOW } from '../cases/helpers.ts';

export type Rgb = [number, number, number];

/** What a strip shows, from what the request asked for (oracle.ts decides which applies). */
export type StripName = 'head' | 'lid' | 'late' | 'clear' | 'scheme' | 'agent' | 'clock' | 'script' | 'action' | `tail-${number}`;

export interface Strip {
  name: StripName;
  /** Top and bottom in CSS px, in the page. */
  y0: number;
  y1: number;
  /** Its own colour; null: no background (the page background shows, or transparency). */
  rgb: Rgb | null;
}

export const FIXTURE_NAME = 'pairwise';
export const FIXTURE_PATH = `/pages/${FIXTURE_NAME}.html`;

/** The page's own height in CSS px (the body's); a window taller than this shows page background below. */
export const PAGE_HEIGHT = 1000;

/** The element `selector` captures: the card, all strips from `lid` to `action`. */
export const CARD = { selector: '#card', y0: 40, y1: 440 } as const;

/**
 * Other selectors of the same card (the properties profile picks among them): another element
 * type, a class and an attribute in other scripts, a child combinator.
 */
export const CARD_SELECTORS = [CARD.selector, 'div#card', '.карточка', '[data-名前="カード"]', 'body > #card', '#card:not(.nope)'] as const;
const CARD_ATTRIBUTES = 'class="карточка" data-名前="カード"';

/** Hidden by hideSelectors: a box exactly over the `lid` strip (absolutely placed: hiding it moves nothing). */
export const LID = { selector: '#lid', rgb: MAGENTA } as const;

/**
 * Added by a timer this long after the page's script runs (waitForSelector waits for it). Longer
 * than the spec's 500 ms idle window with room to spare, so a capture that skips the wait comes
 * before it.
 */
export const LATE = { selector: '#late', rgb: GREEN, afterMs: 1500 } as const;

/** The User-Agent whose exact value turns the `agent` strip green (extension `userAgent`). */
export const AGENT = 'PairwiseAgent/1.0 (screenshot-conformance)';

/** The key whose press (extension `actions`: `[{press: ACTION_KEY}]`) turns the `action` strip green. */
export const ACTION_KEY = 'Enter';

/** The year virtual time starts in (extension `deterministic`): the `clock` strip is green in it. */
export const VIRTUAL_YEAR = 2025;

const TAIL_COLOURS: Rgb[] = [BLUE, YELLOW, NAVY, GREEN, BLUE, YELLOW, NAVY];
const TAIL_TOP = CARD.y1;
const TAIL_BAND = (PAGE_HEIGHT - TAIL_TOP) / TAIL_COLOURS.length;

/** The strips from top to bottom, as the page draws them without any option (the defaults). */
export const STRIPS: readonly Strip[] = [
  { name: 'head', y0: 0, y1: 40, rgb: RED },
  { name: 'lid', y0: 40, y1: 90, rgb: BLUE }, // under the lid
  { name: 'late', y0: 90, y1: 140, rgb: YELLOW }, // under the late element
  { name: 'clear', y0: 140, y1: 190, rgb: null },
  { name: 'scheme', y0: 190, y1: 240, rgb: GREEN }, // light scheme; dark: SCHEME_DARK
  { name: 'agent', y0: 240, y1: 290, rgb: RED }, // GREEN with the AGENT user agent
  { name: 'clock', y0: 290, y1: 340, rgb: RED }, // GREEN in VIRTUAL_YEAR
  { name: 'script', y0: 340, y1: 390, rgb: RED }, // GREEN after the SCRIPT ran (extension js)
  { name: 'action', y0: 390, y1: 440, rgb: RED }, // GREEN after ACTION_KEY was pressed (extension actions)
  ...TAIL_COLOURS.map((rgb, i): Strip => ({ name: `tail-${i}`, y0: TAIL_TOP + i * TAIL_BAND, y1: TAIL_TOP + (i + 1) * TAIL_BAND, rgb })),
];

export const SCHEME_DARK: Rgb = BLUE;
/** The colour a signal strip turns when its condition holds. */
export const SIGNAL_ON: Rgb = GREEN;
/** What the page shows where nothing paints, without omitBackground (the browser's canvas). */
export const CANVAS: Rgb = WHITE;

export const stripNamed = (name: StripName): Strip => {
  const s = STRIPS.find((x) => x.name === name);
  if (!s) throw new Error(`no strip ${name}`);
  return s;
};

const hex = (rgb: Rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** What the extension `js` runs: it turns the `script` strip green. */
export const SCRIPT = `document.getElementById('s-script').style.background = '${hex(SIGNAL_ON)}';`;

/** The page, from the table above (written to fixtures/pages/pairwise.html by write-fixture.ts). */
export function fixtureHtml(): string {
  const card = STRIPS.filter((s) => s.y0 >= CARD.y0 && s.y1 <= CARD.y1);
  const page = STRIPS.filter((s) => !card.includes(s));
  const css = [
    'html,body{margin:0;padding:0}',
    `body{position:relative;height:${PAGE_HEIGHT}px}`,
    '.s{position:absolute;left:0;right:0}',
    `${CARD.selector}{position:absolute;left:0;right:0;top:${CARD.y0}px;height:${CARD.y1 - CARD.y0}px}`,
    ...page.map((s) => `#s-${s.name}{top:${s.y0}px;height:${s.y1 - s.y0}px;background:${hex(s.rgb!)}}`),
    ...card.map((s) => `#s-${s.name}{top:${s.y0 - CARD.y0}px;height:${s.y1 - s.y0}px${s.rgb ? `;background:${hex(s.rgb)}` : ''}}`),
    `${LID.selector},${LATE.selector}{position:absolute;left:0;right:0;height:100%;top:0}`,
    `${LID.selector}{background:${hex(LID.rgb)}}`,
    `${LATE.selector}{background:${hex(LATE.rgb)}}`,
    `@media (prefers-color-scheme: dark){#s-scheme{background:${hex(SCHEME_DARK)}}}`,
  ].join('\n');
  const div = (s: Strip) => `<div class="s" id="s-${s.name}">${s.name === 'lid' ? `<div id="${LID.selector.slice(1)}"></div>` : ''}</div>`;
  const script = [
    `if (navigator.userAgent === ${JSON.stringify(AGENT)}) document.getElementById('s-agent').style.background = '${hex(SIGNAL_ON)}';`,
    `if (new Date().getUTCFullYear() === ${VIRTUAL_YEAR}) document.getElementById('s-clock').style.background = '${hex(SIGNAL_ON)}';`,
    `document.addEventListener('keydown', function (e) { if (e.key === ${JSON.stringify(ACTION_KEY)}) document.getElementById('s-action').style.background = '${hex(SIGNAL_ON)}'; });`,
    `setTimeout(function () { var el = document.createElement('div'); el.id = '${LATE.selector.slice(1)}'; document.getElementById('s-late').appendChild(el); }, ${LATE.afterMs});`,
  ].join('\n');
  return [
    '<!doctype html>',
    '<!-- Written by conformance/pairwise/write-fixture.ts from conformance/pairwise/fixture.ts (the geometry the pairwise',
    '     oracles compute from); edit that file, not this one. Full-width strips of known colour at known heights. -->',
    `<html><head><meta charset="utf-8"><title>${FIXTURE_NAME}</title><style>`,
    css,
    '</style></head><body>',
    ...page.map(div),
    `<div id="${CARD.selector.slice(1)}" ${CARD_ATTRIBUTES}>`,
    ...card.map(div),
    '</div>',
    `<script>\n${script}\n</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
