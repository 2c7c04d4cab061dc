// Image decoding for probes and goldens: the type is sniffed from the bytes (never trusted from
// the content-type), PNG is decoded with pngjs (lossless, exact), JPEG and WebP with sharp.
// Everything becomes 8-bit RGBA.
import { PNG } from 'pngjs';
import sharp from 'sharp';
import { sniffType, type ImageType } from '../../lib/visual-diff/sniff.ts';

export { sniffType, type ImageType };

export interface Rgba {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel, row-major. */
  data: Uint8Array;
}

export interface DecodedImage extends Rgba {
  type: ImageType;
  /** Whether the encoded image carries an alpha channel. */
  hasAlpha: boolean;
}

export async function decodeImage(body: Buffer): Promise<DecodedImage> {
  const type = sniffType(body);
  if (!type) throw new Error('the body is not a PNG, JPEG or WebP image');
  if (type === 'png') {
    const png = PNG.sync.read(body);
    // colorType bit 4 (value 4 or 6) means an alpha channel; a tRNS chunk also gives transparency.
    const meta = png as unknown as { colorType?: number; alpha?: boolean };
    const hasAlpha = meta.alpha === true || meta.colorType === 4 || meta.colorType === 6;
    return { type, width: png.width, height: png.height, data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length), hasAlpha };
  }
  const img = sharp(body, { limitInputPixels: false });
  const meta = await img.metadata();
  const raw = await img.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    type,
    width: raw.info.width,
    height: raw.info.height,
    data: new Uint8Array(raw.data.buffer, raw.data.byteOffset, raw.data.length),
    hasAlpha: meta.hasAlpha === true,
  };
}

export function encodePng(img: Rgba): Buffer {
  const png = new PNG({ width: img.width, height: img.height });
  Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length).copy(png.data);
  return PNG.sync.write(png);
}

export function readPng(buf: Buffer): Rgba {
  const png = PNG.sync.read(buf);
  return { width: png.width, height: png.height, data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length) };
}

/** A solid-colour image (tests and comparator pairs). */
export function solid(width: number, height: number, rgba: [number, number, number, number]): Rgba {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}
