// Routes. Thin: authenticate, hand the body to the capture service, write bytes or the error.
//   POST /v1/screenshot   spec §4.1
//   GET  /v1/screenshot?...&signature=   a signed render link (server/links/)
//   POST /v1/compare      a capture compared with a baseline (server/compare/), GET its signed links
//   GET  /openapi.json    generated from the one request schema
//   GET  /v1/devices      the device presets of the `device` field (server/emulation/)
//   GET  /healthz /readyz /metrics   for deployments
//   GET  /  /playground/*  the playground page (server/playground/), GET /README.md the docs
//   OPTIONS on any of them: 204 with Allow (+ CORS preflight answers for CORS_ORIGINS; cors.ts)
//   /mcp                  the agent-tool server (spec §4.2), mounted by the caller
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Accounts } from '../accounts/index.ts';
import { DEVICES_PATH, devicesRoute } from '../emulation/route.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { COMPARE_PATH } from '../compare/link.ts';
import { compareLink, comparePost } from '../compare/route.ts';
import type { CompareService } from '../compare/service.ts';
import type { CaptureService } from '../service.ts';
import { cachePolicy } from '../http-caching/cache-control.ts';
import { sendCapture } from '../edge/send-capture.ts';
import { signedLinkRoute } from '../links/route.ts';
import type { VerifyDeps } from '../links/verify.ts';
import { playgroundRoutes, readmeRoute } from '../playground/routes.ts';
import { REQUEST_HEADER } from '../request/headers.ts';
import { HEADER } from '../response/registry.ts';
import { oauthProbeAnswer, requireAuth } from './auth.ts';
import { cors } from './cors.ts';
import type { Drain } from './drain.ts';
import { errorHandler } from './errors.ts';
import { openApiDocument } from './openapi.ts';
import { whileConnected } from '../edge/while-connected.ts';

/** JSON body limit: html may be HTML_MAX_BYTES (request/schema.ts), and JSON escaping can grow it several times. */
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface AppDeps {
  accounts: Accounts;
  capture: CaptureService;
  /** POST /v1/compare (server/compare/); without it the route answers 404. */
  compare?: CompareService;
  metrics: Metrics;
  log: Logger;
  /** Undefined when this replica takes work; otherwise why not (draining, queue full, no browser). */
  readiness(): Promise<string | undefined>;
  /** Counts requests in flight and closes connections once draining (server/http/drain.ts). */
  drain?: Drain;
  /** Reported by /healthz so that reports (e.g. the conformance suite's) can record it. */
  browserVersion(): string | undefined;
  /** Extra routers (the MCP server) mounted before the catch-all 404. */
  mount?: (app: express.Express) => void;
  /** CORS_ORIGINS: origins whose pages may call the API from a browser; none by default. */
  corsOrigins?: readonly string[];
  /** Where signed links find their keys' signing secrets (server/links/); without it every link is refused. */
  links?: VerifyDeps;
}

/** Methods of each known path, for OPTIONS and CORS preflights (cors.ts). /mcp is mounted by the caller. */
const ROUTES: Record<string, string> = {
  '/v1/screenshot': 'POST',
  [COMPARE_PATH]: 'POST',
  '/mcp': 'POST',
  '/': 'GET, HEAD',
  '/README.md': 'GET, HEAD',
  '/openapi.json': 'GET, HEAD',
  [DEVICES_PATH]: 'GET, HEAD',
  '/healthz': 'GET, HEAD',
  '/readyz': 'GET, HEAD',
  '/metrics': 'GET, HEAD',
};

function requireJson(req: Request, _res: Response, next: NextFunction) {
  // Checked on the header itself: req.is() answers null for an empty body.
  if (!/^application\/json\s*(;|$)/i.test(req.get(REQUEST_HEADER.contentType) ?? '')) {
    throw new ServiceError('unsupported_media_type', 'Content-Type must be application/json');
  }
  next();
}

function methodNotAllowed(allow: string) {
  return () => {
    throw new ServiceError('method_not_allowed', `this route accepts ${allow} only`, { allow });
  };
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.drain) app.use(deps.drain.middleware());
  app.use((req, res, next) => {
    const id = randomUUID();
    res.locals.requestId = id;
    res.set(HEADER.requestId, id);
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      deps.log.info({ requestId: id, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms), error: res.locals.errorCode }, 'request');
    });
    next();
  });
  app.use(cors({ origins: deps.corsOrigins ?? [], routes: ROUTES }));

  app.post(
    '/v1/screenshot',
    requireAuth(deps.accounts),
    requireJson,
    express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true }),
    async (req: Request, res: Response) => {
      const cache = cachePolicy(req.get(REQUEST_HEADER.cacheControl));
      const out = await whileConnected(res, deps.metrics.outcomes, (signal) => deps.capture(res.locals.account, req.body, { cache, signal }));
      sendCapture(req, res, out, { kind: 'private' });
    },
  );
  app.get('/v1/screenshot', signedLinkRoute({ capture: deps.capture, metrics: deps.metrics, verify: deps.links ?? { db: undefined, kek: null } }));
  app.all('/v1/screenshot', methodNotAllowed('POST'));
  if (deps.compare) {
    const compare = { compare: deps.compare, metrics: deps.metrics, verify: deps.links ?? { db: undefined, kek: null } };
    app.post(
      COMPARE_PATH,
      requireAuth(deps.accounts),
      requireJson,
      express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true }),
      comparePost(compare),
    );
    app.get(COMPARE_PATH, compareLink(compare));
    app.all(COMPARE_PATH, methodNotAllowed('POST'));
  }

  app.get('/openapi.json', (_req, res) => void res.json(openApiDocument()));
  app.get(DEVICES_PATH, devicesRoute());
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok', chromium: deps.browserVersion() ?? null, node: process.version }));
  app.get('/readyz', async (_req, res) => {
    // 503 tells a balancer to send work elsewhere: draining (SIGTERM), queue full, no browser.
    const why = await deps.readiness();
    res.status(why ? 503 : 200).json(why ? { error: 'overloaded', message: why } : { status: 'ready' });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  app.use(playgroundRoutes());
  app.get('/README.md', readmeRoute());
  for (const p of ['/openapi.json', DEVICES_PATH, '/healthz', '/readyz', '/metrics', '/', '/README.md']) app.all(p, methodNotAllowed('GET'));

  deps.mount?.(app);

  app.use((req: Request) => {
    throw oauthProbeAnswer(req.path) ?? new ServiceError('not_found', 'no such route; the API is POST /v1/screenshot');
  });
  app.use(errorHandler(deps.log));
  return app;
}
