// OPTIONS and CORS (issue 14). Cross-origin calls are OFF unless CORS_ORIGINS lists origins
// (server/config.ts): a browser page on another origin then gets Access-Control-Allow-Origin for
// exactly its origin, and can read the response headers below. The key is always sent by the
// page's own script (Authorization header, never cookies), so no credentials mode is involved.
//
// OPTIONS on a known route is answered 204 with `Allow` whether or not CORS is on (before this it
// was a 405); a preflight from a listed origin also gets the Access-Control-Allow-* headers. A
// preflight from any other origin gets the plain 204 without them, and the browser refuses the call.
import type { NextFunction, Request, Response } from 'express';

/** Response headers a cross-origin page may read (docs/api.md "The response"). */
const EXPOSED = [
  'content-disposition', 'x-request-id', 'x-credits-charged', 'x-credits-remaining', 'x-cache', 'x-banner-action',
  'x-target-status', 'x-capture-truncated', 'x-wait-timed-out', 'x-blocked-requests', 'server-timing', 'retry-after', 'www-authenticate', 'etag', 'mcp-session-id',
].join(', ');

/** Request headers a cross-origin page may send: the API's and MCP Streamable HTTP's. */
const ALLOWED_HEADERS = 'authorization, content-type, cache-control, accept, mcp-protocol-version, mcp-session-id, last-event-id';

export interface CorsOptions {
  /** Exact origins (scheme://host[:port]) or ['*']; empty = no cross-origin access. */
  origins: readonly string[];
  /** Methods of each known path, for `Allow` and preflights. */
  routes: Readonly<Record<string, string>>;
}

export function cors(opts: CorsOptions) {
  const any = opts.origins.includes('*');
  const allowed = new Set(opts.origins);
  const allowOrigin = (origin: string | undefined): string | undefined => {
    if (!origin) return undefined;
    if (any) return '*';
    return allowed.has(origin) ? origin : undefined;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = allowOrigin(req.get('origin'));
    // Responses differ by Origin when a list is configured: caches must keep them apart.
    if (opts.origins.length > 0 && !any) res.vary('Origin');
    if (origin) res.set({ 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED });
    if (req.method !== 'OPTIONS') return next();
    const methods = opts.routes[req.path];
    if (!methods) return next(); // unknown route: the 404 handler answers
    res.set('allow', `${methods}, OPTIONS`);
    if (origin && req.get('access-control-request-method')) {
      res.set({ 'access-control-allow-methods': methods, 'access-control-allow-headers': ALLOWED_HEADERS, 'access-control-max-age': '600' });
    }
    res.status(204).end();
  };
}
