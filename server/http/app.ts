// Routes, as one table (routes() below): each path, a method it is for and its handlers (a path
// answering several methods has a row for each). The registrations, the 405 answers (with Allow:
// every method of the path's rows), OPTIONS and the CORS preflights (cors.ts) all derive from it; /mcp is listed there and answered by the router the caller mounts. Thin: authenticate,
// hand the body to the capture service, write bytes or the error.
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Accounts } from '../accounts/index.ts';
import { DEVICES_PATH, devicesRoute } from '../emulation/route.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { BatchHandlers } from '../batches/routes.ts';
import { BATCH_ITEM_PATH, BATCH_PATH, BATCHES_PATH, WEBHOOK_SECRET_PATH } from '../batches/validate.ts';
import { COMPARE_PATH } from '../compare/link.ts';
import { compareLink, comparePost } from '../compare/route.ts';
import type { CompareService } from '../compare/service.ts';
import type { CaptureService } from '../service.ts';
import { cachePolicy } from '../http-caching/cache-control.ts';
import { sendCapture } from '../edge/send-capture.ts';
import { signedLinkRoute } from '../links/route.ts';
import type { VerifyDeps } from '../links/verify.ts';
import { playgroundRoutes, readmeRoute } from '../playground/routes.ts';
import { REQUEST_HEADER } from '../kinds/headers.ts';
import { HEADER } from '../response/registry.ts';
import { serverSpans } from '../telemetry/http-span.ts';
import { oauthProbeAnswer, requireAuth } from '../edge/auth.ts';
import { cors } from './cors.ts';
import type { Drain } from './drain.ts';
import { errorHandler } from './errors.ts';
import { openApiDocument } from './openapi.ts';
import { BODY_LIMIT_BYTES } from '../edge/body-limit.ts';
import { whileConnected } from '../edge/while-connected.ts';

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
  /** The batch routes (server/batches/); without them they answer 404. */
  batches?: BatchHandlers;
  /** Extra routers (the MCP server) mounted before the catch-all 404. */
  mount?: (app: express.Express) => void;
  /** CORS_ORIGINS: origins whose pages may call the API from a browser; none by default. */
  corsOrigins?: readonly string[];
  /** Where signed links find their keys' signing secrets (server/links/); without it every link is refused. */
  links?: VerifyDeps;
}

type Handler = express.RequestHandler;

/** One method of one path of the API. */
export interface Route {
  /** Express's path (`:name` for a parameter); the rows of one path name its methods together. */
  path: string;
  /** The method it is for: what Allow names (OPTIONS, 405, CORS preflights). GET answers HEAD too. */
  method: 'GET' | 'POST' | 'DELETE';
  /** Its handlers; none when a router mounted by the caller answers it (/mcp) or the feature is off (compare). */
  handlers?: Handler[];
  /** A router answering the path (and its own sub-paths: the playground's files), mounted at the route's place. */
  router?: express.Router;
  /** GET on a POST route: a signed link of it (server/links/); not named in Allow, a GET without a signature is 405. */
  link?: Handler;
}

/** The methods of a path's rows, as a 405's Allow names them. */
const methodsOf = (rows: readonly Route[]) => [...new Set(rows.map((r) => r.method))].join(', ');
/** OPTIONS's Allow and the preflights' methods: GET answers HEAD too (OPTIONS adds itself). */
const allowOf = (rows: readonly Route[]) => [...new Set(rows.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])))].join(', ');

/** A table path as a matcher of request paths: `:name` is one segment. */
function pathMatcher(path: string): RegExp {
  const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^${path
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : literal(seg)))
      .join('/')}$`,
  );
}

/** The table's rows by path, in the table's order. */
export function byPath(table: readonly Route[]): Map<string, Route[]> {
  const paths = new Map<string, Route[]>();
  for (const r of table) paths.set(r.path, [...(paths.get(r.path) ?? []), r]);
  return paths;
}

/** The table. */
function routes(deps: AppDeps): Route[] {
  const json = [requireJson, express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true })];
  const verify = deps.links ?? { db: undefined, kek: null };
  const compare = deps.compare && { compare: deps.compare, metrics: deps.metrics, verify };
  const auth = requireAuth(deps.accounts);
  const batch = (h: (b: BatchHandlers) => Handler, body = false) => deps.batches && [auth, ...(body ? json : []), h(deps.batches)];
  return [
    // spec §4.1
    {
      path: '/v1/screenshot',
      method: 'POST',
      handlers: [auth, ...json, screenshotPost(deps)],
      link: signedLinkRoute({ capture: deps.capture, metrics: deps.metrics, verify }),
    },
    // a capture compared with a baseline (server/compare/), answered 404 when the server has no compare service
    {
      path: COMPARE_PATH,
      method: 'POST',
      handlers: compare && [auth, ...json, comparePost(compare)],
      link: compare && compareLink(compare),
    },
    // batches of captures as durable jobs (server/batches/, docs/batches.md), answered 404 when the server has none
    { path: BATCHES_PATH, method: 'POST', handlers: batch((b) => b.submit, true) },
    { path: BATCH_PATH, method: 'GET', handlers: batch((b) => b.get) },
    { path: BATCH_PATH, method: 'DELETE', handlers: batch((b) => b.cancel) },
    { path: BATCH_ITEM_PATH, method: 'GET', handlers: batch((b) => b.item) },
    // the secret that signs the calling key's batch webhooks (server/webhooks/secrets.ts)
    { path: WEBHOOK_SECRET_PATH, method: 'GET', handlers: batch((b) => b.webhookSecret) },
    // the agent-tool server (spec §4.2), mounted by the caller (deps.mount)
    { path: '/mcp', method: 'POST' },
    // the playground page (server/playground/) and its files
    { path: '/', method: 'GET', router: playgroundRoutes() },
    { path: '/README.md', method: 'GET', handlers: [readmeRoute()] },
    // generated from the one request schema
    { path: '/openapi.json', method: 'GET', handlers: [(_req, res) => void res.json(openApiDocument())] },
    // the device presets of the `device` field (server/emulation/)
    { path: DEVICES_PATH, method: 'GET', handlers: [devicesRoute()] },
    // for deployments
    {
      path: '/healthz',
      method: 'GET',
      handlers: [(_req, res) => void res.json({ status: 'ok', chromium: deps.browserVersion() ?? null, node: process.version })],
    },
    { path: '/readyz', method: 'GET', handlers: [readyz(deps)] },
    { path: '/metrics', method: 'GET', handlers: [metrics(deps)] },
  ];
}

function screenshotPost(deps: AppDeps): Handler {
  return async (req: Request, res: Response) => {
    const cache = cachePolicy(req.get(REQUEST_HEADER.cacheControl));
    const out = await whileConnected(res, deps.metrics.outcomes, (signal) => deps.capture(res.locals.account, req.body, { cache, signal }));
    sendCapture(req, res, out, { kind: 'private' });
  };
}

function readyz(deps: AppDeps): Handler {
  return async (_req, res) => {
    // 503 tells a balancer to send work elsewhere: draining (SIGTERM), queue full, no browser.
    const why = await deps.readiness();
    res.status(why ? 503 : 200).json(why ? { error: 'overloaded', message: why } : { status: 'ready' });
  };
}

function metrics(deps: AppDeps): Handler {
  return async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  };
}

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
  const paths = byPath(routes(deps));
  const matchers = [...paths].map(([path, rows]) => ({ path, re: pathMatcher(path), allow: allowOf(rows) }));
  // First: everything after it, the request log line included, runs inside the request's span.
  app.use(serverSpans((p) => matchers.find((m) => m.re.test(p))?.path));
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
  app.use(cors({ origins: deps.corsOrigins ?? [], allowOf: (p) => matchers.find((m) => m.re.test(p))?.allow }));
  for (const [path, rows] of paths) {
    let answered = false;
    for (const r of rows) {
      if (r.router) app.use(r.router);
      if (r.handlers) app[r.method === 'GET' ? 'get' : r.method === 'POST' ? 'post' : 'delete'](path, ...r.handlers);
      if (r.link) app.get(path, r.link);
      answered ||= Boolean(r.router || r.handlers || r.link);
    }
    // Any other method on a path answered here: 405 with Allow (registered after its rows: app.all matches every method).
    if (answered) app.all(path, methodNotAllowed(methodsOf(rows)));
  }

  deps.mount?.(app);

  app.use((req: Request) => {
    throw oauthProbeAnswer(req.path) ?? new ServiceError('not_found', 'no such route; the API is POST /v1/screenshot');
  });
  app.use(errorHandler(deps.log));
  return app;
}
