// The suite's HTTP client: undici, with timeouts long enough for the 20-second render budget.
// The executor takes any HttpClient, so that the verdict logic can be unit-tested against msw
// handlers with a fetch-based client (self-test/verdict.test.ts).
import { Agent, request } from 'undici';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  durationMs: number;
}

export type HttpClient = (req: HttpRequest) => Promise<HttpResponse>;

const agent = new Agent({ headersTimeout: 120_000, bodyTimeout: 120_000, connections: 16, keepAliveTimeout: 2_000 });

export const undiciClient: HttpClient = async (req) => {
  const t0 = performance.now();
  // reset: a fresh connection per request, so that no request goes out on a keep-alive socket the
  // server has just closed (ECONNRESET on a busy machine); a connection costs little next to a render.
  const res = await request(req.url, { method: req.method as 'POST', headers: req.headers, body: req.body, dispatcher: agent, reset: true });
  const body = Buffer.from(await res.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return { status: res.statusCode, headers, body, durationMs: performance.now() - t0 };
};

/** A client over the global fetch (what msw intercepts in the suite's own unit tests). */
export const fetchClient: HttpClient = async (req) => {
  const t0 = performance.now();
  const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
  const body = Buffer.from(await res.arrayBuffer());
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
  return { status: res.status, headers, body, durationMs: performance.now() - t0 };
};
