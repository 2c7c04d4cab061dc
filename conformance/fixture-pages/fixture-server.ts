// The fixture server for `url`-mode cases. It listens on loopback, on one or two ports (two
// origins, for cross-origin iframes), and serves:
//   /pages/<name>.html     fixtures/pages, fonts inlined
//   /consent/<file>        fixtures/consent (html fonts inlined; js, css, json as they are)
//   /delay?ms=N            "ok" after N ms (late network activity; CORS open)
//   /hold                  never answers (held until the client goes away, at most 60 s)
//   /hold?key=K            held until /release?key=K (at most 60 s): a page keeps requests in
//                          flight until it has shown what a case looks for, so that every
//                          implementation's network-idle wait ends after that moment (spec §4.1
//                          rule 5), however late the page's own timers fire on a loaded machine
//   /release?key=K         answers every /hold?key=K, now and later ("released")
//   /slow-page?ms=N        an HTML page whose response starts after N ms
//   /redirect?to=URL&status=302   a redirect (to a canary, in security cases)
//   /hangup                destroys the connection without a response
//   /status?code=N         an HTML page with that status
//   /echo?header=H&value=V  a page, green when the request had header H = V, red otherwise
//   /echo?cookie=C&value=V  the same for cookie C
//   /beacon/<token>        records a hit (GET or POST); /__beacons/<token> returns {"count":n}
//   /health                "ok"
// The second origin is another SITE (http://localhost:<port2> when the first is 127.0.0.1), for
// cross-site iframe CMPs; its document root is fixtures/consent/origin2/ first, then the routes
// above. In consent pages the placeholder __SECOND_ORIGIN__ is replaced by the second origin.
// The implementation under test must be allowed to reach both origins (EGRESS_ALLOW for the
// reference server); see RUNNING.md.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { CONSENT_DIR, inlineFonts, PAGES_DIR } from './fixtures.ts';

const ORIGIN2_DIR = path.join(CONSENT_DIR, 'origin2');
export const SECOND_ORIGIN_PLACEHOLDER = '__SECOND_ORIGIN__';

export interface FixtureServer {
  /** http://127.0.0.1:<port> of each origin (the first is the main one). */
  readonly origins: string[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

const HOLD_MAX_MS = 60_000;
/** Released keys remembered (a /hold that arrives after its release is answered at once). */
const RELEASED_MAX = 1000;

/** Responses held under a key until the page releases them (/hold?key=K, /release?key=K). */
class Holds {
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly released = new Set<string>();

  hold(key: string, answer: () => void, res: ServerResponse): void {
    if (this.released.has(key)) return answer();
    const set = this.waiting.get(key) ?? new Set();
    this.waiting.set(key, set);
    const forget = () => {
      clearTimeout(timer);
      set.delete(done);
      if (set.size === 0 && this.waiting.get(key) === set) this.waiting.delete(key);
    };
    const done = () => {
      forget();
      if (!res.writableEnded && !res.destroyed) answer();
    };
    const timer = setTimeout(done, HOLD_MAX_MS);
    set.add(done);
    res.on('close', forget);
  }

  release(key: string): number {
    this.released.add(key);
    if (this.released.size > RELEASED_MAX) this.released.delete(this.released.values().next().value!);
    const waiting = [...(this.waiting.get(key) ?? [])];
    this.waiting.delete(key);
    for (const done of waiting) done();
    return waiting.length;
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'access-control-allow-origin': '*', ...extra });
  res.end(body);
}

async function serveFile(res: ServerResponse, root: string, rel: string, secondOrigin = ''): Promise<void> {
  const file = path.resolve(root, decodeURIComponent(rel));
  if (!file.startsWith(root + path.sep)) return send(res, 403, 'text/plain', 'forbidden');
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch {
    return send(res, 404, 'text/plain', 'not found');
  }
  const ext = path.extname(file).toLowerCase();
  const type = TYPES[ext] ?? 'application/octet-stream';
  send(res, 200, type, ext === '.html' ? inlineFonts(data.toString('utf8')).split(SECOND_ORIGIN_PLACEHOLDER).join(secondOrigin) : data);
}

function clampMs(v: string | null, def: number): number {
  const n = Number(v ?? def);
  return Number.isFinite(n) ? Math.min(Math.max(0, n), HOLD_MAX_MS) : def;
}

function isFile(f: string): boolean {
  try {
    return existsSync(f) && statSync(f).isFile();
  } catch {
    return false;
  }
}

function handler(beacons: Map<string, number>, holds: Holds, self: { index: number; origins: string[] }) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://fixture.invalid');
    const p = u.pathname;
    try {
      if (self.index === 1 && p !== '/' && isFile(path.join(ORIGIN2_DIR, decodeURIComponent(p))))
        return await serveFile(res, ORIGIN2_DIR, p.slice(1), self.origins[1] ?? '');
      if (p === '/health') return send(res, 200, 'text/plain', 'ok');
      if (p.startsWith('/pages/')) return await serveFile(res, PAGES_DIR, p.slice('/pages/'.length));
      if (p.startsWith('/consent/')) return await serveFile(res, CONSENT_DIR, p.slice('/consent/'.length), self.origins[1] ?? self.origins[0] ?? '');
      if (p === '/delay') {
        const t = setTimeout(() => send(res, 200, 'text/plain', 'ok'), clampMs(u.searchParams.get('ms'), 1000));
        res.on('close', () => clearTimeout(t));
        return;
      }
      if (p === '/hold' && u.searchParams.has('key')) return holds.hold(u.searchParams.get('key')!, () => send(res, 200, 'text/plain', 'released'), res);
      if (p === '/release') return send(res, 200, 'text/plain', `released ${holds.release(u.searchParams.get('key') ?? '')}`);
      if (p === '/hold') {
        const t = setTimeout(() => send(res, 200, 'text/plain', 'released'), HOLD_MAX_MS);
        res.on('close', () => clearTimeout(t));
        return;
      }
      if (p === '/slow-page') {
        const t = setTimeout(
          () => send(res, 200, TYPES['.html']!, '<!doctype html><html><body style="margin:0;background:#22aa44"><h1>slow page</h1></body></html>'),
          clampMs(u.searchParams.get('ms'), 1000),
        );
        res.on('close', () => clearTimeout(t));
        return;
      }
      if (p === '/redirect') {
        const status = Number(u.searchParams.get('status') ?? 302);
        const to = u.searchParams.get('to') ?? '/pages/blocks.html';
        return send(res, [301, 302, 303, 307, 308].includes(status) ? status : 302, 'text/plain', 'redirect', { location: to });
      }
      if (p === '/hangup') {
        req.socket.destroy();
        return;
      }
      if (p === '/status') {
        const code = Number(u.searchParams.get('code') ?? 200);
        return send(
          res,
          code >= 200 && code <= 599 ? code : 200,
          TYPES['.html']!,
          `<!doctype html><html><body style="margin:0;background:#dddddd"><h1>status ${code}</h1></body></html>`,
        );
      }
      if (p === '/echo') {
        // Green when the request carried what the case sent (header `header` or cookie `cookie` equal
        // to `value`), red otherwise: what a page's origin receives, as pixels.
        const value = u.searchParams.get('value') ?? '';
        const header = u.searchParams.get('header');
        const cookie = u.searchParams.get('cookie');
        const got = header
          ? req.headers[header.toLowerCase()]
          : cookie
            ? (req.headers.cookie ?? '')
                .split(/;\s*/)
                .find((c) => c.startsWith(`${cookie}=`))
                ?.slice(cookie.length + 1)
            : undefined;
        const bg = got === value ? '#20a040' : '#e02020';
        return send(res, 200, TYPES['.html']!, `<!doctype html><html><body style="margin:0;height:100vh;background:${bg}"></body></html>`);
      }
      if (p.startsWith('/beacon/')) {
        const token = p.slice('/beacon/'.length);
        beacons.set(token, (beacons.get(token) ?? 0) + 1);
        req.resume();
        return send(res, 204, 'text/plain', '');
      }
      if (p.startsWith('/__beacons/')) {
        return send(res, 200, 'application/json', JSON.stringify({ count: beacons.get(p.slice('/__beacons/'.length)) ?? 0 }));
      }
      send(res, 404, 'text/plain', 'not found');
    } catch (e) {
      if (!res.headersSent) send(res, 500, 'text/plain', String(e));
    }
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Starts the fixture server on `host` (default 127.0.0.1). `ports`: the port of each origin
 * (0 = any free port); two origins by default. `secondHost`: the host name of the second origin
 * (default "localhost" when host is 127.0.0.1, so that it is another site; it is also served on
 * ::1 when that is available, since localhost may resolve there).
 */
export async function startFixtureServer(opts: { host?: string; ports?: number[]; secondHost?: string } = {}): Promise<FixtureServer> {
  const host = opts.host ?? '127.0.0.1';
  const secondHost = opts.secondHost ?? (host === '127.0.0.1' ? 'localhost' : host);
  const beacons = new Map<string, number>();
  const holds = new Holds();
  const servers: Server[] = [];
  const origins: string[] = [];
  for (const [index, port] of (opts.ports ?? [0, 0]).entries()) {
    const server = createServer(handler(beacons, holds, { index, origins }));
    server.keepAliveTimeout = 1000;
    const bound = await listen(server, host, port);
    servers.push(server);
    const name = index === 1 ? secondHost : host;
    origins.push(`http://${name.includes(':') ? `[${name}]` : name}:${bound}`);
    if (index === 1 && secondHost === 'localhost') {
      const v6 = createServer(handler(beacons, holds, { index, origins }));
      const ok = await listen(v6, '::1', bound).then(
        () => true,
        () => false,
      );
      if (ok) servers.push(v6);
    }
  }
  return {
    origins,
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              s.closeAllConnections();
              s.close(() => r());
            }),
        ),
      );
    },
  };
}
