// The HTTP client of the tests: one call per request, the reply with its body, parsed JSON errors
// and timing; never the image bytes in assertion messages. One connection per call unless asked
// (keepAlive): a kept-alive connection carries state from one test to the next (the server may be
// closing it at the moment it is reused, it counts against the per-address limit while idle).
import { TEST_KEY } from './server.ts';

export interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The parsed JSON body for errors (undefined when not JSON). */
  json: any;
  ms: number;
}

export interface PostOptions {
  /** The API key (default TEST_KEY); null sends no Authorization header. */
  key?: string | null;
  contentType?: string | null;
  headers?: Record<string, string>;
  method?: string;
  /** A raw body instead of JSON.stringify(body). */
  raw?: string;
  /**
   * Send the request on a kept-alive connection of the process's pool (fetch's default). Without
   * it every call has a connection of its own, closed after the answer (Connection: close): no
   * test inherits an idle connection from another, and none counts against the server's
   * per-address limit (MAX_CONNECTIONS_PER_IP) once answered. For the tests about keep-alive.
   */
  keepAlive?: boolean;
}

export async function call(base: string, p: string, body?: unknown, opts: PostOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.keepAlive ? {} : { connection: 'close' }), ...opts.headers };
  const key = opts.key === undefined ? TEST_KEY : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const contentType = opts.contentType === undefined ? 'application/json' : opts.contentType;
  if (contentType !== null && (body !== undefined || opts.raw !== undefined)) headers['content-type'] = contentType;
  const started = Date.now();
  const res = await fetch(base + p, {
    method: opts.method ?? 'POST',
    headers,
    body: opts.raw !== undefined ? opts.raw : body !== undefined ? JSON.stringify(body) : undefined,
  });
  const buf = Buffer.from(await res.arrayBuffer());
  let json: any;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      json = JSON.parse(buf.toString('utf8'));
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, body: buf, json, ms: Date.now() - started };
}

/** POST /v1/screenshot (with the test key unless `opts.key` says otherwise). */
export const shoot = (base: string, body: unknown, opts: PostOptions = {}) => call(base, '/v1/screenshot', body, opts);

/** shoot, with a network failure (refused, reset, a timeout) as a reply of status -1: under load tests, a failure to count, not a throw. */
export const shootOrFailure = (base: string, body: unknown, opts: PostOptions = {}): Promise<Reply> =>
  shoot(base, body, opts).catch((e: Error): Reply => ({
    status: -1,
    headers: new Headers(),
    body: Buffer.alloc(0),
    json: { error: 'client', message: `${e} ${(e.cause as Error | undefined)?.message ?? ''}` },
    ms: 0,
  }));

/** Describes a reply for assertion messages (never the image bytes). */
export function show(r: Reply): string {
  return `${r.status} ${r.json ? JSON.stringify(r.json) : `${r.headers.get('content-type')} ${r.body.length} bytes`}`;
}

/** The secret that signs this key's webhooks, as GET /v1/webhook-secret shows it to its owner. */
export async function webhookSecretOf(base: string, key: string = TEST_KEY): Promise<string> {
  const r = await call(base, '/v1/webhook-secret', undefined, { method: 'GET', key });
  if (r.status !== 200 || typeof r.json?.secret !== 'string') throw new Error(`GET /v1/webhook-secret: ${r.status} ${r.body.toString('utf8').slice(0, 200)}`);
  return r.json.secret;
}
