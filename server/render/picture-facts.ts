// The picture's facts: what the render found out about its picture, which the result cache keeps
// beside it. They live with the render that produces them, below the cache and the capture
// service's answer (server/response/facts.ts), which both read them.
import type { RenderResult } from './pipeline.ts';

/**
 * What the render found out about its picture: every member of the render's result except the
 * image itself and the per-request timings, plus the picture's strong validator. Stored with the
 * picture in the result cache, so that a cache hit answers the same facts. A fact the render
 * adds to its result (./pipeline.ts) arrives here, and in the cache, by itself.
 */
export type PictureFacts = Omit<RenderResult, 'body' | 'width' | 'height' | 'timings' | 'boxes'> & {
  /** The strong validator of the bytes (server/http-caching/etag.ts). */
  etag: string;
};

/**
 * Every member of PictureFacts, at run time (the type is gone then): the result cache's entry shape
 * is derived from it (server/cache/index.ts), so that a new fact makes a new shape by itself. The
 * type check refuses a list that misses a fact or names one that is not.
 */
export const PICTURE_FACTS = {
  bannerAction: true,
  targetStatus: true,
  finalUrl: true,
  truncated: true,
  waitTimedOut: true,
  blockedRequests: true,
  etag: true,
} as const satisfies Record<keyof PictureFacts, true>;
