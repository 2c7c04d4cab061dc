// Capture facts (server/response/facts.ts) as the service answers them, for unit tests that stand
// in for the service or the cache: the one place to extend when the render reports a new fact that
// is always present.
import type { CaptureFacts } from '../../server/response/facts.ts';
import type { PictureFacts } from '../../server/render/picture-facts.ts';

export function pictureFacts(f: Partial<PictureFacts> = {}): PictureFacts {
  return { etag: '"e"', bannerAction: 'none', waitTimedOut: [], blockedRequests: 0, ...f };
}

/** A rendered capture's facts: one credit charged, 41 left, a cache miss. */
export function captureFacts(f: Partial<CaptureFacts> = {}): CaptureFacts {
  return { ...pictureFacts(), format: 'png', cache: 'miss', credits: { charged: 1, remaining: 41 }, cacheTtl: 300, ...f };
}
