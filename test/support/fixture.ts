// The one fixture server of the tests: a loopback origin (the only kind of target a test server may
// reach, through EGRESS_ALLOW) whose pages each test registers itself. It records every request,
// so that tests can observe what the browser asked for, and can listen on several addresses (the
// security battery's public-looking ones inside its network namespace). Nothing here touches the
// internet; the default address is 127.0.0.1 port 0 (DESIGN §5).
// The conformance suite's own fixture server (conformance/fixture-pages/fixture-server.ts: fixtures/pages,
// fixtures/consent, the second origin) is what tests use to serve the files under fixtures/.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { sleep } from './wait.ts';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => void | Promise<void>;

export interface SeenRequest {
  method: string;
  /** Path with query. */
  path: string;
  cookie: string;
  host: string;
}

export interface Fixture {
  /** The first address's port, origin (http://127.0.0.1:<port>) and host:port (for EGRESS_ALLOW). */
  port: number;
  origin: string;
  hostPort: string;
  /** One origin per listen address, e.g. "http://[2606:2800:220:1::1]:80". */
  origins: string[];
  /** Paths requested so far (with query). */
  hits: string[];
  /** Every request so far, with its cookies and Host. */
  requests: SeenRequest[];
  /** Sockets of requests that were never answered (/hang) and are still open. */
  openHangs(): number;
  /** Serves `path` (exact); a path ending in "/" serves every path below it. */
  route(path: string, h: Handler): void;
  /** Handles WebSocket (and other) upgrade requests. */
  onUpgrade(h: (req: http.IncomingMessage, socket: Duplex) => void): void;
  close(): Promise<void>;
}

export interface FixtureOptions {
  /** Addresses to listen on (default 127.0.0.1, port 0). */
  listen?: Array<{ host: string; port: number }>;
}

const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * Starts the fixture server. Built-in routes:
 *   /slow?ms=N   answers "ok" after N ms (CORS open, so html-mode pages can fetch it)
 *   /hang        never answers (a long poll); counted by openHangs()
 * Pages: page(fx, path, html), or route() for anything else.
 */
export async function startFixture(opts: FixtureOptions = {}): Promise<Fixture> {
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const requests: SeenRequest[] = [];
  const hanging = new Set<Socket>();
  const sockets = new Set<Socket>();
  let upgrade: ((req: http.IncomingMessage, socket: Duplex) => void) | undefined;
  routes.set('/slow', async (_req, res, url) => {
    await sleep(Number(url.searchParams.get('ms') ?? '500'));
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*', 'cache-control': 'no-store' }).end('ok');
  });
  routes.set('/hang', (req) => {
    const s = req.socket;
    hanging.add(s);
    s.once('close', () => hanging.delete(s));
  });
  const find = (p: string): Handler | undefined => {
    const exact = routes.get(p);
    if (exact) return exact;
    let best = '';
    for (const r of routes.keys()) if (r.endsWith('/') && p.startsWith(r) && r.length > best.length) best = r;
    return best ? routes.get(best) : undefined;
  };
  const onRequest = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    hits.push(url.pathname + url.search);
    requests.push({
      method: req.method ?? '',
      path: url.pathname + url.search,
      cookie: String(req.headers.cookie ?? ''),
      host: String(req.headers.host ?? ''),
    });
    const h = find(url.pathname);
    if (!h) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such fixture');
      return;
    }
    try {
      await h(req, res, url);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  };
  const servers: http.Server[] = [];
  const bound: string[] = []; // host:port of each address
  for (const l of opts.listen ?? [{ host: '127.0.0.1', port: 0 }]) {
    const server = http.createServer(onRequest);
    server.on('connection', (s) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    });
    server.on('upgrade', (req, socket) => (upgrade ? upgrade(req, socket) : socket.destroy()));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: l.host, port: l.port, ipv6Only: l.host.includes(':') }, () => resolve());
    });
    servers.push(server);
    bound.push(hostPort(l.host, (server.address() as AddressInfo).port));
  }
  const origins = bound.map((b) => `http://${b}`);
  return {
    port: (servers[0]!.address() as AddressInfo).port,
    origin: origins[0]!,
    hostPort: bound[0]!,
    origins,
    hits,
    requests,
    openHangs: () => hanging.size,
    route: (p, h) => void routes.set(p, h),
    onUpgrade: (h) => void (upgrade = h),
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}

/** An upgrade handler that completes a WebSocket handshake (RFC 6455) and then closes: enough to
 * prove a connection arrived. */
export function acceptWebSocket(req: http.IncomingMessage, socket: Duplex): void {
  socket.end(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${webSocketAccept(String(req.headers['sec-websocket-key']))}\r\n\r\n`,
  );
}

/** The Sec-WebSocket-Accept answer to a Sec-WebSocket-Key. */
export const webSocketAccept = (key: string) => crypto.createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');

/** Serves `html` at `path` on the fixture (text/html, no caching); returns its URL. */
export function page(fx: Fixture, p: string, html: string | ((url: URL) => string)): string {
  fx.route(p, (_req, res, url) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(typeof html === 'string' ? html : html(url));
  });
  return fx.origin + p;
}

/** A webhook receiver at `path` on the fixture: every delivery recorded (headers, raw body), answered 204. */
export function webhookReceiver(fx: Fixture, p = '/hook'): Array<{ headers: Record<string, string>; body: string }> {
  const hooks: Array<{ headers: Record<string, string>; body: string }> = [];
  fx.route(p, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hooks.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(204).end();
    });
  });
  return hooks;
}
