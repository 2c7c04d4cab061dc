// The result cache (spec §1 billing: cached results are never billed; DESIGN §3 `x-cache`).
// In memory, per process: least-recently-used entries are evicted to stay within CACHE_MAX_BYTES,
// and an entry expires CACHE_TTL_SECONDS after it was stored, or after the request's own `cacheTtl`
// (issue 12): `set` takes the entry's TTL and `get` a maximum age, so that a request asking for
// fresher results than an entry's TTL does not get it. Only `url`-mode results are cached,
// per account, keyed by the normalised request; `html` results are never cached (spec §1: nothing
// of supplied HTML is retained), and cacheKey refuses them.
import { createHash } from 'node:crypto';
import type { ScreenshotRequest } from '../request/schema.ts';

export interface CachedResult {
  body: Buffer;
  contentType: string;
  /** Response headers that belong to the image (content-disposition, x-banner-action, ...). */
  headers: Record<string, string>;
  width: number;
  height: number;
}

export interface ResultCache {
  /** The entry, unless expired or (with maxAgeSeconds) stored longer ago than that. */
  get(key: string, opts?: { maxAgeSeconds?: number }): CachedResult | undefined;
  /** Stores for ttlSeconds (default: the cache's TTL); a TTL of 0 stores nothing. */
  set(key: string, value: CachedResult, opts?: { ttlSeconds?: number }): void;
  /** Bytes currently held (bodies, headers and keys). */
  readonly bytes: number;
  readonly size: number;
}

/** Fixed overhead counted per entry besides its bytes (the Map slot, the object, timestamps). */
const ENTRY_OVERHEAD = 256;

function sizeOf(key: string, v: CachedResult): number {
  let n = ENTRY_OVERHEAD + key.length * 2 + v.body.length + v.contentType.length * 2;
  for (const [k, x] of Object.entries(v.headers)) n += (k.length + x.length) * 2;
  return n;
}

export function createResultCache(opts: { ttlSeconds: number; maxBytes: number; now?: () => number }): ResultCache {
  const now = opts.now ?? Date.now;
  const ttlMs = opts.ttlSeconds * 1000;
  const enabled = opts.ttlSeconds > 0 && opts.maxBytes > 0;
  // A Map iterates in insertion order: re-inserting on every hit keeps the oldest use first.
  const entries = new Map<string, { value: CachedResult; stored: number; expires: number; size: number }>();
  let bytes = 0;

  const remove = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    bytes -= e.size;
  };

  return {
    get(key, getOpts = {}) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.expires <= now()) {
        remove(key);
        return undefined;
      }
      if (getOpts.maxAgeSeconds !== undefined && now() - e.stored >= getOpts.maxAgeSeconds * 1000) return undefined;
      entries.delete(key);
      entries.set(key, e);
      return e.value;
    },
    set(key, value, setOpts = {}) {
      const ttl = setOpts.ttlSeconds !== undefined ? setOpts.ttlSeconds * 1000 : ttlMs;
      if (!enabled || ttl <= 0) return;
      remove(key);
      const size = sizeOf(key, value);
      if (size > opts.maxBytes) return; // larger than the whole cache: not worth evicting everything
      // Copy the body: the caller's Buffer may be a view into a pooled or reused allocation.
      const stored = { ...value, body: Buffer.from(value.body), headers: { ...value.headers } };
      entries.set(key, { value: stored, stored: now(), expires: now() + ttl, size });
      bytes += size;
      const t = now();
      for (const [k, e] of entries) {
        if (bytes <= opts.maxBytes) break;
        if (k !== key || e.expires <= t) remove(k);
      }
    },
    get bytes() {
      return bytes;
    },
    get size() {
      return entries.size;
    },
  };
}

/** JSON with object keys sorted at every level and undefined members dropped. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const members = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`);
  return `{${members.join(',')}}`;
}

/**
 * The cache key of a validated url-mode request for one account: the account id and a SHA-256 of
 * the canonical JSON of the normalised request (validateRequest has applied the defaults and
 * normalised the URL, so `{url}` and `{url, format: "png"}` share an entry).
 */
export function cacheKey(accountId: string, req: ScreenshotRequest): string {
  if (req.html !== undefined || req.url === undefined) throw new Error('cacheKey: html results are never cached');
  return `${accountId}:${createHash('sha256').update(canonicalJson(req)).digest('base64url')}`;
}

/**
 * What a request's `Cache-Control` asks of the cache: `no-cache` or `max-age=0` renders fresh (and
 * the fresh result replaces the cached one); `no-store` renders fresh and stores nothing.
 */
export function cachePolicy(cacheControl: string | undefined): { lookup: boolean; store: boolean } {
  const d = (cacheControl ?? '').toLowerCase().split(',').map((s) => s.trim());
  const noStore = d.includes('no-store');
  const fresh = noStore || d.includes('no-cache') || d.some((x) => /^max-age\s*=\s*"?0"?$/.test(x));
  return { lookup: !fresh, store: !noStore };
}
