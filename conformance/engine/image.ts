// Image decoding for probes and goldens: the type is sniffed from the bytes (never trusted from
// the content-type), PNG is decoded with pngjs (lossless, exact), JPEG with jpeg-js (pure
// JavaScript) and WebP with libwebp built to WebAssembly (@jsquash/webp), so that the suite
// installs without a native image library. Everything becomes 8-bit RGBA.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import decodeWebp, { init as initWebp } from '@jsquash/webp/decode.js';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
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
  if (type === 'jpeg') {
    const img = jpeg.decode(body, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 1000, maxMemoryUsageInMB: 4096 });
    return { type, width: img.width, height: img.height, data: img.data, hasAlpha: false };
  }
  await webpReady();
  const img = await decodeWebp(body.buffer.slice(body.byteOffset, body.byteOffset + body.length) as ArrayBuffer);
  return {
    type,
    width: img.width,
    height: img.height,
    data: new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.length),
    hasAlpha: webpHasAlpha(body),
  };
}

let webp: Promise<void> | undefined;
/** The codec's WebAssembly module, compiled once from the file the package ships (no fetch in Node). */
function webpReady(): Promise<void> {
  webp ??= (async () => {
    const wasm = path.join(path.dirname(createRequire(import.meta.url).resolve('@jsquash/webp/decode.js')), 'codec', 'dec', 'webp_dec.wasm');
    await initWebp(await WebAssembly.compile(readFileSync(wasm)));
  })();
  return webp;
}

/**
 * Whether a WebP file declares an alpha channel: the VP8X header's alpha flag (extended format),
 * or the alpha_is_used bit of a lossless (VP8L) header; simple lossy (VP8) files have none.
 */
export function webpHasAlpha(b: Buffer): boolean {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return (b[20]! & 0x10) !== 0;
  if (chunk === 'VP8L') return ((b.readUInt32LE(21) >>> 28) & 1) === 1;
  return false;
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
