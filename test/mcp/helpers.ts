// Support for the MCP tests: a reference server on loopback port 0 with a throwaway store, a
// loopback fixture origin (the only url-mode target, allowed through EGRESS_ALLOW), and the
// official SDK client connected over Streamable HTTP with a Bearer header. Nothing here touches
// the internet or a fixed port (DESIGN §5).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/start.ts';

export const MCP_KEY = 'mcp-test-key-0123456789abcdef';
/** A second key, used only by the conformance checks that read a balance. */
export const MCP_FRESH_KEY = 'mcp-test-fresh-key-0123456789';

export interface Fixture {
  origin: string;
  hostPort: string;
  hits: string[];
  close(): Promise<void>;
}

/** A loopback origin serving the given pages (path -> HTML), 404 otherwise. */
export async function startFixture(pages: Record<string, string>): Promise<Fixture> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://fixture').pathname;
    hits.push(p);
    const html = pages[p];
    if (html === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    hits,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

export interface TestServer {
  server: RunningServer;
  mcpUrl: string;
  close(): Promise<void>;
}

/** `allow`: the loopback host:port origins the server may reach (EGRESS_ALLOW). */
export async function startTestServer(allow: string[], env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mcp-test-'));
  const config = loadConfig({
    CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    API_KEYS: `${MCP_KEY},${MCP_FRESH_KEY}`,
    DATA_DIR: dataDir,
    EGRESS_ALLOW: allow.join(','),
    RENDER_CONCURRENCY: '1',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const server = await startServer(config);
  return {
    server,
    mcpUrl: `${server.url}/mcp`,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The official SDK client, connected with `Authorization: Bearer <key>` (or no header). */
export async function connect(mcpUrl: string, key: string | null = MCP_KEY): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: key === null ? {} : { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Spendable credits of the test key, read from the ledger itself (not from the tool's text). */
export async function balance(server: RunningServer, key = MCP_KEY): Promise<number> {
  const account = await server.accounts.authenticate(key);
  if (!account) throw new Error('test key unknown');
  return server.accounts.balance(account);
}

export function textOf(r: CallToolResult): string {
  return r.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('\n');
}

export function imageOf(r: CallToolResult): { data: Buffer; mimeType: string } {
  const img = r.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
  if (!img) throw new Error(`no image content in ${JSON.stringify(r).slice(0, 300)}`);
  return { data: Buffer.from(img.data, 'base64'), mimeType: img.mimeType };
}
