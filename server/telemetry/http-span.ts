// A server span per HTTP request (the semantic conventions for HTTP servers), continuing the
// caller's trace when it sends W3C `traceparent`/`tracestate`. Named `METHOD route` with the route
// of the app's table (server/http/app.ts), never the raw path. The request and response emitters
// are bound to the span's context, so that what runs from their events (the body parser, the
// request log line) is inside it. Nothing of the request's content is recorded: no query, no
// header value (server.address is the listening socket's, not the Host header).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR } from './attributes.ts';
import { tracer, tracingOn } from './spans.ts';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

type Req = IncomingMessage & { path: string };
type Res = ServerResponse & { locals: Record<string, unknown> };

/** Express middleware; `routeOf` names a request path's route (undefined: none of the table's). */
export function serverSpans(routeOf: (path: string) => string | undefined) {
  return (req: Req, res: Res, next: () => void): void => {
    if (!tracingOn()) return next();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = KNOWN_METHODS.has(req.method ?? '') ? req.method! : '_OTHER';
    const route = routeOf(req.path);
    const span = tracer().startSpan(
      route ? `${method} ${route}` : method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR.method]: method,
          [ATTR.path]: req.path,
          [ATTR.scheme]: 'encrypted' in req.socket ? 'https' : 'http',
          [ATTR.serverAddress]: req.socket.localAddress,
          [ATTR.serverPort]: req.socket.localPort,
          [ATTR.protocolVersion]: req.httpVersion,
          ...(route ? { [ATTR.route]: route } : {}),
        },
      },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    context.bind(ctx, req);
    context.bind(ctx, res);
    res.once('close', () => {
      const status = res.statusCode;
      span.setAttribute(ATTR.status, status);
      if (typeof res.locals.requestId === 'string') span.setAttribute(ATTR.requestId, res.locals.requestId);
      const code = typeof res.locals.errorCode === 'string' ? res.locals.errorCode : res.writableFinished ? undefined : 'client_closed';
      if (code) span.setAttribute(ATTR.errorType, code);
      if (status >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: code ?? String(status) });
      span.end();
    });
    context.with(ctx, next);
  };
}
