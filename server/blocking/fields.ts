// The request fields of request blocking, spread into the one request schema
// (server/request/schema.ts). What they do is in ./index.ts. This file imports only the request kinds.
import type { FieldsOf } from '../kinds/request.ts';

export const BLOCK_URLS_MAX = 50;
export const BLOCK_URL_MAX_CHARS = 2000;

/** What blockResourceTypes may name (the browser's resource types; `other` is everything else but documents). */
export const BLOCKABLE_TYPES = ['image', 'media', 'font', 'stylesheet', 'script', 'xhr', 'fetch', 'websocket', 'other'] as const;
export type BlockableType = (typeof BLOCKABLE_TYPES)[number];

export const blockResourceTypesField = {
  type: 'array',
  maxItems: BLOCKABLE_TYPES.length,
  uniqueItems: true,
  items: { type: 'string', enum: BLOCKABLE_TYPES, 'x-rule': `one of ${BLOCKABLE_TYPES.map((t) => `"${t}"`).join(', ')}` },
  description:
    'Requests of these types are refused inside the browser before they are sent (in every frame): image, media (audio, video), ' +
    'font, stylesheet, script, xhr, fetch, websocket, other (beacons, event streams, manifests, text tracks, prefetches). The page ' +
    'itself is always loaded; data: and blob: URLs are not requests. x-blocked-requests counts what was refused.',
  'x-rule': 'an array of distinct resource types',
} as const;

export const blockUrlsField = {
  type: 'array',
  maxItems: BLOCK_URLS_MAX,
  items: { type: 'string', minLength: 1, maxLength: BLOCK_URL_MAX_CHARS, 'x-rule': `a non-empty URL pattern of at most ${BLOCK_URL_MAX_CHARS} characters` },
  description:
    `At most ${BLOCK_URLS_MAX} URL patterns; requests whose whole URL matches one are refused inside the browser before they are sent, ` +
    'as with blockResourceTypes. `*` matches any characters (none included); everything else matches itself, case-sensitively: ' +
    "`*://*.doubleclick.net/*`, `*/ads/*`, `*.woff2`. The page's own document is never blocked.",
  'x-rule': `an array of at most ${BLOCK_URLS_MAX} URL patterns`,
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ blockResourceTypes: typeof blockResourceTypesField; blockUrls: typeof blockUrlsField }> {}
}
