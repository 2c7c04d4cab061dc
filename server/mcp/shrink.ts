// The MCP result size budget. Common MCP clients refuse a tool result over about 1 MB:
// Claude Desktop answers "result exceeds maximum length of 1048576" for the whole JSON-RPC
// message, and the image travels base64-encoded (4 characters per 3 bytes). Claude's API also
// rejects images with an edge over 8000 px. So the tool returns at most MCP_IMAGE_BUDGET_BYTES of
// image data (1,000,000 base64 characters, leaving room for the text part inside 1 MiB) and at
// most MCP_IMAGE_MAX_EDGE pixels on either side. A capture within both is returned untouched;
// otherwise it is re-encoded (lossy, at decreasing quality) and, if that is not enough,
// downscaled, and the text part says exactly what was done. REST is not affected: this runs
// only on the MCP side, after the capture (and its billing) is complete.
import sharp from 'sharp';

export const MCP_IMAGE_BUDGET_BYTES = 750_000;
export const MCP_IMAGE_MAX_EDGE = 8000;

/** Quality ladder tried at each scale before scaling further down. */
const QUALITIES = [80, 65, 50] as const;
const MAX_SCALE_STEPS = 12;
const MIN_EDGE = 16;

import type { ImageFormat } from '../kinds/image.ts';

export type { ImageFormat };

export interface Limits {
  maxBytes: number;
  maxEdge: number;
}

export interface FittedImage {
  data: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
  /** Absent when the capture was returned as it was. */
  shrunk?: {
    reason: 'bytes' | 'edge' | 'bytes+edge';
    originalBytes: number;
    originalFormat: ImageFormat;
    originalWidth: number;
    originalHeight: number;
    quality: number;
  };
}

/**
 * Fits a capture into the limits. A PNG is re-encoded as JPEG (what every client displays), or as
 * WebP when it has transparent pixels (JPEG has no alpha); JPEG and WebP keep their format.
 */
export async function fitImage(
  body: Buffer,
  format: ImageFormat,
  limits: Limits = { maxBytes: MCP_IMAGE_BUDGET_BYTES, maxEdge: MCP_IMAGE_MAX_EDGE },
): Promise<FittedImage> {
  const meta = await sharp(body, { limitInputPixels: false }).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const overBytes = body.length > limits.maxBytes;
  const overEdge = Math.max(width, height) > limits.maxEdge;
  if (!overBytes && !overEdge) return { data: body, format, width, height };

  // Decode once; every attempt encodes from the same pixels.
  const raw = await sharp(body, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixels = { raw: { width: raw.info.width, height: raw.info.height, channels: 4 as const } };
  const target: 'jpeg' | 'webp' = format === 'png' ? (hasTransparency(raw.data) ? 'webp' : 'jpeg') : format;

  const encode = async (w: number, h: number, quality: number): Promise<Buffer> => {
    let img = sharp(raw.data, { ...pixels, limitInputPixels: false });
    if (w !== raw.info.width || h !== raw.info.height) img = img.resize(w, h, { fit: 'fill', kernel: 'lanczos3' });
    return target === 'jpeg' ? img.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true }).toBuffer() : img.webp({ quality }).toBuffer();
  };

  let scale = Math.min(1, limits.maxEdge / Math.max(width, height));
  let last = { data: body, quality: 0, w: width, h: height };
  for (let step = 0; step < MAX_SCALE_STEPS; step++) {
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    for (const quality of QUALITIES) {
      const data = await encode(w, h, quality);
      last = { data, quality, w, h };
      if (data.length <= limits.maxBytes) {
        return {
          data,
          format: target,
          width: w,
          height: h,
          shrunk: {
            reason: overBytes && overEdge ? 'bytes+edge' : overBytes ? 'bytes' : 'edge',
            originalBytes: body.length,
            originalFormat: format,
            originalWidth: width,
            originalHeight: height,
            quality,
          },
        };
      }
    }
    // Bytes grow roughly with the pixel area: aim a little under the budget at the lowest quality.
    const factor = Math.min(0.9, Math.sqrt(limits.maxBytes / last.data.length) * 0.95);
    const next = scale * factor;
    if (Math.max(width, height) * next < MIN_EDGE) break;
    scale = next;
  }
  throw new Error(
    `could not fit a ${width}x${height} ${format} image into ${limits.maxBytes} bytes (last attempt ${last.w}x${last.h} q${last.quality}: ${last.data.length} bytes)`,
  );
}

function hasTransparency(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return true;
  return false;
}

/** One sentence for the text part: what was done to fit the budget (empty when nothing was). */
export function describeShrink(f: FittedImage, limits: Limits = { maxBytes: MCP_IMAGE_BUDGET_BYTES, maxEdge: MCP_IMAGE_MAX_EDGE }): string {
  const s = f.shrunk;
  if (!s) return '';
  const why = [
    s.reason !== 'edge' ? `over this tool's ${n(limits.maxBytes)}-byte image budget (MCP clients reject results over about 1 MB)` : '',
    s.reason !== 'bytes' ? `over ${n(limits.maxEdge)} px on a side` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const scaled = f.width !== s.originalWidth || f.height !== s.originalHeight ? `, downscaled to ${f.width}x${f.height}` : '';
  return (
    `The capture (${s.originalFormat.toUpperCase()} ${s.originalWidth}x${s.originalHeight}, ${n(s.originalBytes)} bytes) was ${why}, ` +
    `so it is returned re-encoded as ${f.format.toUpperCase()} quality ${s.quality}${scaled}: ${n(f.data.length)} bytes. ` +
    `POST /v1/screenshot returns the original.` +
    (scaled ? ' For more detail, capture less (a selector, or the viewport instead of fullPage).' : '')
  );
}

const n = (x: number) => x.toLocaleString('en-US');
