// What the MCP checks talk through: the official SDK client (what agents use: it negotiates the
// protocol version, carries a session id if the implementation issues one, and reads JSON or SSE
// answers alike) and a bare fetch for HTTP-level checks (auth, methods) where the exact status,
// headers and body matter.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { decodeImage, sniffType, type DecodedImage } from '../image.ts';

/** The JSON-RPC initialize request, for raw exchanges. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'screenshot-conformance', version: '1.0.0' } },
} as const;

/** Connects the SDK client with `Authorization: Bearer <key>`; rejects when the server refuses. */
export async function openClient(mcpUrl: string, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  const client = new Client({ name: 'screenshot-conformance', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json(): unknown;
}

/** One bare HTTP exchange with the MCP endpoint. */
export async function rawExchange(mcpUrl: string, method: string, headers: Record<string, string>, body?: unknown): Promise<RawResponse> {
  const res = await fetch(mcpUrl, {
    method,
    headers: { accept: 'application/json, text/event-stream', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: () => {
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    },
  };
}

/** The tool an agent would pick for screenshots: the name or description speaks of screenshots or capture. */
export function findScreenshotTool(tools: Tool[]): Tool | undefined {
  return tools.find((t) => /screenshot/i.test(t.name)) ?? tools.find((t) => /screenshot|capture/i.test(`${t.name} ${t.description ?? ''}`));
}

export function hasParam(tool: Tool, name: string): boolean {
  const props = tool.inputSchema.properties as Record<string, unknown> | undefined;
  return !!props && Object.prototype.hasOwnProperty.call(props, name);
}

export function textOf(r: CallToolResult): string {
  return r.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('\n');
}

export interface ToolImage {
  bytes: Buffer;
  mimeType: string;
  /** From the magic bytes, never from the mimeType. */
  sniffed: 'png' | 'jpeg' | 'webp' | null;
  decoded?: DecodedImage;
}

/** The image blocks of a result, decoded. */
export async function imagesOf(r: CallToolResult): Promise<ToolImage[]> {
  const out: ToolImage[] = [];
  for (const c of r.content) {
    if (c.type !== 'image') continue;
    const bytes = Buffer.from(c.data, 'base64');
    const sniffed = sniffType(bytes);
    out.push({ bytes, mimeType: c.mimeType, sniffed, decoded: sniffed ? await decodeImage(bytes).catch(() => undefined) : undefined });
  }
  return out;
}

export function snippet(s: string, max = 200): string {
  const t = s.replace(/\s+/g, ' ');
  return t.length > max ? `${t.slice(0, max)}...` : t;
}
