// The value classes of the spec's capture options (spec §2.1, §2.2, §8) that the pairwise cases
// combine, the boundaries included, and the constraints between them, each with its reason. A
// value class writes itself into a request body and reads itself back from one (so that
// `--coverage` counts the pairs of whatever cases it is given, an export's too). The extension
// fields' classes are data of the same shape (extension-values.ts).
import type { Constraint, Value } from './covering.ts';
import { FIXTURE_NAME, FIXTURE_PATH, LATE, LID, CARD } from './fixture.ts';
import { DEFAULT_SCALE, frameOf, outputOf, whole, type Shape } from './frame.ts';

export type Body = Record<string, unknown>;

export interface FieldValue<T> extends Value {
  /** What the value means to the oracle. */
  value: T;
  /** Spec anchors (rules.ts ids) a case holding this value checks. */
  rules: readonly string[];
  /** A few words for the case's MUST sentence; null says nothing (a default). */
  words: string | null;
}

export interface Param<T = unknown> {
  name: string;
  values: readonly FieldValue<T>[];
  /** Writes a value into a request body (a value meaning "not sent" writes nothing). */
  write(body: Body, v: T): void;
  /** The body paths this parameter writes: how a body is classified back (classify.ts). */
  paths: readonly (readonly string[])[];
  /** Extension field (the `extensions` profile's `Case.fields`); spec fields have none. */
  field?: string;
}

const v = <T>(id: string, value: T, rules: readonly string[], words: string | null, cost = 0): FieldValue<T> => ({ id, value, rules, words, cost });

const viewportOf = (b: Body): Body => (b.viewport ??= {}) as Body;

export type Source = 'html' | 'url';
export type Format = 'png' | 'jpeg' | 'webp';
export type WaitUntil = 'load' | 'networkidle0' | 'networkidle2';

const source: Param<Source> = {
  name: 'source',
  values: [v('html', 'html', ['2.1/html'], null), v('url', 'url', ['2.1/url'], 'the page by url', 1)],
  write: (b, s) => (s === 'html' ? (b.html = { $fixture: FIXTURE_NAME }) : (b.url = { $fixtureUrl: FIXTURE_PATH })),
  paths: [['html'], ['url']],
};

/** The viewport's edges are the spec's bounds (§2.2, §8: 1 to 10000); the other side stays small. */
const viewport: Param<{ width: number; height: number } | null> = {
  name: 'viewport',
  values: [
    v('small', { width: 200, height: 360 }, ['2.2/exact-frame'], null),
    v('min-width', { width: 1, height: 360 }, ['2.2/bounds', '8/viewport-size'], 'a 1 px wide viewport'),
    v('min-height', { width: 200, height: 1 }, ['2.2/bounds', '8/viewport-size'], 'a 1 px tall viewport'),
    v('max-width', { width: 10000, height: 10 }, ['2.2/bounds', '8/viewport-size'], 'a 10000 px wide viewport', 2),
    v('max-height', { width: 10, height: 10000 }, ['2.2/bounds', '8/viewport-size'], 'a 10000 px tall viewport', 2),
    v('default', null, ['2.1/viewport-default'], 'the default viewport', 1),
  ],
  write: (b, vp) => {
    if (vp) Object.assign(viewportOf(b), vp);
  },
  paths: [
    ['viewport', 'width'],
    ['viewport', 'height'],
  ],
};

const scale: Param<number | null> = {
  name: 'scale',
  values: [
    v('default', null, ['8/scale'], null),
    v('0.1', 0.1, ['2.2/bounds', '8/scale'], 'scale 0.1'),
    v('1', 1, ['8/scale'], 'scale 1'),
    v('2', 2, ['2.2/scale'], 'scale 2', 1),
    v('4', 4, ['2.2/bounds', '8/scale'], 'scale 4', 2),
  ],
  write: (b, s) => {
    if (s !== null) viewportOf(b).deviceScaleFactor = s;
  },
  paths: [['viewport', 'deviceScaleFactor']],
};

const format: Param<Format | null> = {
  name: 'format',
  values: [
    v('default', null, ['2.1/format'], null),
    v('png', 'png', ['2.1/format', '2.3/content-type'], 'format png'),
    v('jpeg', 'jpeg', ['2.1/format', '2.3/content-type'], 'format jpeg'),
    v('webp', 'webp', ['2.1/format', '2.3/content-type'], 'format webp'),
  ],
  write: (b, f) => {
    if (f) b.format = f;
  },
  paths: [['format']],
};

const quality: Param<number | null> = {
  name: 'quality',
  values: [v('none', null, [], null), v('1', 1, ['2.1/quality', '8/quality'], 'quality 1'), v('100', 100, ['2.1/quality', '8/quality'], 'quality 100')],
  write: (b, q) => {
    if (q !== null) b.quality = q;
  },
  paths: [['quality']],
};

const flag = (name: string, on: unknown, rules: readonly string[], words: string, cost = 0): Param<boolean> => ({
  name,
  values: [v('off', false, [], null), v('on', true, rules, words, cost)],
  write: (b, x) => {
    if (x) b[name] = on;
  },
  paths: [[name]],
});

const fullPage = flag('fullPage', true, ['2.1/fullPage', '4.1/rule-1', '1/capture-modes'], 'fullPage', 1);
const selector = flag('selector', CARD.selector, ['2.1/selector', '4.1/rule-2', '1/capture-modes'], `selector ${CARD.selector}`);
const omitBackground = flag('omitBackground', true, ['2.1/omitBackground'], 'omitBackground');
const waitForSelector = flag('waitForSelector', LATE.selector, ['2.1/waitForSelector', '4.1/rule-6-wait'], `waitForSelector ${LATE.selector}`, 3);
const blockAds = flag('blockAds', true, ['2.1/blockAds'], 'blockAds');

const hideSelectors: Param<string[] | null> = {
  name: 'hideSelectors',
  values: [
    v('none', null, [], null),
    v('lid', [LID.selector], ['2.1/hideSelectors', '4.1/rule-4-hideSelectors'], `hideSelectors [${LID.selector}]`),
    v(
      'lid+root',
      ['html', 'body', LID.selector],
      ['2.1/hideSelectors', '4.1/rule-4-hideSelectors', '2.1/hideSelectors-root'],
      `hideSelectors [html, body, ${LID.selector}]`,
    ),
  ],
  write: (b, h) => {
    if (h) b.hideSelectors = h;
  },
  paths: [['hideSelectors']],
};

const waitUntil: Param<WaitUntil | null> = {
  name: 'waitUntil',
  values: [
    v('default', null, ['2.1/waitUntil'], null),
    v('load', 'load', ['2.1/waitUntil', '4.1/rule-5-load'], 'waitUntil load'),
    v('networkidle0', 'networkidle0', ['2.1/waitUntil', '4.1/rule-5-networkidle0'], 'waitUntil networkidle0'),
    v('networkidle2', 'networkidle2', ['2.1/waitUntil', '4.1/rule-5-networkidle2'], 'waitUntil networkidle2'),
  ],
  write: (b, w) => {
    if (w) b.waitUntil = w;
  },
  paths: [['waitUntil']],
};

const blockCookieBanners: Param<boolean> = {
  name: 'blockCookieBanners',
  values: [v('default', true, [], null), v('off', false, ['2.1/blockCookieBanners'], 'blockCookieBanners false')],
  write: (b, x) => {
    if (!x) b.blockCookieBanners = false;
  },
  paths: [['blockCookieBanners']],
};

/** The spec's capture options, in the order a case's sentence names them. */
export const SPEC_PARAMS = {
  source,
  viewport,
  scale,
  format,
  quality,
  fullPage,
  selector,
  omitBackground,
  hideSelectors,
  waitUntil,
  waitForSelector,
  blockCookieBanners,
  blockAds,
} as const;

export type SpecParams = typeof SPEC_PARAMS;
/** What a row means, parameter by parameter. */
export type SpecCombo = { [K in keyof SpecParams]: SpecParams[K] extends Param<infer T> ? T : never };

const byId = <T>(p: Param<T>, id: string): T => {
  const found = p.values.find((x) => x.id === id);
  if (!found) throw new Error(`${p.name} has no value ${id}`);
  return found.value;
};

/** The meaning of a row of value ids (parameter name -> value id) for the spec's parameters. */
export function specCombo(ids: Readonly<Record<string, string>>): SpecCombo {
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(SPEC_PARAMS)) out[name] = byId(p as Param, ids[name]!);
  return out as SpecCombo;
}

export const shapeOf = (c: Pick<SpecCombo, 'viewport' | 'scale' | 'fullPage' | 'selector'>): Shape => ({
  viewport: c.viewport,
  scale: c.scale,
  fullPage: c.fullPage,
  selector: c.selector,
});

export const isLossy = (f: Format | null): f is 'jpeg' | 'webp' => f === 'jpeg' || f === 'webp';

/** WebP's own limit per side (the format cannot hold more). */
export const WEBP_MAX_SIDE = 16383;
/** Cases stay cheap: no image of more pixels than this. */
export const MAX_CASE_PIXELS = 4_000_000;

const combo = (ids: Readonly<Record<string, string>>, names: readonly (keyof SpecParams)[]) => {
  const out: Record<string, unknown> = {};
  for (const n of names) out[n] = byId(SPEC_PARAMS[n] as Param, ids[n]!);
  return out as SpecCombo;
};
const SHAPE = ['viewport', 'scale', 'fullPage', 'selector'] as const;
const output = (c: SpecCombo) => outputOf(frameOf(shapeOf(c)), c.scale ?? DEFAULT_SCALE);

/** Values that cannot meet in one case, and why. */
export const SPEC_CONSTRAINTS: readonly Constraint[] = [
  {
    why: 'quality is valid only with format jpeg or webp (spec §2.1, §4.1 rule 7; the 400 itself is checked by quality.with-png)',
    params: ['quality', 'format'],
    allows: (x) => x.quality === 'none' || x.format === 'jpeg' || x.format === 'webp',
  },
  {
    why: 'deviceScaleFactor is sent inside viewport, which then needs width and height (spec §2.2): the default viewport has the default scale',
    params: ['viewport', 'scale'],
    allows: (x) => x.viewport !== 'default' || x.scale === 'default',
  },
  {
    why: 'the spec does not say how a frame of a fractional number of device pixels rounds: only frames whole at their scale are generated',
    params: [...SHAPE],
    allows: (x) => {
      const c = combo(x, SHAPE);
      return whole(frameOf(shapeOf(c)), c.scale ?? DEFAULT_SCALE);
    },
  },
  {
    why: "at scale 0.1 the fixture's strips are 4 to 11 px tall: a lossy encoding below the top quality (or at a default the spec leaves open) blurs them past any probe",
    params: ['scale', 'format', 'quality'],
    allows: (x) => x.scale !== '0.1' || !isLossy(combo(x, ['format']).format) || x.quality === '100',
  },
  {
    why: `WebP cannot hold more than ${WEBP_MAX_SIDE} px per side (the format's limit); what a service does when the window or the image is larger, the spec does not say`,
    params: [...SHAPE, 'format'],
    allows: (x) => {
      if (x.format !== 'webp') return true;
      const c = combo(x, SHAPE);
      const window = outputOf(frameOf({ ...shapeOf(c), fullPage: false, selector: false }), c.scale ?? DEFAULT_SCALE);
      const o = output(c);
      return Math.max(o.width, o.height, window.width, window.height) <= WEBP_MAX_SIDE;
    },
  },
  {
    why: `cases stay cheap: no image of more than ${MAX_CASE_PIXELS.toLocaleString('en-US')} pixels (a 10000 px wide full page, or its card at scale 2 or more, is left out)`,
    params: [...SHAPE],
    allows: (x) => {
      const o = output(combo(x, SHAPE));
      return o.width * o.height <= MAX_CASE_PIXELS;
    },
  },
];
