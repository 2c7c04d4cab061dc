// Test support for the clean-up tests and bench (not a test file itself): a loopback fixture
// server for fixtures/ with the second origin that fixtures/consent/README.md describes, and a
// Chromium launcher with the flags the brief gives.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser } from 'puppeteer-core';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures');
export const CONSENT_FIXTURES = path.join(FIXTURES, 'consent');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/lib/chromium/chromium-headless-shell';

export async function launch(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: CHROMIUM.includes('headless-shell') ? 'shell' : true,
    pipe: true,
    defaultViewport: null,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--hide-scrollbars', '--force-color-profile=srgb', '--font-render-hinting=none'],
  });
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.json': 'application/json', '.css': 'text/css', '.js': 'text/javascript' };

export interface FixtureServer {
  /** http://127.0.0.1:PORT — serves fixtures/ */
  origin: string;
  /** http://localhost:PORT — the second origin, serving fixtures/consent/origin2/ at its root */
  origin2: string;
  close(): Promise<void>;
}

/**
 * Serves fixtures/ on 127.0.0.1 and, for requests whose Host is localhost:PORT (a different site),
 * fixtures/consent/origin2/ at the root. In HTML responses the placeholder __SECOND_ORIGIN__ is
 * replaced by the second origin (fixtures also work without the substitution).
 */
export async function startFixtureServer(): Promise<FixtureServer> {
  let port = 0;
  const server = http.createServer(async (req, res) => {
    const host = (req.headers.host ?? '').split(':')[0];
    const rootDir = host === 'localhost' ? path.join(CONSENT_FIXTURES, 'origin2') : FIXTURES;
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = path.join(rootDir, urlPath.endsWith('/') ? urlPath + 'index.html' : urlPath);
    if (!file.startsWith(rootDir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      let body: Buffer | string = await readFile(file);
      const ext = path.extname(file);
      if (ext === '.html') body = body.toString('utf8').replaceAll('__SECOND_ORIGIN__', `http://localhost:${port}`);
      res.writeHead(200, { 'content-type': TYPES[ext] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    origin2: `http://localhost:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
