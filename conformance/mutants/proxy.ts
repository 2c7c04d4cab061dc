// A small HTTP proxy in front of an implementation, with one hook on the way in and one on the way
// out. Each mutant (mutants.ts) is such a proxy that breaks exactly one rule, so that the suite can
// prove it notices (the suite is tested too, DESIGN §6).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxyHooks {
  /** Rewrite the request, or answer it directly. */
  onRequest?(req: ProxiedRequest): Promise<ProxiedRequest | ProxiedResponse> | ProxiedRequest | ProxiedResponse;
  /** Rewrite the response. */
  onResponse?(res: ProxiedResponse, req: ProxiedRequest): Promise<ProxiedResponse> | ProxiedResponse;
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade', 'proxy-connection', 'te', 'trailer']);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** JSON body helpers for hooks. */
export function jsonOf(req: ProxiedRequest): Record<string, any> | null {
  try {
    const v = JSON.parse(req.body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

export function withJson(req: ProxiedRequest, body: unknown): ProxiedRequest {
  return { ...req, body: Buffer.from(JSON.stringify(body)) };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): ProxiedResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(body)) };
}

export const isShot = (path: string, method: string) => method === 'POST' && path.split('?')[0] === '/v1/screenshot';

/** A request hook that rewrites the JSON body of screenshot requests. */
export function body(edit: (b: Record<string, any>) => Record<string, any> | { respond: ReturnType<typeof jsonResponse> }): ProxyHooks {
  return {
    onRequest(req) {
      if (!isShot(req.path, req.method)) return req;
      const b = jsonOf(req);
      if (!b) return req;
      const out = edit(structuredClone(b));
      return 'respond' in out && out.respond && typeof out.respond === 'object' && 'status' in out.respond ? out.respond : withJson(req, out);
    },
  };
}

export async function startProxy(upstream: string, hooks: ProxyHooks): Promise<RunningProxy> {
  const base = upstream.replace(/\/+$/, '');
  const server: Server = createServer(async (inReq, outRes) => {
    try {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(inReq.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      let req: ProxiedRequest = { method: inReq.method ?? 'GET', path: inReq.url ?? '/', headers, body: await readBody(inReq) };
      let res: ProxiedResponse;
      const hooked = hooks.onRequest ? await hooks.onRequest(req) : req;
      if ('status' in hooked) res = hooked;
      else {
        req = hooked;
        const up = await request(base + req.path, {
          method: req.method as 'POST',
          headers: req.headers,
          body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
          headersTimeout: 120_000,
          bodyTimeout: 120_000,
        });
        const upHeaders: Record<string, string> = {};
        for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP.has(k)) upHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
        res = { status: up.statusCode, headers: upHeaders, body: Buffer.from(await up.body.arrayBuffer()) };
      }
      if (hooks.onResponse) res = await hooks.onResponse(res, req);
      outRes.writeHead(res.status, { ...res.headers, 'content-length': String(res.body.length) });
      outRes.end(res.body);
    } catch (e) {
      outRes.writeHead(599, { 'content-type': 'text/plain' });
      outRes.end(`mutant proxy error: ${String(e)}`);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
