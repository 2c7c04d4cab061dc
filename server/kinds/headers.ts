// The request headers this server reads, named once. The routes read them by these names; a
// cross-origin page may send those marked `cors` (Access-Control-Allow-Headers, server/http/cors.ts);
// /openapi.json describes the parameters with these descriptions. Their counterpart for answers is
// the response registry (server/response/registry.ts). A test fails when a header name is spelled
// anywhere else in server/ (server/response/literals.test.ts).

interface RequestHeader {
  /** As documents spell it; read in lower case. */
  name: string;
  description: string;
  /** A cross-origin page may send it (listed in a preflight's Access-Control-Allow-Headers). */
  cors: boolean;
}

export const REQUEST_HEADERS = {
  authorization: { name: 'Authorization', cors: true, description: 'The API key: `Bearer <API_KEY>` (spec §5). Signed links carry none.' },
  contentType: { name: 'Content-Type', cors: true, description: '`application/json` on POST /v1/screenshot and /mcp (415 otherwise).' },
  cacheControl: {
    name: 'Cache-Control',
    cors: true,
    description: 'url mode: `no-cache` (or `max-age=0`) renders afresh and stores the result; `no-store` renders afresh and stores nothing.',
  },
  ifNoneMatch: {
    name: 'If-None-Match',
    cors: false,
    description: 'The ETag of an image you have: 304 Not Modified with no body when the capture is the same (free when it came from the cache).',
  },
  accept: { name: 'Accept', cors: true, description: 'MCP Streamable HTTP clients send `application/json, text/event-stream`.' },
  origin: { name: 'Origin', cors: false, description: 'Sent by browsers; a listed origin (CORS_ORIGINS) may call the API.' },
  accessControlRequestMethod: { name: 'Access-Control-Request-Method', cors: false, description: 'Marks an OPTIONS request as a CORS preflight.' },
  mcpProtocolVersion: { name: 'Mcp-Protocol-Version', cors: true, description: 'MCP Streamable HTTP: the protocol version the client speaks.' },
  mcpSessionId: { name: 'Mcp-Session-Id', cors: true, description: 'MCP Streamable HTTP sessions (this stateless server issues none).' },
  lastEventId: { name: 'Last-Event-ID', cors: true, description: 'MCP Streamable HTTP: resuming a stream (this server offers none).' },
} as const satisfies Record<string, RequestHeader>;

type Id = keyof typeof REQUEST_HEADERS;

/** Each request header's name in lower case, by id: what the routes pass to req.get(). */
export const REQUEST_HEADER = Object.fromEntries(Object.entries(REQUEST_HEADERS).map(([id, h]) => [id, h.name.toLowerCase()])) as Record<Id, string>;

/** Request headers a cross-origin page may send: the API's and MCP Streamable HTTP's. */
export const CORS_REQUEST_HEADERS: readonly string[] = Object.values(REQUEST_HEADERS)
  .filter((h) => h.cors)
  .map((h) => h.name.toLowerCase());
