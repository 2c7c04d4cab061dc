// The MCP transport of the runner (spec §4.2): MCP requests of a case (model.ts McpRequestSpec)
// go over MCP's Streamable HTTP transport as an agent's client speaks it: `initialize` (the
// protocol version negotiated, a session id carried if the implementation issues one), then
// `tools/list` and `tools/call`, answers read as JSON or as an SSE stream alike. It is written
// here on undici rather than taken from the SDK, whose package brings a whole server (express,
// hono) into every install of the suite. One session per key per run, opened on first use. What
// it observes becomes an Observed (exchange.ts), judged by the same verdict code as HTTP responses:
//   list-tools  json = { capabilities, tools, tool }   (tool: the one an agent would pick)
//   call-tool   json = the result without image data, plus rpcError when the call was refused
//               with a JSON-RPC error; text = the text blocks (or the error's message);
//               body = the first image block's bytes, content-type its mimeType.
// Bare HTTP exchanges with the MCP endpoint (auth, methods) go through the HTTP client instead.
import { Agent, request } from 'undici';
import type { McpRequestSpec } from '../model/model.ts';
import type { Observed } from './observed.ts';

/** The protocol version the suite asks for; the implementation may answer with another it supports. */
export const MCP_PROTOCOL_VERSION = '2025-11-25';

export interface Tool {
  name: string;
  description?: string;
  inputSchema: { type?: string; properties?: Record<string, unknown> };
}

interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
}

interface CallToolResult {
  content: ContentBlock[];
  isError?: boolean;
  [k: string]: unknown;
}

/** A JSON-RPC error answer (the call was refused: unknown tool, invalid params, ...). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const agent = new Agent({ headersTimeout: 120_000, bodyTimeout: 120_000 });

/** One MCP session over Streamable HTTP. */
class McpClient {
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private nextId = 1;
  capabilities: Record<string, unknown> | null = null;

  constructor(
    private readonly url: string,
    private readonly key: string,
  ) {}

  private headers(): Record<string, string> {
    return {
      authorization: `Bearer ${this.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
    };
  }

  /** Sends a request and returns its result; a JSON-RPC error becomes an RpcError. */
  async call(method: string, params: Record<string, unknown>, timeoutMs = 90_000): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const res = await request(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`MCP ${method}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    const session = res.headers['mcp-session-id'];
    if (typeof session === 'string') this.sessionId = session;
    const type = String(res.headers['content-type'] ?? '');
    const messages = type.startsWith('text/event-stream') ? sseMessages(text) : [text];
    for (const m of messages) {
      const msg = JSON.parse(m) as { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
      if (msg.id !== id) continue; // a notification or a request of the server's: not our answer
      if (msg.error) throw new RpcError(msg.error.code, msg.error.message);
      return msg.result ?? {};
    }
    throw new Error(`MCP ${method}: no answer to request ${id} in the response`);
  }

  async notify(method: string): Promise<void> {
    const res = await request(this.url, { method: 'POST', headers: this.headers(), body: JSON.stringify({ jsonrpc: '2.0', method }), dispatcher: agent });
    await res.body.dump();
  }

  async connect(): Promise<Tool[]> {
    const init = await this.call('initialize', {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'screenshot-conformance', version: '1.0.0' },
    });
    this.protocolVersion = typeof init.protocolVersion === 'string' ? init.protocolVersion : MCP_PROTOCOL_VERSION;
    this.capabilities = (init.capabilities as Record<string, unknown> | undefined) ?? null;
    await this.notify('notifications/initialized');
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.call('tools/list', cursor ? { cursor } : {});
      tools.push(...((page.tools as Tool[] | undefined) ?? []));
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor);
    return tools;
  }

  /** Ends the session where the implementation issued one (DELETE, as the transport specifies). */
  async close(): Promise<void> {
    if (!this.sessionId) return;
    const res = await request(this.url, { method: 'DELETE', headers: this.headers(), dispatcher: agent });
    await res.body.dump();
  }
}

/** The data of each event of a text/event-stream body. */
function sseMessages(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n'),
    )
    .filter(Boolean);
}

/** Thrown when a case cannot run against this implementation (its tool lacks a parameter). */
export class SkipCase extends Error {}

const CALL_TIMEOUT_MS = 90_000;

/** The tool an agent would pick for screenshots: the name or description speaks of screenshots or capture. */
export function findScreenshotTool(tools: Tool[]): Tool | undefined {
  return tools.find((t) => /screenshot/i.test(t.name)) ?? tools.find((t) => /screenshot|capture/i.test(`${t.name} ${t.description ?? ''}`));
}

function hasParam(tool: Tool, name: string): boolean {
  const props = tool.inputSchema?.properties as Record<string, unknown> | undefined;
  return !!props && Object.prototype.hasOwnProperty.call(props, name);
}

interface Session {
  client: McpClient;
  tools: Tool[];
}

/** MCP client sessions of one run, one per key. */
export class McpSessions {
  private sessions = new Map<string, Promise<Session>>();
  constructor(private readonly mcpUrl: string) {}

  private session(key: string): Promise<Session> {
    let s = this.sessions.get(key);
    if (!s) {
      s = (async () => {
        const client = new McpClient(this.mcpUrl, key);
        const tools = await client.connect();
        return { client, tools };
      })();
      s.catch(() => this.sessions.delete(key)); // a failed connect is retried by the next case
      this.sessions.set(key, s);
    }
    return s;
  }

  async exchange(spec: McpRequestSpec, key: string, args: Record<string, unknown>): Promise<Observed> {
    const t0 = performance.now();
    const { client, tools } = await this.session(key);
    const tool = findScreenshotTool(tools);
    if (spec.mcp === 'list-tools') {
      const json = { capabilities: client.capabilities, tools, tool: tool ?? null };
      return { status: 200, headers: {}, body: Buffer.alloc(0), durationMs: performance.now() - t0, json };
    }
    if (!tool) throw new Error(`no screenshot tool among ${JSON.stringify(tools.map((x) => x.name))}`);
    const missing = (spec.params ?? Object.keys(spec.arguments ?? {})).filter((n) => !hasParam(tool, n));
    if (missing.length)
      throw new SkipCase(
        `the tool ${tool.name} declares no ${missing.join(', ')} parameter; the suite drives it with the REST body's field names (spec §2.1, §4.2)`,
      );
    let result: CallToolResult;
    try {
      result = (await client.call('tools/call', { name: tool.name, arguments: args }, CALL_TIMEOUT_MS)) as unknown as CallToolResult;
    } catch (e) {
      if (!(e instanceof RpcError)) throw e; // not a JSON-RPC error: the exchange failed
      const err = e;
      const message = err.message;
      return {
        status: 200,
        headers: {},
        body: Buffer.alloc(0),
        durationMs: performance.now() - t0,
        json: { rpcError: { code: err.code, message } },
        text: message,
      };
    }
    const content = Array.isArray(result.content) ? result.content : [];
    const image = content.find((c) => c.type === 'image');
    const text = content
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join('\n');
    const json = { ...result, content: content.map((c) => (c.type === 'image' ? { type: c.type, mimeType: c.mimeType } : c)) };
    return {
      status: 200,
      headers: image ? { 'content-type': image.mimeType ?? '' } : {},
      body: image ? Buffer.from(image.data ?? '', 'base64') : Buffer.alloc(0),
      durationMs: performance.now() - t0,
      json,
      text,
    };
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) await s.then((x) => x.client.close()).catch(() => {});
    this.sessions.clear();
  }
}
