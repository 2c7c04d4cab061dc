// HTTP caching that a browser, a CDN or a monitoring script can use (issue 12):
// - a strong ETag on every image: the SHA-256 of its bytes, so that the same picture always has
//   the same tag (a deterministic capture of an unchanged page included);
// - If-None-Match honoured on GET (signed links) and POST alike: a match answers 304 with no body.
//   A 304 costs what the request cost: nothing when the image came from the result cache, one
//   credit when it had to be rendered to know its tag (the work was done; otherwise "has the page
//   changed?" would be a free render). POST is answered 304, not 412 as RFC 9110 §13.1.2 asks for
//   unsafe methods, because this POST is a safe query (like the QUERY method draft);
// - Cache-Control: signed links are public and immutable for their TTL (at most until the link
//   expires); POST responses are per key (credits, private pages): `no-store`; errors `no-store`.
import { createHash } from 'node:crypto';
import type { Response } from 'express';

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

export const PRIVATE_CACHE_CONTROL = 'no-store';

/**
 * A signed link's Cache-Control: public for `ttl` seconds but never past the link's expiry; a TTL of
 * 0 (always render) asks caches to come back every time (`no-cache`: they may still keep the image
 * and revalidate it with If-None-Match).
 */
export function linkCacheControl(ttlSeconds: number, expiresAt: number, nowSeconds: number): string {
  const maxAge = Math.max(0, Math.min(ttlSeconds, expiresAt - nowSeconds));
  return maxAge > 0 ? `public, max-age=${maxAge}, immutable` : 'public, no-cache';
}

export interface ImageReply {
  body: Buffer;
  contentType: string;
  headers: Record<string, string>;
}

/** Writes the image, or 304 when If-None-Match already has it. The ETag is in `headers.etag`. */
export function sendImage(req: { get(name: string): string | undefined }, res: Response, out: ImageReply, cacheControl: string): void {
  res.set(out.headers).set('cache-control', cacheControl);
  const etag = out.headers.etag;
  if (etag && ifNoneMatchHits(req.get('if-none-match'), etag)) {
    res.removeHeader('content-disposition');
    res.status(304).end();
    return;
  }
  res.status(200).type(out.contentType).send(out.body);
}
