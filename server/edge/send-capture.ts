// Writing a capture answer, conditionally: the image with its headers (from its facts, by the
// response registry), or 304 with no body when If-None-Match already has its ETag, on GET (signed
// links) and POST alike. A 304 costs what the request cost: nothing when the image came from the
// result cache, one credit when it had to be rendered to know its tag (the work was done;
// otherwise "has the page changed?" would be a free render). POST is answered 304, not 412 as
// RFC 9110 §13.1.2 asks for unsafe methods, because this POST is a safe query (like the QUERY
// method draft).
import type { Request, Response } from 'express';
import { REQUEST_HEADER } from '../kinds/headers.ts';
import type { Audience } from '../response/facts.ts';
import { captureHeaders } from '../response/write.ts';
import type { CaptureOutcome } from '../service.ts';
import { ifNoneMatchHits } from '../http-caching/etag.ts';

export function sendCapture(req: Request, res: Response, out: Pick<CaptureOutcome, 'body' | 'contentType' | 'facts'>, to: Audience): void {
  const unchanged = ifNoneMatchHits(req.get(REQUEST_HEADER.ifNoneMatch), out.facts.etag);
  res.set(captureHeaders(out.facts, to, unchanged ? 'not-modified' : 'image'));
  if (unchanged) return void res.status(304).end();
  res.status(200).type(out.contentType).send(out.body);
}
