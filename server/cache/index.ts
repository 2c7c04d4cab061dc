// The result cache (spec §1 billing: cached results are never billed; DESIGN §3 `x-cache`).
// One cache for every replica: it lives in the store the ledger uses (PostgreSQL with
// DATABASE_URL, else the embedded PGlite store; server/cache/sql.ts), bounded by CACHE_MAX_BYTES
// (least recently used evicted first) and expiring CACHE_TTL_SECONDS after it was stored.
// Identical requests arriving together cause one render (single flight, in server/cache/shared.ts).
// Only `url`-mode results are cached, per account, keyed by the normalised request and the
// browser's version; `html` results are never cached or written anywhere (spec §1, DESIGN §3),
// and cacheKey refuses them.
import { createHash } from 'node:crypto';
import type { ScreenshotRequest } from '../kinds/request.ts';
import type { ServiceError } from '../errors.ts';
import { PICTURE_FACTS, type PictureFacts } from '../render/picture-facts.ts';

export interface CachedResult {
  body: Buffer;
  contentType: string;
  width: number;
  height: number;
  /** What the render found out about the picture (banner action, target status...): a hit answers the same. */
  picture: PictureFacts;
  /** When the entry was stored (epoch ms); set by the cache on get. */
  storedAt?: number;
}

export interface ResultCache {
  /** The entry, if stored, unexpired and (with maxAgeSeconds) stored at most that long ago. */
  get(key: string, opts?: { maxAgeSeconds?: number }): Promise<CachedResult | undefined>;
  /** Stores (or replaces) an entry for ttlSeconds (default CACHE_TTL_SECONDS). */
  set(key: string, value: CachedResult, opts?: { ttlSeconds?: number }): Promise<void>;
  /**
   * Single flight: the entry if present; else, if an identical render is in flight (on any
   * replica), waits for it and returns its result (`joined`); else makes the caller the one that
   * renders (`lead`), which it ends with lead.end() whatever happened. A waiter stops waiting
   * when `deadline.at` (epoch ms) passes and rejects with `deadline.expired()`: the time spent
   * waiting for another render counts against the request's own budget.
   */
  acquire(key: string, opts?: { maxAgeSeconds?: number; signal?: AbortSignal; deadline?: WaitDeadline }): Promise<Acquired>;
  /** False when CACHE_TTL_SECONDS or CACHE_MAX_BYTES is 0: nothing is looked up or stored. */
  readonly enabled: boolean;
}

export type Acquired = { hit: CachedResult; joined: boolean; lead?: undefined } | { hit?: undefined; lead: { end(): Promise<void> } };

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
 * The shape of a stored entry, part of every key: replicas that store another shape (during a
 * rolling upgrade) never read each other's entries, which expire by themselves. Derived from what
 * an entry holds, the picture's facts (PICTURE_FACTS, render/picture-facts.ts): a fact added to the
 * render's result makes a new shape by itself, so an entry stored without it is never answered.
 */
export function entryShape(facts: Readonly<Record<string, true>> = PICTURE_FACTS): string {
  return `picture-facts:${Object.keys(facts).sort().join(',')}`;
}
const ENTRY_SHAPE = entryShape();

/**
 * The cache key of a validated url-mode request for one account: the account id and a SHA-256 of
 * the entry shape, the browser's version and the canonical JSON of the normalised request
 * (validateRequest has applied the defaults and normalised the URL, so `{url}` and
 * `{url, format: "png"}` share an entry; a new Chromium renders afresh).
 */
export function cacheKey(accountId: string, req: ScreenshotRequest, browserVersion = '', shape = ENTRY_SHAPE): string {
  if (req.html !== undefined || req.url === undefined) throw new Error('cacheKey: html results are never cached');
  return `${accountId}:${createHash('sha256')
    .update(`${shape}\n${browserVersion}\n${canonicalJson(req)}`)
    .digest('base64url')}`;
}

/** When a request stops waiting for an identical render, and the error it then gets. */
export interface WaitDeadline {
  at: number;
  expired(): ServiceError;
}
