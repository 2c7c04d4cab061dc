// Cache-Control, both ways. Asked by a request: what the result cache may do for it. Answered:
// how long others may keep the answer. The response registry (server/response/) writes the
// answers' values; nothing else spells them.
// - POST answers belong to their key (credits, private pages): `no-store`.
// - Signed links are public and immutable for their TTL, at most until the link expires.
// - Errors: `no-store`, so that a CDN in front of signed links never keeps one (a 503 would
//   outlive the overload).
// - The playground's files: `no-cache`, revalidated on every load (an ETag match is a 304), so
//   that a new version shows at once.

export const PRIVATE_CACHE_CONTROL = 'no-store';
export const ERROR_CACHE_CONTROL = 'no-store';
export const STATIC_CACHE_CONTROL = 'no-cache';

/**
 * A signed link's Cache-Control: public for `ttl` seconds but never past the link's expiry; a TTL of
 * 0 (always render) asks caches to come back every time (`no-cache`: they may still keep the image
 * and revalidate it with If-None-Match).
 */
export function linkCacheControl(ttlSeconds: number, expiresAt: number, nowSeconds: number): string {
  const maxAge = Math.max(0, Math.min(ttlSeconds, expiresAt - nowSeconds));
  return maxAge > 0 ? `public, max-age=${maxAge}, immutable` : 'public, no-cache';
}

/** What a request may ask of the result cache. */
export interface CachePolicy {
  lookup: boolean;
  store: boolean;
}

/**
 * What a request's `Cache-Control` asks of the cache: `no-cache` or `max-age=0` renders fresh (and
 * the fresh result replaces the cached one); `no-store` renders fresh and stores nothing.
 */
export function cachePolicy(cacheControl: string | undefined): CachePolicy {
  const d = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim());
  const noStore = d.includes('no-store');
  const fresh = noStore || d.includes('no-cache') || d.some((x) => /^max-age\s*=\s*"?0"?$/.test(x));
  return { lookup: !fresh, store: !noStore };
}
