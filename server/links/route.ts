// GET /v1/screenshot?<options>&keyId=...&expires=...&signature=... : a signed render link.
// No Authorization header: the link's signature stands for the key that signed it, which is billed
// (one credit per rendered capture; failures and cached captures free, as for POST). The options
// go through the same capture service as POST: validation, the egress guard, cache, rate limit.
// The answer is public: cacheable by anyone until the link expires, a strong ETag and 304 on
// If-None-Match (server/http-caching/), and without the account's balance (whoever holds the link
// would read it): the response registry writes public answers so (server/response/). A GET
// without a query is not a link: it goes on to the 405 (Allow: POST) of the path.
import type { NextFunction, Request, Response } from 'express';
import { badRequest } from '../errors.ts';
import { sendCapture } from '../edge/send-capture.ts';
import { whileConnected } from '../edge/while-connected.ts';
import type { Metrics } from '../metrics.ts';
import type { CaptureService } from '../service.ts';
import { parseQuery, SIGNED_PATH, type Pair } from './canonical.ts';
import { verifyLink, type VerifiedLink, type VerifyDeps } from './verify.ts';

export interface LinkRouteDeps {
  capture: CaptureService;
  metrics: Metrics;
  verify: VerifyDeps;
}

/**
 * The link a GET carries, verified (which key signed it, its options), or undefined for a GET with
 * no query at all, which is not a link. `path` is what the signature covers; `docs` where links
 * of this path are explained.
 */
export async function signedLinkOf(req: Request, verify: VerifyDeps, path: string, docs: string): Promise<{ link: VerifiedLink; pairs: Pair[] } | undefined> {
  const q = req.originalUrl.indexOf('?');
  const raw = q < 0 ? '' : req.originalUrl.slice(q + 1);
  if (raw === '') return undefined;
  const pairs = parseQuery(raw);
  if (!pairs.some(([n]) => n === 'signature')) {
    throw badRequest(`a GET ${path} is a signed link: keyId, expires and signature are required (${docs}); or POST the options with an API key`);
  }
  return { link: await verifyLink(pairs, verify, path), pairs };
}

export function signedLinkRoute(deps: LinkRouteDeps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const signed = await signedLinkOf(req, deps.verify, SIGNED_PATH, 'docs/signed-links.md');
    if (!signed) return next();
    const { link } = signed;
    // The request's Cache-Control is not asked: a crawler's no-cache must not cost the link's owner a render.
    const cache = { lookup: true, store: true };
    const out = await whileConnected(res, deps.metrics.outcomes, (signal) => deps.capture(link.account, link.options, { cache, signal }));
    sendCapture(req, res, out, { kind: 'public', expires: link.expires });
  };
}
