// Turns a case's request (data with directives, see model.ts) into what is sent: the bytes of an
// HTTP exchange, or the arguments of an MCP tool call. `describe` mode (for --list) resolves the
// same way but shows long generated strings as a short note of what they are.
import { canaryUrl } from './canary.ts';
import { consentFixture, pageFixture, sizedHtml } from '../fixture-pages/fixtures.ts';
import type { HttpRequest } from './http.ts';
import type { CanarySpelling, HttpRequestSpec } from '../model/model.ts';

export interface ResolveContext {
  baseUrl: string;
  mcpUrl?: string;
  /** The key used for this case (chosen among --api-key values). */
  apiKey: string;
  freshKey?: string;
  mcpFreshKey?: string;
  fixtureOrigins: string[];
  canaryPort?: number;
  /** A random string, the same for every step of one case execution ({{nonce}}, run=). */
  nonce: string;
  /** --list: show generated strings by what they are, and placeholders where nothing is running. */
  describe?: boolean;
}

function origin(ctx: ResolveContext, i: number): string {
  const o = ctx.fixtureOrigins[i];
  if (o) return o;
  if (ctx.describe) return `http://<fixtures${i === 0 ? '' : '2'}>`;
  throw new Error(`case needs fixture origin #${i + 1}, none configured`);
}

function canary(ctx: ResolveContext, path: string, spelling?: CanarySpelling): string {
  if (ctx.canaryPort === undefined && ctx.describe) return canaryUrl(1, path, spelling).replace(':1/', ':<canary-port>/');
  if (ctx.canaryPort === undefined) throw new Error('case needs a canary, none started');
  return canaryUrl(ctx.canaryPort, path, spelling);
}

/** A fixture URL that no cache can have seen: `run=<nonce>` added to its query. */
function fixtureUrl(ctx: ResolveContext, i: number, path: string): string {
  return `${origin(ctx, i)}${path}${path.includes('?') ? '&' : '?'}run=${ctx.nonce}`;
}

/** A fixture page, ending with a comment that makes it unique to this execution (no cache can answer it). */
function page(ctx: ResolveContext, label: string, text: () => string): string {
  if (ctx.describe) return `<${label}: ${Buffer.byteLength(text(), 'utf8').toLocaleString('en-US')} bytes, fonts inlined, + <!-- run ${ctx.nonce} -->>`;
  return `${text()}\n<!-- run ${ctx.nonce} -->\n`;
}

function template(ctx: ResolveContext, s: string): string {
  // {{nonce}} is the per-execution random string (unique cache keys); {{canaryPort}} is the canary's port; {{canary}} / {{fixtures}} / {{fixtures2}} are origins without a trailing slash; {{canary:/p}} adds a path.
  return s.replace(/\{\{(canary|canaryPort|fixtures|fixtures2|nonce)(:[^}]*)?\}\}/g, (_, what: string, rest?: string) => {
    const p = rest ? rest.slice(1) : '';
    if (what === 'nonce') return ctx.nonce;
    if (what === 'canaryPort') return ctx.canaryPort !== undefined ? String(ctx.canaryPort) : ctx.describe ? '<canary-port>' : canary(ctx, '/');
    const o = what === 'canary' ? canary(ctx, '/').slice(0, -1) : origin(ctx, what === 'fixtures' ? 0 : 1);
    return o + p;
  });
}

export function resolveValue(v: unknown, ctx: ResolveContext): unknown {
  if (Array.isArray(v)) return v.map((x) => resolveValue(x, ctx));
  if (!v || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if (typeof o.$fixture === 'string') return page(ctx, `fixtures/pages/${o.$fixture}.html`, () => pageFixture(o.$fixture as string));
  if (typeof o.$consentFixture === 'string') return page(ctx, `fixtures/consent/${o.$consentFixture}`, () => consentFixture(o.$consentFixture as string));
  if (typeof o.$fixtureUrl === 'string') return fixtureUrl(ctx, 0, o.$fixtureUrl);
  if (typeof o.$fixtureUrl2 === 'string') return fixtureUrl(ctx, 1, o.$fixtureUrl2);
  if (typeof o.$canaryUrl === 'string') return canary(ctx, o.$canaryUrl, o.spelling as CanarySpelling | undefined);
  if (typeof o.$template === 'string') return template(ctx, o.$template);
  if (o.$html && typeof o.$html === 'object') {
    const h = o.$html as { bytes: number; fill?: string };
    return ctx.describe
      ? `<an HTML document of exactly ${h.bytes.toLocaleString('en-US')} UTF-8 bytes, filled with ${JSON.stringify(h.fill ?? 'a')}>`
      : sizedHtml(h.bytes, h.fill);
  }
  if ('$repeat' in o && typeof o.times === 'number') return Array.from({ length: o.times }, () => resolveValue(o.$repeat, ctx));
  if (o.$string && typeof o.$string === 'object') {
    const s = o.$string as { char: string; length: number };
    return ctx.describe && s.length > 80 ? `<${s.length} x ${JSON.stringify(s.char)}>` : s.char.repeat(s.length);
  }
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, resolveValue(x, ctx)]));
}

/** The Authorization header for a request's `auth`, or undefined for none. */
export function authorization(auth: HttpRequestSpec['auth'], ctx: ResolveContext): string | undefined {
  switch (auth ?? 'valid') {
    case 'valid':
      return `Bearer ${ctx.apiKey}`;
    case 'none':
      return undefined;
    case 'invalid':
      return 'Bearer conformance-invalid-key-0000000000';
    case 'malformed':
      return `Basic ${Buffer.from('user:pass').toString('base64')}`;
    case 'fresh':
      if (!ctx.freshKey) throw new Error('case needs --fresh-key');
      return `Bearer ${ctx.freshKey}`;
    case 'mcp-fresh':
      if (!ctx.mcpFreshKey) throw new Error('case needs --mcp-fresh-key');
      return `Bearer ${ctx.mcpFreshKey}`;
  }
}

export function buildRequest(spec: HttpRequestSpec, ctx: ResolveContext): HttpRequest {
  const headers: Record<string, string> = {};
  const auth = authorization(spec.auth, ctx);
  if (auth) headers.authorization = auth;
  let body: string | undefined;
  if (spec.rawBody !== undefined) body = spec.rawBody;
  else if (spec.body !== undefined) body = JSON.stringify(resolveValue(spec.body, ctx));
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (const [k, v] of Object.entries(spec.headers ?? {})) {
    if (v === '')
      delete headers[k.toLowerCase()]; // '' removes a header the runner would send
    else headers[k.toLowerCase()] = v;
  }
  const method = spec.method ?? 'POST';
  const url = spec.endpoint === 'mcp' ? (ctx.mcpUrl ?? (ctx.describe ? '<mcp-url>' : '')) : ctx.baseUrl.replace(/\/+$/, '') + (spec.path ?? '/v1/screenshot');
  if (!url) throw new Error('case needs the MCP endpoint (--mcp-url)');
  return { method, url, headers, ...(body !== undefined && method !== 'GET' && method !== 'HEAD' ? { body } : {}) };
}
