// The headers that are not capture facts: those of errors (written from the error's facts), of
// CORS and OPTIONS (server/http/cors.ts), of draining (server/http/drain.ts) and of the
// playground's files (server/playground/routes.ts). Named here so that no other file spells them.
import { CORS_REQUEST_HEADERS } from '../kinds/headers.ts';
import type { ResponseHeader } from './header.ts';

export const PROTOCOL_HEADERS = {
  retryAfter: {
    name: 'Retry-After',
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
    sent: ['error'],
    expose: true,
    fromError: { codes: ['rate_limited', 'overloaded'], write: (f) => (f.retryAfterSeconds === undefined ? undefined : String(f.retryAfterSeconds)) },
  },
  wwwAuthenticate: {
    name: 'WWW-Authenticate',
    description: 'The Bearer challenge (RFC 6750), with `error="invalid_token"` when a key was sent but is not valid.',
    schema: { type: 'string', examples: ['Bearer realm="screenshot", error="invalid_token"'] },
    sent: ['error'],
    expose: true,
    fromError: { codes: ['unauthorized'], write: (f) => f.challenge },
  },
  allow: {
    name: 'Allow',
    description: 'The methods a known route accepts: on its 405 `method_not_allowed`, and with `OPTIONS` added on the 204 answer to OPTIONS.',
    schema: { type: 'string', examples: ['POST', 'GET, HEAD, OPTIONS'] },
    sent: ['error', 'options'],
    expose: false,
    fromError: { codes: ['method_not_allowed'], write: (f) => f.allow },
  },
  vary: {
    name: 'Vary',
    description: "`Origin` when CORS_ORIGINS lists origins (not `*`): answers differ by the calling page's origin, and caches must keep them apart.",
    schema: { type: 'string', enum: ['Origin'] },
    sent: ['cross-origin'],
    expose: false,
  },
  allowOrigin: {
    name: 'Access-Control-Allow-Origin',
    description: "The calling page's origin when CORS_ORIGINS lists it (`*` when it is `*`); absent for any other origin.",
    schema: { type: 'string' },
    sent: ['cross-origin'],
    expose: false,
  },
  exposeHeaders: {
    name: 'Access-Control-Expose-Headers',
    description: 'The response headers such a page may read (besides the CORS-safelisted ones): those readable cross-origin here.',
    schema: { type: 'string' },
    sent: ['cross-origin'],
    expose: false,
  },
  allowMethods: {
    name: 'Access-Control-Allow-Methods',
    description: 'The methods of the route a preflight asks about.',
    schema: { type: 'string' },
    sent: ['preflight'],
    expose: false,
  },
  allowHeaders: {
    name: 'Access-Control-Allow-Headers',
    description: `The request headers a listed origin's page may send: ${CORS_REQUEST_HEADERS.map((h) => `\`${h}\``).join(', ')}.`,
    schema: { type: 'string' },
    sent: ['preflight'],
    expose: false,
  },
  maxAge: {
    name: 'Access-Control-Max-Age',
    description: "Seconds a browser may reuse a preflight's answer.",
    schema: { type: 'integer', minimum: 0 },
    sent: ['preflight'],
    expose: false,
  },
  connection: {
    name: 'Connection',
    description: '`close` while the replica drains, so that clients open their next connection to another replica.',
    schema: { type: 'string', enum: ['close'] },
    sent: ['draining'],
    expose: false,
  },
  contentSecurityPolicy: {
    name: 'Content-Security-Policy',
    description: "The playground page's strict policy (scripts, styles and fetches from this origin only; no framing); `default-src 'none'` on /README.md.",
    schema: { type: 'string' },
    sent: ['static'],
    expose: false,
  },
  referrerPolicy: {
    name: 'Referrer-Policy',
    description: "`no-referrer` on the playground's files.",
    schema: { type: 'string', enum: ['no-referrer'] },
    sent: ['static'],
    expose: false,
  },
  contentTypeOptions: {
    name: 'X-Content-Type-Options',
    description: "`nosniff` on the playground's files and /README.md.",
    schema: { type: 'string', enum: ['nosniff'] },
    sent: ['static'],
    expose: false,
  },
  mcpSessionId: {
    name: 'Mcp-Session-Id',
    description: "MCP Streamable HTTP's session id. This stateless server issues none; exposed for browser MCP clients, which look for it on every MCP answer.",
    schema: { type: 'string' },
    sent: ['never'],
    expose: true,
  },
} as const satisfies Record<string, ResponseHeader>;
