// The playground: GET / is a small page where a person pastes an API key, a URL or HTML, sets
// options and sees the screenshot with its response headers. Static files, no framework, no build
// step: static/index.html, static/app.js with its modules (every static/*.js is served: form.js and
// groups.js build the option form from the request JSON Schema in GET /openapi.json, so it is never
// a second copy; request.js, code.js and panel.js show the request as code and as a link; result.js
// lists the headers that /playground/headers.json names: headers.ts, from the response registry;
// batch.js, batch-list.js and batch-view.js send a batch and show its items and webhook deliveries),
// static/style.css.
// Served from memory with a strict Content-Security-Policy: scripts, styles and fetches from this
// origin only, images also from blob: (the screenshot), no framing. GET /README.md serves the
// README the page links to.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response } from 'express';
import { STATIC_CACHE_CONTROL } from '../http-caching/cache-control.ts';
import { HEADER } from '../response/registry.ts';
import { playgroundHeaders } from './headers.ts';

export const PLAYGROUND_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; " +
  "form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

interface StaticFile {
  type: string;
  body: Buffer;
  etag: string;
}

function staticFile(body: Buffer, type: string): StaticFile {
  return { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

const load = (path: URL, type: string): StaticFile => staticFile(readFileSync(path), type);

const FILES: Record<string, StaticFile> = {
  '/': load(new URL('./static/index.html', import.meta.url), 'text/html; charset=utf-8'),
  ...Object.fromEntries(
    readdirSync(new URL('./static/', import.meta.url))
      .filter((f) => f.endsWith('.js'))
      .map((f) => [`/playground/${f}`, load(new URL(`./static/${f}`, import.meta.url), 'text/javascript; charset=utf-8')]),
  ),
  '/playground/style.css': load(new URL('./static/style.css', import.meta.url), 'text/css; charset=utf-8'),
  '/playground/headers.json': staticFile(Buffer.from(JSON.stringify(playgroundHeaders())), 'application/json; charset=utf-8'),
};

function send(req: Request, res: Response, file: StaticFile, headers: Record<string, string> = {}): void {
  // Revalidated on every load (an ETag match is a 304), so a new version shows at once.
  res.type(file.type).set({ [HEADER.etag]: file.etag, [HEADER.cacheControl]: STATIC_CACHE_CONTROL, [HEADER.contentTypeOptions]: 'nosniff', ...headers });
  if (req.fresh) return void res.status(304).end();
  res.send(file.body);
}

export function playgroundRoutes(): express.Router {
  const router = express.Router();
  for (const [path, file] of Object.entries(FILES)) {
    router.get(path, (req, res) => send(req, res, file, { [HEADER.contentSecurityPolicy]: PLAYGROUND_CSP, [HEADER.referrerPolicy]: 'no-referrer' }));
  }
  return router;
}

/** GET /README.md: the repository README as plain text (404 when the file is not deployed). */
export function readmeRoute() {
  const path = fileURLToPath(new URL('../../README.md', import.meta.url));
  const file = existsSync(path) ? load(new URL('../../README.md', import.meta.url), 'text/plain; charset=utf-8') : undefined;
  return (req: Request, res: Response, next: express.NextFunction) =>
    file ? send(req, res, file, { [HEADER.contentSecurityPolicy]: "default-src 'none'" }) : next();
}
