// The arithmetic of what a capture covers and how big the image is (spec §4.1 rules 1-2, §2.2):
// the viewport, the whole scrollable page (fullPage) or the element's box (selector, which wins
// over fullPage: spec §2.1 `fullPage` "Ignored when `selector` is set"), times deviceScaleFactor,
// cut by an output ceiling where an implementation has one. Pure functions on the fixture's
// geometry (fixture.ts); the oracle (oracle.ts) and the constraints (parameters.ts) use them.
import { CARD, PAGE_HEIGHT } from './fixture.ts';

/** spec §2.1: 1280 x 720 at scale 1 when no viewport is given. */
export const DEFAULT_VIEWPORT = { width: 1280, height: 720 } as const;
export const DEFAULT_SCALE = 1;

export interface Shape {
  viewport: { width: number; height: number } | null;
  scale: number | null;
  fullPage: boolean;
  selector: boolean;
}

/** A rectangle of the page in CSS px. The fixture's strips span the window's width, so x is 0. */
export interface Frame {
  y: number;
  width: number;
  height: number;
}

export function frameOf(s: Shape): Frame {
  const vp = s.viewport ?? DEFAULT_VIEWPORT;
  if (s.selector) return { y: CARD.y0, width: vp.width, height: CARD.y1 - CARD.y0 };
  // The scrollable page is the document or the window, whichever is taller; no strip is wider than the window.
  if (s.fullPage) return { y: 0, width: vp.width, height: Math.max(PAGE_HEIGHT, vp.height) };
  return { y: 0, width: vp.width, height: vp.height };
}

/** An implementation's output limit (none in the spec; the reference's are in its README "Limits"). */
export interface Ceiling {
  /** Pixels of one image. */
  maxPixels?: number;
  /** Pixels per side (WebP's format allows 16383). */
  maxSide?: number;
}

export interface Output {
  width: number;
  height: number;
  /** Rows were cut at the ceiling (a fullPage or element capture taller than it allows). */
  cut: boolean;
}

/**
 * The image's size: the frame times the scale, in whole device pixels (the generator only pairs
 * frames and scales whose product is whole: the spec does not say how a fraction rounds), with
 * its height cut to what the ceiling allows for that width.
 */
export function outputOf(frame: Frame, scale: number, ceiling: Ceiling = {}): Output {
  const width = Math.round(frame.width * scale);
  const full = Math.round(frame.height * scale);
  const rows = Math.min(ceiling.maxPixels !== undefined ? Math.floor(ceiling.maxPixels / width) : Infinity, ceiling.maxSide ?? Infinity);
  return { width, height: Math.min(full, rows), cut: full > rows };
}

/** Whether the frame is a whole number of device pixels at this scale. */
export function whole(frame: Frame, scale: number): boolean {
  const exact = (n: number) => Math.abs(n * scale - Math.round(n * scale)) < 1e-9;
  return exact(frame.width) && exact(frame.height) && exact(frame.y);
}
