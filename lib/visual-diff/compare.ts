// Encoded pictures in, figures and the encoded diff picture out: decoding and encoding by sharp
// (libvips, on libuv's threads), the comparison and the picture by diff.ts and picture.ts. What the
// server runs in its worker threads (pool.ts); the conformance suite calls diff.ts directly.
import sharp from 'sharp';
import { diffPictures, type DiffOptions, type Rect, type Rgba, type Size } from './diff.ts';
import { diffPicture } from './picture.ts';

export interface Figures {
  diffPixels: number;
  ratio: number;
  regions: Rect[];
  regionCount: number;
  current: Size;
  baseline: Size;
  /** The diff picture's size: the compared area. */
  width: number;
  height: number;
}

export interface Compared extends Figures {
  /** The diff picture, PNG. */
  png: Buffer;
}

/** PNG, JPEG or WebP bytes as RGBA. Throws on anything else (the caller names the field). */
export async function decodePicture(bytes: Uint8Array): Promise<Rgba> {
  const { data, info } = await sharp(bytes, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** PNG of an RGBA picture; a low zlib level: diff pictures are flat grey, and time matters more than bytes. */
export function encodePng(img: Rgba): Promise<Buffer> {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 }, limitInputPixels: false })
    .png({ compressionLevel: 3, adaptiveFiltering: false })
    .toBuffer();
}

/** A picture that could not be decoded: which one. */
export class UndecodablePicture extends Error {
  constructor(readonly which: 'current' | 'baseline') {
    super(`the ${which} picture is not a PNG, JPEG or WebP image that can be decoded`);
    this.name = 'UndecodablePicture';
  }
}

const decodeAs = (which: 'current' | 'baseline', bytes: Uint8Array) =>
  decodePicture(bytes).catch(() => {
    throw new UndecodablePicture(which);
  });

export async function compareEncoded(current: Uint8Array, baseline: Uint8Array, opts: DiffOptions): Promise<Compared> {
  const [a, b] = await Promise.all([decodeAs('current', current), decodeAs('baseline', baseline)]);
  const d = diffPictures(a, b, opts);
  const png = await encodePng(diffPicture(a, d, opts.masks));
  const { changed: _pixels, ...figures } = d;
  return { ...figures, png };
}
