// The one response registry: every header this server sends, with its name, value schema,
// description, when it is sent, whether a cross-origin page may read it, and how it is written
// from the facts of a capture or an error (./header.ts). Everything else derives from it:
//   the headers the routes write      ./write.ts (capture answers, errors), HEADER (names, below)
//   OpenAPI's response headers        ./openapi.ts -> server/http/openapi.ts
//   the CORS expose list              EXPOSED_HEADERS -> server/http/cors.ts
//   the playground's list             server/playground/headers.ts (GET /playground/headers.json)
//   the facts as JSON members         ./write.ts jsonFacts -> the MCP result's `_meta` (server/mcp/tool.ts),
//                                     a batch item's `facts` (server/batches/service.ts)
// Adding a response fact: CONTRIBUTING.md "Adding a response fact". No other file in server/
// spells a header name (literals.test.ts); every header has a description and a row in the
// README's response section (registry.test.ts).
import { CAPTURE_HEADERS } from './capture-headers.ts';
import { COMPARE_HEADERS } from './compare-headers.ts';
import type { ResponseHeader } from './header.ts';
import { PROTOCOL_HEADERS } from './protocol-headers.ts';

export const RESPONSE_HEADERS = { ...CAPTURE_HEADERS, ...COMPARE_HEADERS, ...PROTOCOL_HEADERS };

export type HeaderId = keyof typeof RESPONSE_HEADERS;

/** The registry in order, as plain entries. */
export const HEADER_LIST: readonly ResponseHeader[] = Object.values(RESPONSE_HEADERS);

/** The name on the wire: lower case, as Node and HTTP/2 write it. */
export const wireName = (h: Pick<ResponseHeader, 'name'>) => h.name.toLowerCase();

/** Each header's wire name by id, for the code that writes one itself: `res.set(HEADER.allow, ...)`. */
export const HEADER = Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([id, h]) => [id, wireName(h)])) as Record<HeaderId, string>;

/** Headers a page on a listed origin may read (Access-Control-Expose-Headers). */
export const EXPOSED_HEADERS: readonly string[] = HEADER_LIST.filter((h) => h.expose).map(wireName);
