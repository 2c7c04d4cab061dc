// Valid capture requests of the pairwise fixture (pairwise/fixture.ts) over the spec's whole ranges,
// the edges weighted (the exact limits 1 and 10000, scale 0.1 and 4, quality 1 and 100, exactly 50
// hideSelectors of up to exactly 500 characters, fractions, selectors in other scripts), with the
// declared extension fields whose effect the fixture shows (pairwise/extension-values.ts). Each
// request comes with its oracle, computed as the pairwise cases' is (pairwise/oracle.ts): the exact
// size, type, alpha and the colour of every strip it shows.
import fc from 'fast-check';
import type { Expectation } from '../model/model.ts';
import { EXTENSION_FIELDS, type ExtSent } from '../pairwise/extension-values.ts';
import { CARD_SELECTORS, FIXTURE_NAME, FIXTURE_PATH, LATE, LID } from '../pairwise/fixture.ts';
import { DEFAULT_SCALE, frameOf, outputOf } from '../pairwise/frame.ts';
import { oracle } from '../pairwise/oracle.ts';
import { shapeOf, WEBP_MAX_SIDE, type Body, type Format, type SpecCombo, type WaitUntil } from '../pairwise/parameters.ts';

/** Images stay affordable: no generated capture of more pixels than this. */
export const MAX_PIXELS = 1_500_000;

/**
 * Scales are k/20 for even k (0.1 to 4 in steps of 0.1): the fixture's edges, multiples of 10 CSS
 * px, stay whole device pixels; the viewport's sides are rounded to multiples of 20/gcd(k, 20).
 */
const SCALE_STEPS = 20;

export interface ValidDraft {
  source: 'html' | 'url';
  viewport: { width: number; height: number; fw: number; fh: number } | null;
  /** Scale in twentieths, or null (not sent). */
  k: number | null;
  fullPage: boolean | null;
  selector: string | null;
  format: Format | null;
  quality: number | null;
  omitBackground: boolean | null;
  hideSelectors: string[] | null;
  waitUntil: WaitUntil | null;
  waitForSelector: string | null;
  blockCookieBanners: boolean | null;
  blockAds: boolean | null;
  /** Extension values by field (declared fields only). */
  ext: Record<string, unknown>;
}

export interface ValidShot {
  body: Body;
  combo: SpecCombo;
  ext: NonNullable<ExtSent>[];
  /** Where a fractional viewport leaves the exact size open: the sizes the spec allows. */
  sizes: Array<{ width: number; height: number }>;
  expect: Expectation;
}

/** Letters of several scripts for class names (valid CSS identifiers as they are). */
const LETTERS = ['a', 'z', 'é', 'ß', 'ж', 'я', 'α', 'カ', '名', '字', 'ü', 'ø', 'ก', 'ب'];
const ident = fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 12 });

/** A selector that matches nothing on the fixture (`.nope-` + letters), up to exactly 500 characters long. */
const noMatch = fc.oneof({ weight: 4, arbitrary: ident.map((s) => `.nope-${s}`) }, { weight: 1, arbitrary: fc.constant(`.nope-${'x'.repeat(494)}`) });
const HIDE_LID = [LID.selector, `div${LID.selector}`, `[id="${LID.selector.slice(1)}"]`];
const hideEntry = fc.oneof(
  { weight: 4, arbitrary: noMatch },
  { weight: 2, arbitrary: fc.constantFrom(...HIDE_LID) },
  { weight: 1, arbitrary: fc.constantFrom('html', 'body') },
);

const maybe = <T>(a: fc.Arbitrary<T>, weightNull = 1, weightValue = 1): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: weightNull, arbitrary: fc.constant(null) }, { weight: weightValue, arbitrary: a });

/** A viewport side: the exact limits weighted, small values most, the whole range too. */
const side = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(1, 10000) },
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 400 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 10000 }) },
);
const fraction = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(0.5, 0.25, 0.001, 0.999) });

export function validDraft(o: { url: boolean; declared: ReadonlySet<string> | undefined }): fc.Arbitrary<ValidDraft> {
  const ext: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of EXTENSION_FIELDS)
    if (o.declared?.has(f.field)) ext[f.field] = maybe(fc.constantFrom(...f.values.map((v) => v.json)), 3, 1).map((v) => (v === null ? undefined : v));
  return fc.record({
    source: o.url
      ? fc.oneof({ weight: 3, arbitrary: fc.constant('html' as const) }, { weight: 1, arbitrary: fc.constant('url' as const) })
      : fc.constant('html' as const),
    viewport: maybe(fc.record({ width: side, height: side, fw: fraction, fh: fraction }), 1, 5),
    k: maybe(
      fc.oneof({ weight: 3, arbitrary: fc.constantFrom(20, 2, 80, 40, 10, 60) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 40 }).map((j) => 2 * j) }),
      2,
      3,
    ),
    fullPage: maybe(fc.boolean()),
    selector: maybe(fc.constantFrom(...CARD_SELECTORS), 3, 1),
    format: maybe(fc.constantFrom<Format>('png', 'jpeg', 'webp')),
    quality: maybe(fc.oneof(fc.constantFrom(1, 100, 50.5, 99.9, 1.5), fc.integer({ min: 1, max: 100 })), 1, 2),
    omitBackground: maybe(fc.boolean()),
    hideSelectors: maybe(
      fc.oneof(
        { weight: 4, arbitrary: fc.array(hideEntry, { maxLength: 4 }) },
        { weight: 1, arbitrary: fc.array(hideEntry, { minLength: 50, maxLength: 50 }) },
      ),
      2,
      1,
    ),
    waitUntil: maybe(fc.constantFrom<WaitUntil>('load', 'networkidle0', 'networkidle2')),
    waitForSelector: maybe(fc.constantFrom(LATE.selector, `div${LATE.selector}`), 8, 1),
    blockCookieBanners: maybe(fc.boolean(), 2, 1),
    blockAds: maybe(fc.boolean(), 2, 1),
    ext: fc.record(ext),
  });
}

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
const roundTo = (n: number, d: number) => Math.min(10000, Math.max(d, Math.round(n / d) * d));

/**
 * The request a draft writes and its oracle. The draft is repaired where the spec leaves the
 * outcome open or the picture would be too dear: a frame that is not a whole number of device
 * pixels at its scale moves to the nearest one that is; a scale too large for MAX_PIXELS (or for
 * WebP's 16383 px) comes down; a fraction of a viewport side is kept only at a whole scale, where
 * the image is either side rounded, times the scale.
 */
export function shotOf(d: ValidDraft, profile: 'core' | 'reference' = 'core'): ValidShot {
  const body: Body = {};
  const format = d.format;
  const fullPage = d.fullPage === true;
  const selector = d.selector !== null;
  let k = d.viewport ? (d.k ?? SCALE_STEPS) : SCALE_STEPS;
  let vp = d.viewport ? { width: d.viewport.width, height: d.viewport.height } : null;
  const cap = (w: number, h: number) => {
    const window = vp ?? { width: 1280, height: 720 };
    const frame = frameOf({ viewport: { width: w, height: h }, scale: 1, fullPage, selector });
    const bySide = format === 'webp' ? WEBP_MAX_SIDE / Math.max(frame.width, frame.height, window.width, window.height) : Infinity;
    const byPixels = Math.sqrt(MAX_PIXELS / (frame.width * frame.height));
    return Math.max(2, Math.min(80, 2 * Math.floor((SCALE_STEPS / 2) * Math.min(bySide, byPixels))));
  };
  for (let i = 0; i < 3; i++) {
    if (vp) k = Math.min(k, cap(vp.width, vp.height));
    const step = SCALE_STEPS / gcd(k, SCALE_STEPS);
    if (vp) vp = { width: roundTo(vp.width, step), height: roundTo(vp.height, step) };
  }
  const scale = vp && (d.k !== null || k !== SCALE_STEPS) ? k / SCALE_STEPS : null;
  const whole = k % SCALE_STEPS === 0;
  const frac = vp && whole && d.viewport ? { w: vp.width < 10000 ? d.viewport.fw : 0, h: vp.height < 10000 ? d.viewport.fh : 0 } : { w: 0, h: 0 };
  if (d.source === 'html') body.html = { $fixture: FIXTURE_NAME };
  else body.url = { $fixtureUrl: FIXTURE_PATH };
  if (vp) body.viewport = { width: vp.width + frac.w, height: vp.height + frac.h, ...(scale !== null ? { deviceScaleFactor: scale } : {}) };
  if (d.fullPage !== null) body.fullPage = d.fullPage;
  if (d.selector !== null) body.selector = d.selector;
  if (format !== null) body.format = format;
  const lossy = format === 'jpeg' || format === 'webp';
  if (lossy && d.quality !== null) body.quality = d.quality;
  if (d.omitBackground !== null) body.omitBackground = d.omitBackground;
  if (d.hideSelectors !== null) body.hideSelectors = d.hideSelectors;
  if (d.waitUntil !== null) body.waitUntil = d.waitUntil;
  if (d.waitForSelector !== null) body.waitForSelector = d.waitForSelector;
  if (d.blockCookieBanners !== null) body.blockCookieBanners = d.blockCookieBanners;
  if (d.blockAds !== null) body.blockAds = d.blockAds;
  const ext: NonNullable<ExtSent>[] = [];
  for (const f of EXTENSION_FIELDS) {
    const json = d.ext[f.field];
    if (json === undefined) continue;
    body[f.field] = json;
    const value = f.values.find((v) => JSON.stringify(v.json) === JSON.stringify(json))!;
    ext.push({ field: f.field, json, effect: value.effect });
  }
  const quality = lossy && d.quality !== null ? d.quality : null;
  const combo: SpecCombo = {
    source: d.source,
    viewport: vp,
    scale,
    format,
    quality,
    fullPage,
    selector,
    omitBackground: d.omitBackground === true,
    hideSelectors: d.hideSelectors?.some((s) => HIDE_LID.includes(s)) ? [LID.selector] : null,
    waitUntil: d.waitUntil,
    waitForSelector: d.waitForSelector !== null,
    blockCookieBanners: d.blockCookieBanners !== false,
    blockAds: d.blockAds === true,
  };
  const expect = oracle({ combo, ext, profile });
  const s = scale ?? DEFAULT_SCALE;
  const sizes = [0, 1]
    .flatMap((dw) => [0, 1].map((dh) => ({ dw, dh })))
    .filter(({ dw, dh }) => (dw === 0 || frac.w > 0) && (dh === 0 || frac.h > 0))
    .map(({ dw, dh }) => {
      const out = outputOf(frameOf(shapeOf({ ...combo, viewport: vp && { width: vp.width + dw, height: vp.height + dh } })), s);
      return { width: out.width, height: out.height };
    });
  return { body, combo, ext, sizes, expect };
}
