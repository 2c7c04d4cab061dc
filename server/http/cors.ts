// OPTIONS and CORS. Cross-origin calls are OFF unless CORS_ORIGINS lists origins
// (server/config.ts): a browser page on another origin then gets Access-Control-Allow-Origin for
// exactly its origin, and can read the response headers the registry exposes (server/response/).
// The key is always sent by the page's own script (Authorization header, never cookies), so no
// credentials mode is involved.
//
// OPTIONS on a known route is answered 204 with `Allow` whether or not CORS is on; a preflight from
// a listed origin also gets the Access-Control-Allow-* headers. A preflight from any other origin
// gets the plain 204 without them, and the browser refuses the call.
import type { NextFunction, Request, Response } from 'express';
import { CORS_REQUEST_HEADERS, REQUEST_HEADER, REQUEST_HEADERS } from '../kinds/headers.ts';
import { EXPOSED_HEADERS, HEADER } from '../response/registry.ts';

const EXPOSED = EXPOSED_HEADERS.join(', ');
const ALLOWED_HEADERS = CORS_REQUEST_HEADERS.join(', ');
/** Seconds a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE = 600;

export interface CorsOptions {
  /** Exact origins (scheme://host[:port]) or ['*']; empty = no cross-origin access. */
  origins: readonly string[];
  /** The methods of a known path (a request's path, parameters filled in), for `Allow` and preflights; undefined for an unknown one. */
  allowOf(path: string): string | undefined;
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
    const origin = allowOrigin(req.get(REQUEST_HEADER.origin));
    // Responses differ by Origin when a list is configured: caches must keep them apart.
    if (opts.origins.length > 0 && !any) res.vary(REQUEST_HEADERS.origin.name);
    if (origin) res.set({ [HEADER.allowOrigin]: origin, [HEADER.exposeHeaders]: EXPOSED });
    if (req.method !== 'OPTIONS') return next();
    const methods = opts.allowOf(req.path);
    if (!methods) return next(); // unknown route: the 404 handler answers
    res.set(HEADER.allow, `${methods}, OPTIONS`);
    if (origin && req.get(REQUEST_HEADER.accessControlRequestMethod)) {
      res.set({ [HEADER.allowMethods]: methods, [HEADER.allowHeaders]: ALLOWED_HEADERS, [HEADER.maxAge]: String(PREFLIGHT_MAX_AGE) });
    }
    res.status(204).end();
  };
}
