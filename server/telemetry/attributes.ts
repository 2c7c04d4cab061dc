// Every span name and attribute key this service writes, in one place. The HTTP ones are the
// OpenTelemetry semantic conventions' (https://opentelemetry.io/docs/specs/semconv/http/http-spans/);
// ours are under `screenshot.` and say what a capture did, never what the page holds: no URL
// query, page content, cookie, header value, API key, html or picture (docs/operations.md, "Traces").
export const ATTR = {
  // HTTP server span (semantic conventions)
  method: 'http.request.method',
  route: 'http.route',
  status: 'http.response.status_code',
  path: 'url.path',
  scheme: 'url.scheme',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  protocolVersion: 'network.protocol.version',
  errorType: 'error.type',
  // MCP tool calls (semantic conventions for MCP and GenAI tools)
  mcpMethod: 'mcp.method.name',
  toolName: 'gen_ai.tool.name',
  // ours
  requestId: 'screenshot.request_id',
  stepDescription: 'screenshot.step.description',
  format: 'screenshot.format',
  mode: 'screenshot.mode',
  outcome: 'screenshot.outcome',
  bytes: 'screenshot.image.bytes',
  width: 'screenshot.image.width',
  height: 'screenshot.image.height',
  bannerAction: 'screenshot.banner_action',
  blockedRequests: 'screenshot.blocked_requests',
  targetStatus: 'screenshot.target_status',
  truncated: 'screenshot.truncated',
  truncatedFrom: 'screenshot.truncated.from_height',
  waitTimedOut: 'screenshot.wait_timed_out',
  boxes: 'screenshot.boxes',
  background: 'screenshot.background',
  batchId: 'screenshot.batch.id',
  batchItem: 'screenshot.batch.item',
  batchAttempt: 'screenshot.batch.last_attempt',
  eventType: 'screenshot.webhook.event_type',
  deliveryAttempt: 'screenshot.webhook.attempt',
  diffPixels: 'screenshot.compare.diff_pixels',
  diffRatio: 'screenshot.compare.ratio',
  diffRegions: 'screenshot.compare.regions',
  masks: 'screenshot.compare.masks',
} as const;

/** The spans that are not an HTTP request's or a render step's (those are named by method and route, and by step). */
export const SPAN = {
  render: 'render',
  compare: 'compare',
  batchItem: 'batch item',
  webhook: 'webhook delivery',
  toolCall: (tool: string) => `tools/call ${tool}`,
} as const;
