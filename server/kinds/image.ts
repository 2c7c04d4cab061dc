// The image formats of the request's `format` field, stated once: their media types (the answer's
// Content-Type, /openapi.json, the MCP image content) and the size each allows per side.
import type { ScreenshotRequest } from './request.ts';

export type ImageFormat = ScreenshotRequest['format'];

export const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const satisfies Record<ImageFormat, string>;

export const WEBP_MAX_SIDE = 16383; // the WebP format's own limit
export const JPEG_MAX_SIDE = 65535;

export function maxSide(format: ImageFormat): number {
  return format === 'webp' ? WEBP_MAX_SIDE : JPEG_MAX_SIDE;
}
