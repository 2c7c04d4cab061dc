// What a capture answer says besides its image, as typed facts. The capture service
// (server/service.ts) produces them and knows nothing of HTTP; the response registry
// (./registry.ts) turns them into headers, OpenAPI, the CORS expose list, the playground's list and
// the MCP result's `_meta`.
import type { Figures } from '../../lib/visual-diff/compare.ts';
import type { PictureFacts } from '../render/picture-facts.ts';
import type { StepTiming } from '../toolkit/step-names.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';

/** Everything one capture answer reports: the picture's facts and what this request did. */
export interface CaptureFacts extends PictureFacts {
  format: ScreenshotRequest['format'];
  /** `hit`: the picture came from the result cache (free); `miss`: rendered for this request. */
  cache: 'hit' | 'miss';
  credits: { charged: number; remaining: number };
  /** The render's steps; absent when the picture came from the cache. */
  timings?: readonly StepTiming[];
  /** Seconds this capture may be reused: the request's cacheTtl, else the server's; 0 for a capture cut short. */
  cacheTtl: number;
}

/** What a comparison answer (POST /v1/compare) reports besides its diff picture. */
export interface CompareFacts extends Figures {
  /** How many rectangles were masked: ignoreRegions and the boxes of ignoreSelectors. */
  masks: number;
  /** Credits this request cost (one per capture rendered, 0 for cached ones) and the balance after. */
  credits: { charged: number; remaining: number };
  current: Figures['current'] & { cache: CaptureFacts['cache']; format: CaptureFacts['format'] };
  /** The baseline's size and, when it was a capture, its cache and format. */
  baseline: Figures['baseline'] & ({ cache: CaptureFacts['cache']; format: CaptureFacts['format'] } | { image: true });
  /** Seconds the answer may be reused: the shorter of its captures' (signed links). */
  cacheTtl: number;
}

/** Who reads a capture answer: the key's owner (POST) or anyone holding a signed link (GET). */
export type Audience = { kind: 'private' } | { kind: 'public'; /** the link's expiry, epoch seconds */ expires: number };
