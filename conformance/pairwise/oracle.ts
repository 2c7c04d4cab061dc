// The oracle of a pairwise case, computed from the spec and the fixture's geometry (fixture.ts),
// never recorded: the image's type (content-type and magic bytes: verdict.ts checks both for every
// image), its exact size (frame.ts), whether it carries alpha, and for every strip the capture
// shows, the colour the spec puts there: a hidden element's strip shows what is under it, a waited
// element is there, the background is transparent only where omitBackground makes it so. Where
// the spec leaves the outcome open (a strip whose signal was not asked for, the late element
// without a wait, what a JPEG or WebP does with omitBackground), nothing is probed; the
// `reference` profile states the reference server's decisions for the last (DESIGN §3, as
// ref.omitBackground.webp-alpha and .jpeg-white do).
import type { Expectation, Probe } from '../model/model.ts';
import type { ExtSent } from './extension-values.ts';
import { CANVAS, LATE, LID, PAGE_HEIGHT, STRIPS, type Rgb, type Strip } from './fixture.ts';
import { DEFAULT_SCALE, frameOf, outputOf, type Ceiling } from './frame.ts';
import { isLossy, shapeOf, type SpecCombo } from './parameters.ts';

export type OracleProfile = 'core' | 'extensions' | 'reference';

/** What a strip must look like: a colour (opaque where alpha is judged) or transparency. */
export type Look = { rgb: Rgb; why: string } | { transparent: true; why: string };

/**
 * How far from an edge between strips a probe stays, by encoding. PNG is lossless (spec §2.1) and
 * every edge falls on a whole device pixel: none. A lossy encoding at quality 100 bleeds colour
 * a pixel or two (chroma subsampling, ringing). Below that (and at a default the spec leaves
 * open, which may be as low as 1) JPEG and WebP code 16 px blocks, 4:2:0 chroma and a deblocking
 * filter: only whole 16 px block rows of one strip are judged, 4 px away from a different one.
 */
export interface Margin {
  block: number;
  inset: number;
  tolerance: number;
}

export function marginOf(format: SpecCombo['format'], quality: number | null): Margin {
  if (!isLossy(format)) return { block: 1, inset: 0, tolerance: 8 };
  if (quality === 100) return { block: 1, inset: 2, tolerance: 32 };
  return { block: 16, inset: 4, tolerance: 48 };
}

/** The rows [top, bottom) of an image `height` rows tall that a probe may judge, or null. */
export function judgedRows(top: number, bottom: number, height: number, m: Margin): [number, number] | null {
  let t = Math.max(0, top);
  let b = Math.min(height, bottom);
  if (m.block > 1) {
    if (t > 0) t = Math.ceil(t / m.block) * m.block;
    if (b < height) b = Math.floor(b / m.block) * m.block;
  }
  if (t > 0) t += m.inset;
  if (b < height) b -= m.inset;
  return b > t ? [t, b] : null;
}

/** What each strip must show for this combination, or undefined where the spec leaves it open. */
export function lookOf(s: Strip, c: SpecCombo, ext: readonly NonNullable<ExtSent>[], profile: OracleProfile): Look | undefined {
  const painted = ext.flatMap((e) =>
    (e.effect.paints ?? []).filter(([name]) => name === s.name).map(([, rgb]) => ({ rgb, why: `${e.field} ${JSON.stringify(e.json)}` })),
  );
  if (painted.length) return painted[painted.length - 1];
  switch (s.name) {
    case 'lid':
      return c.hideSelectors ? { rgb: s.rgb!, why: 'the hidden element shows the strip under it' } : { rgb: LID.rgb, why: 'the element that is not hidden' };
    case 'late':
      if (c.waitForSelector) return { rgb: LATE.rgb, why: 'the waited-for element is there' };
      if (ext.some((e) => e.effect.showsLate))
        return {
          rgb: LATE.rgb,
          why: `its timer ran (${ext
            .filter((e) => e.effect.showsLate)
            .map((e) => e.field)
            .join(', ')})`,
        };
      return undefined; // it may or may not have appeared: the spec sets no time for a capture
    case 'scheme':
    case 'agent':
    case 'clock':
    case 'script':
    case 'action':
      return undefined; // signals of fields this case does not send
    default:
      if (s.rgb) return { rgb: s.rgb, why: 'its own colour' };
      if (!c.omitBackground) return ext.some((e) => e.effect.canvasOpen) ? undefined : { rgb: CANVAS, why: 'no background: white (omitBackground false)' };
      if (c.format === null || c.format === 'png') return { transparent: true, why: 'no background: transparent (omitBackground, PNG)' };
      if (profile !== 'reference') return undefined; // spec §2.1 states transparency for PNG only
      return c.format === 'webp'
        ? { transparent: true, why: 'no background: transparent (omitBackground; the reference keeps alpha in WebP)' }
        : { rgb: CANVAS, why: 'no background: white (omitBackground; the reference flattens JPEG on white)' };
  }
}

/** The region under the page when the window is taller than it: no background, like the clear strip. */
const BELOW: Strip = { name: 'clear', y0: PAGE_HEIGHT, y1: Infinity, rgb: null };

export interface OracleInput {
  combo: SpecCombo;
  ext?: readonly NonNullable<ExtSent>[];
  profile: OracleProfile;
  /** An implementation's output ceiling (the spec has none): the image is cut to the rows it allows. */
  ceiling?: Ceiling;
}

/** The strips the capture shows and judges, with their probes ('below' is the window under the page). */
export function stripProbes({ combo: c, ext = [], profile, ceiling }: OracleInput): Array<{ strip: string; probe: Probe }> {
  const scale = c.scale ?? DEFAULT_SCALE;
  const frame = frameOf(shapeOf(c));
  const out = outputOf(frame, scale, ceiling);
  const m = marginOf(c.format, c.quality);
  const type = c.format ?? 'png';
  const alphaJudged = type === 'png' || (type === 'webp' && profile === 'reference');
  const probes: Array<{ strip: string; probe: Probe }> = [];
  for (const s of [...STRIPS, BELOW]) {
    const look = lookOf(s, c, ext, profile);
    if (!look) continue;
    const rows = judgedRows(Math.round((s.y0 - frame.y) * scale), s.y1 === Infinity ? Infinity : Math.round((s.y1 - frame.y) * scale), out.height, m);
    if (!rows) continue;
    const strip = s === BELOW ? 'below' : s.name;
    const region = { x: 0, y: rows[0], w: out.width, h: rows[1] - rows[0] };
    const label = `${strip === 'below' ? 'below the page' : strip}: ${look.why}`;
    if ('transparent' in look) probes.push({ strip, probe: { kind: 'alpha', region, min: 0, max: 0, label } });
    else
      probes.push({
        strip,
        probe: { kind: 'color', region, rgb: look.rgb, tolerance: m.tolerance, label, ...(alphaJudged && c.omitBackground ? { alpha: 255 } : {}) },
      });
  }
  return probes;
}

export function oracle(input: OracleInput): Expectation {
  const { combo: c, ceiling } = input;
  const out = outputOf(frameOf(shapeOf(c)), c.scale ?? DEFAULT_SCALE, ceiling);
  const type = c.format ?? 'png';
  const probes = stripProbes(input).map((x) => x.probe);
  // Without omitBackground nothing is transparent (spec §2.1: "instead of white").
  if (!c.omitBackground && type !== 'jpeg')
    probes.push({ kind: 'alpha', region: { x: 0, y: 0, w: out.width, h: out.height }, min: 255, max: 255, label: 'opaque: omitBackground false' });
  // JPEG has no alpha channel; transparent pixels need one.
  const hasAlpha = type === 'jpeg' ? false : probes.some((p) => p.kind === 'alpha' && p.max === 0) ? true : undefined;
  return {
    status: 200,
    image: { type, width: out.width, height: out.height, ...(hasAlpha !== undefined ? { hasAlpha } : {}) },
    probes,
  };
}
