// The MCP server at /mcp (spec §4.2, §5): Streamable HTTP, stateless; the tools take_screenshot,
// compare_screenshots (with a compare service) and submit_batch, get_batch (with batches).
//   POST /mcp          Bearer key checked first with the REST code (server/edge/auth.ts): a missing
//                      or unknown key is 401 + WWW-Authenticate as on POST /v1/screenshot, with a
//                      JSON-RPC error body (data: {error: "unauthorized", message}) because that
//                      is what MCP clients show. Then one JSON-RPC exchange.
//   GET, DELETE, ...   405 method_not_allowed (Allow: POST). Stateless: there is no session to
//                      resume or end and no server-initiated stream; the SDK client reads 405 on
//                      GET as "no stream offered". The body is our catalogue shape {error, message}.
// Stateless mode of @modelcontextprotocol/sdk v1 needs a fresh Server and transport per request
// (reusing either fails), which is cheap: the state is the two request handlers below.
// JSON responses (not SSE) are enabled: a call is one synchronous capture, there is nothing to
// stream, and plain HTTP clients (the conformance suite) can read the answer directly.
import express, { type Request, type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Account, Accounts } from '../accounts/index.ts';
import { ServiceError } from '../errors.ts';
import { cachePolicy, type CachePolicy } from '../http-caching/cache-control.ts';
import { authenticate, sendMcpUnauthorized } from '../edge/auth.ts';
import { BODY_LIMIT_BYTES } from '../edge/body-limit.ts';
import { whileConnected } from '../edge/while-connected.ts';
import { REQUEST_HEADER } from '../kinds/headers.ts';
import { ATTR, SPAN } from '../telemetry/attributes.ts';
import { inSpan, spanError } from '../telemetry/spans.ts';
import type { Span } from '@opentelemetry/api';
import type { Logger } from '../log.ts';
import type { CaptureService } from '../service.ts';
import type { CompareService } from '../compare/service.ts';
import type { BatchService } from '../batches/service.ts';
import { batchToolDefinitions, callBatchTool, GET_BATCH_TOOL, SUBMIT_BATCH_TOOL } from './batch-tools.ts';
import { callCompare, compareToolDefinition, COMPARE_TOOL_NAME } from './compare-tool.ts';
import { callTakeScreenshot, toolDefinition, TOOL_NAME } from './tool.ts';

export const MCP_SERVER_INFO = { name: 'screenshot-service', version: '1.0.0' } as const;

export interface McpDeps {
  accounts: Accounts;
  capture: CaptureService;
  /** compare_screenshots (POST /v1/compare); without it the server has take_screenshot only. */
  compare?: CompareService;
  /** submit_batch and get_batch (server/batches/); without it the server has no batch tools. */
  batches?: BatchService;
  log: Logger;
}

interface PerRequest {
  account: Account;
  requestId: string;
  cache: CachePolicy;
  res: Response;
  /** Aborted when the caller disconnects before its answer is written. */
  gone: AbortSignal;
}

function createMcpServer(deps: McpDeps, r: PerRequest): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      `Use ${TOOL_NAME} to see a web page or rendered HTML as an image${deps.compare ? `, ${COMPARE_TOOL_NAME} to see what changed against a baseline` : ''}` +
      `${deps.batches ? `, ${SUBMIT_BATCH_TOOL} to queue many captures and ${GET_BATCH_TOOL} to follow them` : ''}.`,
  });
  const batchTools = deps.batches ? batchToolDefinitions() : [];
  const tools = [toolDefinition(), ...(deps.compare ? [compareToolDefinition()] : []), ...batchTools];
  const names = tools.map((t) => t.name);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (!names.includes(request.params.name))
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(request.params.name)}; this server has ${names.join(', ')}`);
    const tool = request.params.name;
    const attributes = { [ATTR.mcpMethod]: 'tools/call', [ATTR.toolName]: tool };
    return inSpan(SPAN.toolCall(tool), { attributes }, (span) => callTool(request.params.arguments, tool, extra.signal, span));
  });

  function callTool(args: Record<string, unknown> | undefined, tool: string, cancelled: AbortSignal, span: Span | undefined) {
    const ctx = {
      account: r.account,
      capture: deps.capture,
      log: deps.log,
      requestId: r.requestId,
      cache: r.cache,
      // A caller that goes away (its HTTP connection, or an MCP cancellation: extra.signal) stops
      // the render and is not billed, as on REST.
      signal: AbortSignal.any([r.gone, cancelled]),
      onError: (code: string) => {
        r.res.locals.errorCode = code;
        if (span) spanError(span, code);
      },
    };
    if (tool === COMPARE_TOOL_NAME && deps.compare) return callCompare(args, { ...ctx, compare: deps.compare });
    if (deps.batches && batchTools.some((t) => t.name === tool)) return callBatchTool(tool, args, { ...ctx, batches: deps.batches });
    return callTakeScreenshot(args, ctx);
  }
  return server;
}

export function mcpRouter(deps: McpDeps): express.Router {
  const router = express.Router();
  router.post(
    '/',
    async (req: Request, res: Response, next) => {
      try {
        res.locals.account = await authenticate(deps.accounts, req.get(REQUEST_HEADER.authorization));
      } catch (e) {
        // The 401 in the shape MCP clients show (server/edge/auth.ts); other faults go on to the error handler.
        if (e instanceof ServiceError && e.code === 'unauthorized') return sendMcpUnauthorized(res, e);
        throw e;
      }
      next();
    },
    express.json({ limit: BODY_LIMIT_BYTES }),
    // One JSON-RPC exchange; its tool call's outcome is the tool result's (isError), not counted
    // with the REST answers.
    (req: Request, res: Response) =>
      whileConnected(res, undefined, async (gone) => {
        const server = createMcpServer(deps, {
          gone,
          account: res.locals.account as Account,
          requestId: String(res.locals.requestId ?? ''),
          cache: cachePolicy(req.get(REQUEST_HEADER.cacheControl)),
          res,
        });
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
      }),
  );
  router.all('/', () => {
    throw new ServiceError('method_not_allowed', 'the MCP endpoint is stateless Streamable HTTP: it accepts POST only', { allow: 'POST' });
  });
  return router;
}
