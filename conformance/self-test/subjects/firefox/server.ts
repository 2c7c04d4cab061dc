// A deliberately small, independent implementation of spec/screenshot-service.md on Firefox ESR
//: the conformance suite's second subject engine. It proves the suite, it is not a
// product: node:http, its own validation (validate.ts), its own private-target check (guard.ts),
// its own banner clean-up (page-cleanup.js), Firefox through WebDriver BiDi (render.ts).
//
//   POST /v1/screenshot   Authorization: Bearer <key>; JSON body of §2.1 -> image bytes (§2.3)
//   GET  /healthz         {"status":"ok","browser":"firefox/<version>"}
// Errors are {error, message} (§7). Billing (§1, §8): 100 free captures per key; a success costs
// one credit (x-credits-remaining), failures cost nothing, and there is no cache to bill.
// Not offered: MCP (§4.2; the suite skips its checks without --mcp-url).
//
// Run by hand: node --import tsx conformance/self-test/subjects/firefox/server.ts
//   (KEYS=k1,k2 PORT=3100 EGRESS_ALLOW=127.0.0.1:4100,localhost:4101 FIREFOX_PATH=/usr/bin/firefox-esr)
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { privateTargetReason } from './guard.ts';
import { launchFirefox, render, RenderFailure } from './render.ts';
import { BadRequest, validate } from './validate.ts';

export interface SubjectOptions {
  port?: number;
  keys: string[];
  /** Exact host:port origins treated as public targets (the suite's fixture server). */
  allow?: string[];
  firefoxPath?: string;
  /** Renders at once; more wait their turn (outside the render budget). */
  concurrency?: number;
}

export interface Subject {
  url: string;
  browserVersion: string;
  close(): Promise<void>;
}

const FREE_ALLOWANCE = 100; // spec §1, §8
const BODY_LIMIT = 8 * 1024 * 1024; // room for 2,000,000 bytes of html however it is escaped in JSON
const TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

function sendError(res: ServerResponse, status: number, error: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error, message }));
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= BODY_LIMIT) chunks.push(c);
    });
    req.on('end', () => resolve(size > BODY_LIMIT ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A counting semaphore: at most `n` renders at once. */
function limiter(n: number) {
  let active = 0;
  const queue: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => queue.push(r));
    active++;
    try {
      return await work();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

export async function startSubject(o: SubjectOptions): Promise<Subject> {
  const firefoxPath = o.firefoxPath ?? process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
  let browser: Browser = await launchFirefox(firefoxPath);
  const browserVersion = await browser.version();
  const relaunch = async () => {
    if (!browser.connected) browser = await launchFirefox(firefoxPath);
    return browser;
  };
  const credits = new Map(o.keys.map((k) => [k, FREE_ALLOWANCE]));
  const allow = new Set((o.allow ?? []).map((h) => h.toLowerCase()));
  const slot = limiter(o.concurrency ?? 2);

  async function screenshot(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const key = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!key || !credits.has(key)) return sendError(res, 401, 'unauthorized', 'a valid Authorization: Bearer <API_KEY> header is required');
    const raw = await readBody(req);
    if (raw === null) return sendError(res, 413, 'payload_too_large', 'the request body is too large');
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendError(res, 400, 'bad_request', 'the body must be valid JSON');
    }
    let shot;
    try {
      shot = validate(body);
    } catch (e) {
      if (e instanceof BadRequest) return sendError(res, 400, 'bad_request', e.message);
      throw e;
    }
    if (credits.get(key)! <= 0) return sendError(res, 402, 'quota_exhausted', 'this key has no credits left');
    if (shot.url) {
      const reason = await privateTargetReason(shot.url, allow);
      if (reason) return sendError(res, 400, 'bad_request', reason);
    }
    try {
      const { image } = await slot(async () => render(await relaunch(), shot));
      const left = Math.max(0, credits.get(key)! - 1);
      credits.set(key, left);
      res.writeHead(200, {
        'content-type': TYPES[shot.format],
        'content-disposition': `inline; filename="screenshot.${shot.format === 'jpeg' ? 'jpg' : shot.format}"`,
        'x-credits-remaining': String(left),
      });
      res.end(image);
    } catch (e) {
      if (e instanceof RenderFailure) return sendError(res, e.status, e.code, e.message);
      throw e;
    }
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://subject');
    let handled: Promise<void> | undefined;
    if (url.pathname === '/v1/screenshot' && req.method === 'POST') handled = screenshot(req, res);
    else if (url.pathname === '/healthz' && req.method === 'GET') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'ok', browser: browserVersion, implementation: 'firefox subject (conformance/self-test/subjects/firefox)' }));
    } else sendError(res, 404, 'not_found', 'no such route');
    Promise.resolve(handled).catch((e: unknown) => {
      console.error('firefox subject:', e);
      if (!res.headersSent) sendError(res, 500, 'internal_error', 'the capture failed');
      else res.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(o.port ?? 0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    browserVersion,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await browser.close().catch(() => undefined);
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const env = process.env;
  const s = await startSubject({
    port: Number(env.PORT ?? 3100),
    keys: (env.KEYS ?? 'dev-key').split(','),
    allow: env.EGRESS_ALLOW?.split(',').filter(Boolean),
  });
  console.log(`firefox subject (${s.browserVersion}) at ${s.url}`);
  process.once('SIGINT', () => void s.close().then(() => process.exit(0)));
}
