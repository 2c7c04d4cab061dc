// The one place where errors become HTTP responses: JSON { error, message } with the catalogue's
// status (server/errors.ts). Unknown faults are logged with the request id and answered 500
// internal_error without details. Parser errors never echo the body.
import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { errorHeaders } from '../response/write.ts';

/** Turns body-parser's errors into catalogue errors; their messages quote the body, ours do not. */
function fromParserError(err: any): ServiceError | undefined {
  if (err?.type === 'entity.too.large') return new ServiceError('payload_too_large', `the request body must be at most ${err.limit} bytes`);
  if (err?.type === 'entity.parse.failed') return new ServiceError('bad_request', 'the request body is not valid JSON');
  if (err?.type === 'encoding.unsupported' || err?.type === 'charset.unsupported')
    return new ServiceError('unsupported_media_type', 'the request body must be UTF-8 JSON');
  if (typeof err?.type === 'string' && typeof err?.status === 'number' && err.status < 500)
    return new ServiceError('bad_request', 'the request body could not be read');
  return undefined;
}

export function toServiceError(err: unknown): ServiceError | undefined {
  return err instanceof ServiceError ? err : fromParserError(err);
}

export function sendError(res: Response, err: unknown, log: Logger): ServiceError {
  let e = toServiceError(err);
  if (!e) {
    log.error({ err, requestId: res.locals.requestId }, 'unexpected error');
    e = new ServiceError('internal_error', `an unexpected error occurred (request ${res.locals.requestId ?? 'unknown'})`);
  }
  if (!res.headersSent) {
    // Retry-After, WWW-Authenticate, Allow and Cache-Control from the error's facts (server/response/).
    res
      .status(e.status)
      .set(errorHeaders(e))
      .type('application/json')
      .send(JSON.stringify({ error: e.code, message: e.message }));
  }
  return e;
}

export function errorHandler(log: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = sendError(res, err, log);
    res.locals.errorCode = e.code;
  };
}
