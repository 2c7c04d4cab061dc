// The request body of spec §2.1/§2.2, checked from the spec's tables alone (not the reference
// server's JSON Schema: this subject is an independent implementation). Unknown fields
// are ignored (§2.1 rule 2, §9); a malformed known field is a 400 whose message names it and never
// quotes the submitted value (§2.1 rule 3, §7).

export interface ShotRequest {
  url?: string;
  html?: string;
  fullPage: boolean;
  format: 'png' | 'jpeg' | 'webp';
  quality?: number;
  viewport: { width: number; height: number; deviceScaleFactor: number };
  selector?: string;
  omitBackground: boolean;
  waitUntil: 'load' | 'networkidle0' | 'networkidle2';
  waitForSelector?: string;
  blockCookieBanners: boolean;
  hideSelectors: string[];
  blockAds: boolean;
}

export class BadRequest extends Error {}

const HTML_MAX_BYTES = 2_000_000; // §8
const FORMATS = ['png', 'jpeg', 'webp'] as const;
const WAITS = ['load', 'networkidle0', 'networkidle2'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function bool(b: Record<string, unknown>, field: string, dflt: boolean): boolean {
  const v = b[field];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw new BadRequest(`${field} must be true or false`);
  return v;
}

function str(b: Record<string, unknown>, field: string): string | undefined {
  const v = b[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw new BadRequest(`${field} must be a non-empty string`);
  return v;
}

function oneOf<T extends string>(b: Record<string, unknown>, field: string, allowed: readonly T[], dflt: T): T {
  const v = b[field];
  if (v === undefined) return dflt;
  if (typeof v !== 'string' || !allowed.includes(v as T)) throw new BadRequest(`${field} must be one of ${allowed.join(', ')}`);
  return v as T;
}

function num(v: unknown, name: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw new BadRequest(`${name} must be a number between ${min} and ${max}`);
  return v;
}

function viewport(v: unknown): ShotRequest['viewport'] {
  if (v === undefined) return { width: 1280, height: 720, deviceScaleFactor: 1 };
  if (!isObject(v)) throw new BadRequest('viewport must be an object with width and height');
  if (v.width === undefined) throw new BadRequest('viewport.width is required when viewport is given');
  if (v.height === undefined) throw new BadRequest('viewport.height is required when viewport is given');
  return {
    // The browser window is sized in whole CSS pixels.
    width: Math.round(num(v.width, 'viewport.width', 1, 10000)),
    height: Math.round(num(v.height, 'viewport.height', 1, 10000)),
    deviceScaleFactor: v.deviceScaleFactor === undefined ? 1 : num(v.deviceScaleFactor, 'viewport.deviceScaleFactor', 0.1, 4),
  };
}

function absoluteHttpUrl(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new BadRequest('url must be a string');
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new BadRequest('url must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new BadRequest('url must be an absolute http or https URL');
  return u.href;
}

function hideSelectors(v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > 50) throw new BadRequest('hideSelectors must be an array of at most 50 CSS selectors');
  for (const s of v)
    if (typeof s !== 'string' || s.length === 0 || s.length > 500) throw new BadRequest('hideSelectors entries must be strings of 1 to 500 characters');
  return v as string[];
}

export function validate(body: unknown): ShotRequest {
  if (!isObject(body)) throw new BadRequest('the body must be a JSON object');
  const url = absoluteHttpUrl(body.url);
  const html = body.html;
  if (html !== undefined && typeof html !== 'string') throw new BadRequest('html must be a string');
  if (typeof html === 'string' && Buffer.byteLength(html, 'utf8') > HTML_MAX_BYTES) throw new BadRequest(`html must be at most ${HTML_MAX_BYTES} bytes`);
  if ((url === undefined) === (html === undefined)) throw new BadRequest('exactly one of url and html must be given');
  const format = oneOf(body, 'format', FORMATS, 'png');
  let quality: number | undefined;
  if (body.quality !== undefined) {
    quality = Math.round(num(body.quality, 'quality', 1, 100));
    if (body.format === undefined || format === 'png') throw new BadRequest('quality is valid only with format jpeg or webp');
  }
  return {
    url,
    html: html as string | undefined,
    fullPage: bool(body, 'fullPage', false),
    format,
    quality,
    viewport: viewport(body.viewport),
    selector: str(body, 'selector'),
    omitBackground: bool(body, 'omitBackground', false),
    waitUntil: oneOf(body, 'waitUntil', WAITS, 'networkidle2'),
    waitForSelector: str(body, 'waitForSelector'),
    blockCookieBanners: bool(body, 'blockCookieBanners', true),
    hideSelectors: hideSelectors(body.hideSelectors),
    blockAds: bool(body, 'blockAds', false),
  };
}
