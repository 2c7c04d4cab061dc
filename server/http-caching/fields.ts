// The request field of HTTP caching, defined here and spread into the one request schema
// (server/request/schema.ts), which validation, types, /openapi.json, the MCP tool and the
// playground derive from. CACHE_TTL_SECONDS (server/settings.ts) has the same bound.
import { CACHE_TTL_MAX_SECONDS, DAY_SECONDS, type FieldsOf } from '../kinds/request.ts';

export const cacheTtlField = {
  type: 'integer',
  minimum: 0,
  maximum: CACHE_TTL_MAX_SECONDS,
  description:
    `Seconds a cached capture of the same url-mode request may be reused, free (0 = always render afresh; at most ${CACHE_TTL_MAX_SECONDS}, ${CACHE_TTL_MAX_SECONDS / DAY_SECONDS} days); ` +
    "a fresh capture is kept this long. Default: the server's CACHE_TTL_SECONDS (300 unless configured). A signed link answers " +
    '`Cache-Control: public, max-age=` this, at most until the link expires. Not part of the cache key.',
  'x-rule': `an integer number of seconds between 0 and ${CACHE_TTL_MAX_SECONDS}`,
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ cacheTtl: typeof cacheTtlField }> {}
}
