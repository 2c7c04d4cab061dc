// The picture's validator: a strong ETag on every image, the SHA-256 of its bytes, so that the same
// picture always has the same tag (a deterministic capture of an unchanged page included), and
// If-None-Match compared against it (server/edge/send-capture.ts answers 304).
import { createHash } from 'node:crypto';

/** `"<base64url SHA-256 of the bytes>"`: a strong validator (RFC 9110 §8.8.3). */
export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** RFC 9110 §13.1.2: `*` or a list of tags, compared weakly (W/ is ignored). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const want = etag.replace(/^W\//, '');
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((t) => t.replace(/^W\//, '') === want);
}
