// Support for the MCP tests: the official SDK client connected over Streamable HTTP with a Bearer
// header, and readers of tool results. The server and fixtures are test/support's (one server for
// the file, a loopback fixture as the only url-mode target).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunningServer } from '../../server/start.ts';
import { TEST_KEY, type TestServer } from '../support/server.ts';

/** The server settings of the MCP tests: one render at a time, the default cache and rate limit. */
export const MCP_SERVER_ENV = { RENDER_CONCURRENCY: '1', CACHE_TTL_SECONDS: '300', RATE_LIMIT_PER_MINUTE: '120' };

export const mcpUrl = (s: TestServer) => `${s.url}/mcp`;

/** The official SDK client, connected with `Authorization: Bearer <key>` (or no header). */
export async function connect(mcpUrl: string, key: string | null = TEST_KEY): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: key === null ? {} : { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Spendable credits of the test key, read from the ledger itself (not from the tool's text). */
export async function balance(server: RunningServer, key = TEST_KEY): Promise<number> {
  const account = await server.accounts.authenticate(key);
  if (!account) throw new Error('test key unknown');
  return server.accounts.balance(account);
}

export function textOf(r: CallToolResult): string {
  return r.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
}

export function imageOf(r: CallToolResult): { data: Buffer; mimeType: string } {
  const img = r.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
  if (!img) throw new Error(`no image content in ${JSON.stringify(r).slice(0, 300)}`);
  return { data: Buffer.from(img.data, 'base64'), mimeType: img.mimeType };
}

/** A take_screenshot tools/call as plain JSON-RPC over HTTP (no SDK), with the test key. */
export function plainToolCall(s: TestServer, id: number, args: object, signal?: AbortSignal): Promise<Response> {
  return fetch(mcpUrl(s), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${TEST_KEY}`,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'take_screenshot', arguments: args } }),
    signal,
  });
}
