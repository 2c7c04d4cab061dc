// The JSON body limit of the routes that take a request body: the REST routes' table
// (server/http/app.ts) and the MCP router (server/mcp/router.ts), which sit side by side above it.
// html may be HTML_MAX_BYTES (server/kinds/request.ts), and JSON escaping can grow it several times.
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;
