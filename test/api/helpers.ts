// Shared pieces of the integration battery (test/api): a reference server started in-process on
// loopback port 0 with a throwaway store, a loopback fixture origin (the only target the server
// may reach, through EGRESS_ALLOW), an HTTP client, PNG decoding and process/dir inspection.
// Nothing here touches the internet or a fixed port (DESIGN §5).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig, type Config } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/start.ts';

export const TEST_KEY = 'api-test-key-0123456789abcdef';
export const OTHER_KEY = 'api-test-key-second-0123456789';

// ---------------------------------------------------------------------------------------------
// Fixture origin

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => void | Promise<void>;

export interface Fixture {
  port: number;
  origin: string; // http://127.0.0.1:<port>
  /** host:port for EGRESS_ALLOW */
  hostPort: string;
  /** Paths requested so far (with query). */
  hits: string[];
  /** Sockets of requests that were never answered (long polls) and are still open. */
  openHangs(): number;
  route(path: string, h: Handler): void;
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * A loopback fixture server. Built-in routes:
 *   /slow?ms=N        answers "ok" after N ms (CORS open, so html-mode pages can fetch it)
 *   /hang             never answers (a long poll); counted by openHangs()
 *   /page?html=...    not provided: use route() for pages
 */
export async function startFixture(): Promise<Fixture> {
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const hanging = new Set<Socket>();
  const sockets = new Set<Socket>();
  routes.set('/slow', async (_req, res, url) => {
    await sleep(Number(url.searchParams.get('ms') ?? '500'));
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*', 'cache-control': 'no-store' }).end('ok');
  });
  routes.set('/hang', (req) => {
    const s = req.socket;
    hanging.add(s);
    s.once('close', () => hanging.delete(s));
  });
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    hits.push(url.pathname + url.search);
    const h = routes.get(url.pathname);
    if (!h) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such fixture');
      return;
    }
    try {
      await h(req, res, url);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    hits,
    openHangs: () => hanging.size,
    route: (p, h) => void routes.set(p, h),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Serves `html` at `path` on the fixture (text/html, no caching). */
export function page(fx: Fixture, p: string, html: string | ((url: URL) => string)): string {
  fx.route(p, (_req, res, url) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(typeof html === 'string' ? html : html(url));
  });
  return fx.origin + p;
}

// ---------------------------------------------------------------------------------------------
// The server under test

export interface TestServer {
  server: RunningServer;
  url: string;
  config: Config;
  dataDir: string;
  close(): Promise<void>;
}

/** The env every test server starts from (no process.env except CHROMIUM_PATH). */
export function testEnv(overrides: Record<string, string> = {}, allow: string[] = []): Record<string, string> {
  return {
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    API_KEYS: `${TEST_KEY},${OTHER_KEY}`,
    PORT: '0',
    HOST: '127.0.0.1',
    EGRESS_ALLOW: allow.join(','),
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    CACHE_TTL_SECONDS: '0',
    ...overrides,
  };
}

export async function startTestServer(overrides: Record<string, string> = {}, fixture?: Fixture | Fixture[]): Promise<TestServer> {
  const fixtures = fixture === undefined ? [] : Array.isArray(fixture) ? fixture : [fixture];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'api-test-data-'));
  const config = loadConfig(testEnv({ DATA_DIR: dataDir, ...overrides }, fixtures.map((f) => f.hostPort)));
  const server = await startServer(config);
  return {
    server,
    url: server.url,
    config,
    dataDir,
    close: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP client

export interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The parsed JSON body for errors (undefined when not JSON). */
  json: any;
  ms: number;
}

export interface PostOptions {
  key?: string | null;
  contentType?: string | null;
  headers?: Record<string, string>;
  method?: string;
  /** A raw body instead of JSON.stringify(body). */
  raw?: string;
}

export async function call(base: string, p: string, body?: unknown, opts: PostOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? TEST_KEY : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const contentType = opts.contentType === undefined ? 'application/json' : opts.contentType;
  if (contentType !== null && (body !== undefined || opts.raw !== undefined)) headers['content-type'] = contentType;
  const started = Date.now();
  const res = await fetch(base + p, {
    method: opts.method ?? 'POST',
    headers,
    body: opts.raw !== undefined ? opts.raw : body !== undefined ? JSON.stringify(body) : undefined,
  });
  const buf = Buffer.from(await res.arrayBuffer());
  let json: any;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      json = JSON.parse(buf.toString('utf8'));
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, body: buf, json, ms: Date.now() - started };
}

/** POST /v1/screenshot with the test key. */
export const shoot = (base: string, body: unknown, opts: PostOptions = {}) => call(base, '/v1/screenshot', body, opts);

/** Describes a reply for assertion messages (never the image bytes). */
export function show(r: Reply): string {
  return `${r.status} ${r.json ? JSON.stringify(r.json) : `${r.headers.get('content-type')} ${r.body.length} bytes`}`;
}

// ---------------------------------------------------------------------------------------------
// Images

export interface Raw {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
  /** [r, g, b, a] at (x, y) */
  at(x: number, y: number): [number, number, number, number];
}

export async function decode(img: Buffer): Promise<Raw> {
  const { data, info } = await sharp(img, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    channels: info.channels,
    data,
    at(x, y) {
      const o = (y * info.width + x) * info.channels;
      return [data[o]!, data[o + 1]!, data[o + 2]!, data[o + 3]!];
    },
  };
}

/** True when the two colours differ by at most `tol` per channel (rgb only). */
export function near(c: readonly number[], want: readonly number[], tol = 8): boolean {
  return Math.abs(c[0]! - want[0]!) <= tol && Math.abs(c[1]! - want[1]!) <= tol && Math.abs(c[2]! - want[2]!) <= tol;
}

export const MAGIC = {
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  jpeg: Buffer.from([0xff, 0xd8, 0xff]),
};
export const isWebp = (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP';

/** Writes an image to $API_TEST_SHOTS/<name> when that variable is set (for looking at them). */
export function keep(name: string, img: Buffer): void {
  const dir = process.env.API_TEST_SHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), img);
}

/** A small solid-colour PNG (fixture images). */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer();
}

// ---------------------------------------------------------------------------------------------
// Processes and directories

interface ProcInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

function procs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.push({ pid: Number(d), ppid, cmdline });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Chromium processes descending from `root` (default: this test process). */
export function chromiumDescendants(root = process.pid): number[] {
  const all = procs();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if (/chrom/i.test(c.cmdline)) found.push(c.pid);
      walk(c.pid);
    }
  };
  walk(root);
  return found;
}

/** Every process whose command line contains `needle` (e.g. a private TMPDIR path). */
export function processesMentioning(needle: string): number[] {
  return procs().filter((p) => p.pid !== process.pid && p.cmdline.includes(needle)).map((p) => p.pid);
}

/** Names in `dir` starting with `prefix`. */
export function entries(dir: string, prefix = ''): string[] {
  try {
    return readdirSync(dir).filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
}

/** Polls `check` until it returns true or `ms` passes; returns the last result. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000, every = 50): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await sleep(every);
  }
}

/** Browser contexts of the pool's current browser (the default context included); -1 when none is up. */
export async function contextCount(server: RunningServer): Promise<number> {
  const b = await server.pool.browserForTests();
  if (!b) return -1;
  return b.browserContexts().length;
}

/** Open pages (tabs) of the pool's current browser; -1 when none is up. */
export async function pageCount(server: RunningServer): Promise<number> {
  const b = await server.pool.browserForTests();
  if (!b) return -1;
  return (await b.pages()).length;
}

export interface PoolShape {
  contexts: number;
  pages: number;
}

/**
 * What the idle pool holds once it has settled: the default context plus the prepared (warm)
 * contexts, each with one page. Measured, not computed, so that the tests do not depend on how
 * many slots the pool keeps warm; the value is stable over 600 ms when returned.
 */
export async function idleShape(server: RunningServer, ms = 10_000): Promise<PoolShape> {
  const until = Date.now() + ms;
  let last = '';
  let since = Date.now();
  for (;;) {
    const shape = { contexts: await contextCount(server), pages: await pageCount(server) };
    const key = JSON.stringify(shape);
    if (key !== last) {
      last = key;
      since = Date.now();
    } else if (Date.now() - since >= 600 && shape.contexts > 0 && server.pool.inFlight === 0) {
      return shape;
    }
    if (Date.now() > until) throw new Error(`the pool did not settle: ${key}`);
    await sleep(100);
  }
}

/** Waits until the pool is back to `want`; returns the shape it ended with. */
export async function backTo(server: RunningServer, want: PoolShape, ms = 5000): Promise<PoolShape> {
  let now: PoolShape = { contexts: -1, pages: -1 };
  await eventually(async () => {
    now = { contexts: await contextCount(server), pages: await pageCount(server) };
    return now.contexts === want.contexts && now.pages === want.pages;
  }, ms, 100);
  return now;
}
