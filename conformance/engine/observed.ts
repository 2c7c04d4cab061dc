// What a request of a case came back as, whichever way it went (exchange.ts over HTTP, mcp-client.ts
// through an MCP session): what the verdict (verdict.ts) judges.
import type { HttpResponse } from './http.ts';

export interface Observed extends HttpResponse {
  /** The JSON observed: an HTTP body that is JSON (or the first JSON `data:` event of an event stream), or an MCP result. */
  json?: unknown;
  /** The text observed: an MCP result's text blocks, or a JSON-RPC error's message. */
  text?: string;
}
