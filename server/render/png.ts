// The PNG a capture sends: Chromium's fast PNG (zlib's quickest level, the Up filter on every row;
// about 1.3-2 times the bytes of its default encoder) re-encoded losslessly by sharp on libuv's
// thread pool, off the event loop: the same pixels, alpha kept, in fewer bytes than Chromium's
// default PNG, at less CPU than Chromium's default encoder (docs/performance.md).
//
// Which encoding pays depends on what the picture is; a wrong guess costs bytes or a second
// encode. Measured on the bench's pages and the fixtures (sharp 0.34: libspng on zlib-ng):
//   - rendered pages (text, flat colour, gradients): no filter wins, often by 15-20% (dense text
//     0.88x Chromium's default against 1.04x with adaptive filtering), at a third of the time;
//   - photographs: adaptive (per-row) filtering wins by 40-50% (a share card with a photo 0.91x
//     against 1.55x unfiltered);
//   - flat pictures (a blank page, blocks of colour, a line of text): unfiltered at zlib-ng's
//     slowest level, 0.75-0.9x where level 6 made 1.5-3.2x, for a few ms;
//   - the fast PNG's own size tells flat pictures apart, not text from photos (dense text makes
//     0.68 bytes per pixel, a photo card 1.14).
// So: flat pictures (under FLAT_BYTES_PER_PIXEL) are encoded unfiltered at level 9, those under
// SAMPLE_FROM unfiltered at level 6 (their unfiltered encoding stays far under PHOTO_BYTES_PER_PIXEL);
// the others are decoded once and encoded unfiltered on a sample (SAMPLE_BANDS bands of rows spread
// over the picture, SAMPLE_SHARE of it), which decides how the whole picture is encoded, once
// (chooseWay). This replaces encoding the whole picture unfiltered, then again with filters when
// that was over PHOTO_BYTES_PER_PIXEL, keeping the smaller: the same choices on every picture
// measured, without the encode that was thrown away. Pictures over BIG_PNG_PIXELS (tall full pages) are encoded
// unfiltered at a low level: there time grows with pixels and bytes barely shrink.
import sharp from 'sharp';

/** Above this many pixels the re-encode uses a lower zlib level: time grows with pixels, bytes barely. */
export const BIG_PNG_PIXELS = 4_000_000;
/** Under this many bytes per pixel Chromium's fast PNG is a flat picture (blank, blocks, little text). */
const FLAT_BYTES_PER_PIXEL = 0.05;
/** Over this many bytes per pixel unfiltered, a picture is photographic: per-row filters may pay. */
const PHOTO_BYTES_PER_PIXEL = 0.5;
/**
 * Under this many bytes per pixel in the fast PNG, no picture measured came near
 * PHOTO_BYTES_PER_PIXEL unfiltered (at most 1.65 times the fast PNG's size): no sample needed.
 */
const SAMPLE_FROM = PHOTO_BYTES_PER_PIXEL / 2;
const SAMPLE_BANDS = 8;
const SAMPLE_SHARE = 1 / 8;
const LEVEL = 6;

type Raw = { data: Buffer; width: number; height: number; channels: 1 | 2 | 3 | 4 };
type Way = { adaptiveFiltering: boolean; compressionLevel: number };
const UNFILTERED: Way = { adaptiveFiltering: false, compressionLevel: LEVEL };
const FILTERED: Way = { adaptiveFiltering: true, compressionLevel: LEVEL };
const FLAT: Way = { adaptiveFiltering: false, compressionLevel: 9 };
const BIG: Way = { adaptiveFiltering: false, compressionLevel: 3 };

/** Width and height from the PNG's IHDR chunk (always first, at a fixed place). */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

const encode = (raw: Raw, way: Way) =>
  sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } })
    .png(way)
    .toBuffer();

/** SAMPLE_BANDS bands of rows spread over the picture, one after the other: a picture of their own. */
function sample(raw: Raw): Raw {
  const stride = raw.width * raw.channels;
  const bandRows = Math.max(1, Math.floor((raw.height * SAMPLE_SHARE) / SAMPLE_BANDS));
  const bands: Buffer[] = [];
  for (let i = 0; i < SAMPLE_BANDS; i++) {
    const top = Math.floor(((i + 0.5) * raw.height) / SAMPLE_BANDS - bandRows / 2);
    const start = Math.max(0, Math.min(raw.height - bandRows, top)) * stride;
    bands.push(raw.data.subarray(start, start + bandRows * stride));
  }
  return { ...raw, data: Buffer.concat(bands), height: bandRows * bands.length };
}

/**
 * How the whole picture is encoded: unfiltered, unless its sample is photographic unfiltered. Then
 * with adaptive filtering: at once when the sample is clearly so (on every such picture measured
 * filters made it 40-85% smaller), else when filters make the sample smaller (dense small text
 * comes near PHOTO_BYTES_PER_PIXEL unfiltered and is 15% smaller so).
 */
async function chooseWay(raw: Raw): Promise<Way> {
  if (raw.height < SAMPLE_BANDS * 4) return UNFILTERED;
  const s = sample(raw);
  const plain = await encode(s, UNFILTERED);
  const perPixel = plain.length / (s.width * s.height);
  if (perPixel <= PHOTO_BYTES_PER_PIXEL) return UNFILTERED;
  if (perPixel > 2 * PHOTO_BYTES_PER_PIXEL) return FILTERED;
  return (await encode(s, FILTERED)).length < plain.length ? FILTERED : UNFILTERED;
}

/** Chromium's fast PNG, re-encoded losslessly the way that suits the picture. */
export async function compactPng(fast: Buffer): Promise<Buffer> {
  const { width, height } = pngSize(fast);
  const pixels = width * height;
  const input = sharp(fast, { limitInputPixels: false });
  if (pixels > BIG_PNG_PIXELS) return input.png(BIG).toBuffer();
  if (fast.length < pixels * FLAT_BYTES_PER_PIXEL) return input.png(FLAT).toBuffer();
  if (fast.length < pixels * SAMPLE_FROM) return input.png(UNFILTERED).toBuffer();
  const { data, info } = await input.raw().toBuffer({ resolveWithObject: true });
  const raw: Raw = { data, width: info.width, height: info.height, channels: info.channels };
  return encode(raw, await chooseWay(raw));
}
