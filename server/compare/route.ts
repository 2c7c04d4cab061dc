// POST /v1/compare and its signed links (GET /v1/compare?...&signature=): the comparison service
// (./service.ts) and how its answer is written. The answer is the diff picture (PNG) with the
// figures in headers (server/response/compare-headers.ts), or on `Accept: application/json` the
// same figures as JSON with the diff picture and the current capture in base64 (keep the capture:
// it is the next comparison's baseline). Signed links answer publicly (no balance), like capture
// links (server/links/route.ts).
import type { NextFunction, Request, Response } from 'express';
import { cachePolicy } from '../http-caching/cache-control.ts';
import { whileConnected } from '../edge/while-connected.ts';
import { signedLinkOf } from '../links/route.ts';
import type { VerifyDeps } from '../links/verify.ts';
import type { Metrics } from '../metrics.ts';
import { REQUEST_HEADER } from '../kinds/headers.ts';
import type { Audience } from '../response/facts.ts';
import { HEADER } from '../response/registry.ts';
import { compareHeaders } from '../response/write.ts';
import { CONTENT_TYPES } from '../kinds/image.ts';
import { COMPARE_PATH, compareBodyFromQuery } from './link.ts';
import type { CompareOutcome, CompareService } from './service.ts';

export interface CompareRouteDeps {
  compare: CompareService;
  metrics: Metrics;
  verify: VerifyDeps;
}

const JSON_TYPE = 'application/json';

/** The JSON answer: the figures, and the pictures in base64. A public answer (a link) carries no balance. */
export function compareJson(out: CompareOutcome, to: Audience) {
  const { credits, ...figures } = out.facts;
  return {
    ...figures,
    credits: to.kind === 'public' ? { charged: credits.charged } : credits,
    diff: { mimeType: CONTENT_TYPES.png, data: out.png.toString('base64') },
    capture: { mimeType: out.current.contentType, data: out.current.body.toString('base64') },
  };
}

export function sendComparison(req: Request, res: Response, out: CompareOutcome, to: Audience): void {
  const headers = compareHeaders(out.facts, to);
  if (req.accepts([CONTENT_TYPES.png, JSON_TYPE]) === JSON_TYPE) {
    delete headers[HEADER.contentDisposition]; // names the picture, which this answer carries inside
    res
      .status(200)
      .set(headers)
      .type(JSON_TYPE)
      .send(JSON.stringify(compareJson(out, to)));
    return;
  }
  res.status(200).set(headers).type(CONTENT_TYPES.png).send(out.png);
}

export function comparePost(deps: CompareRouteDeps) {
  return async (req: Request, res: Response) => {
    const cache = cachePolicy(req.get(REQUEST_HEADER.cacheControl));
    const out = await whileConnected(res, deps.metrics.outcomes, (signal) => deps.compare(res.locals.account, req.body, { cache, signal }));
    sendComparison(req, res, out, { kind: 'private' });
  };
}

export function compareLink(deps: CompareRouteDeps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const signed = await signedLinkOf(req, deps.verify, COMPARE_PATH, 'docs/compare.md');
    if (!signed) return next();
    const { link, pairs } = signed;
    const body = compareBodyFromQuery(pairs);
    // As for capture links, the request's Cache-Control is not asked: a crawler's no-cache must not cost the link's owner renders.
    const out = await whileConnected(res, deps.metrics.outcomes, (signal) =>
      deps.compare(link.account, body, { cache: { lookup: true, store: true }, signal }),
    );
    sendComparison(req, res, out, { kind: 'public', expires: link.expires });
  };
}
