// The MCP transport of the runner (spec §4.2): MCP requests of a case (model.ts McpRequestSpec)
// go through the official SDK client (what agents use: it negotiates the protocol version,
// carries a session id if the implementation issues one, and reads JSON or SSE answers alike).
// One session per key per run, opened on first use. What it observes becomes an Observed
// (exchange.ts), judged by the same verdict code as HTTP responses:
//   list-tools  json = { capabilities, tools, tool }   (tool: the one an agent would pick)
//   call-tool   json = the result without image data, plus rpcError when the call was refused
//               with a JSON-RPC error; text = the text blocks (or the error's message);
//               body = the first image block's bytes, content-type its mimeType.
// Bare HTTP exchanges with the MCP endpoint (auth, methods) go through the HTTP client instead.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpRequestSpec } from '../model/model.ts';
import type { Observed } from './exchange.ts';

/** Thrown when a case cannot run against this implementation (its tool lacks a parameter). */
export class SkipCase extends Error {}

const CALL_TIMEOUT_MS = 90_000;

/** The tool an agent would pick for screenshots: the name or description speaks of screenshots or capture. */
export function findScreenshotTool(tools: Tool[]): Tool | undefined {
  return tools.find((t) => /screenshot/i.test(t.name)) ?? tools.find((t) => /screenshot|capture/i.test(`${t.name} ${t.description ?? ''}`));
}

function hasParam(tool: Tool, name: string): boolean {
  const props = tool.inputSchema.properties as Record<string, unknown> | undefined;
  return !!props && Object.prototype.hasOwnProperty.call(props, name);
}

interface Session {
  client: Client;
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
        const transport = new StreamableHTTPClientTransport(new URL(this.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
        const client = new Client({ name: 'screenshot-conformance', version: '1.0.0' });
        await client.connect(transport);
        const { tools } = await client.listTools();
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
      const json = { capabilities: client.getServerCapabilities() ?? null, tools, tool: tool ?? null };
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
      result = (await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
    } catch (e) {
      const err = e as { code?: unknown; message?: unknown };
      if (typeof err.code !== 'number') throw e; // not a JSON-RPC error: the exchange failed
      const message = String(err.message ?? '');
      return {
        status: 200,
        headers: {},
        body: Buffer.alloc(0),
        durationMs: performance.now() - t0,
        json: { rpcError: { code: err.code, message } },
        text: message,
      };
    }
    const image = result.content.find((c) => c.type === 'image');
    const text = result.content
      .filter((c) => c.type === 'text')
      .map((c) => (c as { text: string }).text)
      .join('\n');
    const json = { ...result, content: result.content.map((c) => (c.type === 'image' ? { type: c.type, mimeType: c.mimeType } : c)) };
    return {
      status: 200,
      headers: image ? { 'content-type': image.mimeType } : {},
      body: image ? Buffer.from(image.data, 'base64') : Buffer.alloc(0),
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
