// Turns a case's request (data with directives, see model.ts) into the bytes to send.
import { consentFixture, pageFixture, sizedHtml } from './fixtures.ts';
import type { CanarySpelling, RequestSpec } from './model.ts';
import type { HttpRequest } from './http.ts';
import { canaryUrl } from './canary.ts';

export interface ResolveContext {
  baseUrl: string;
  /** The key used for this case (chosen among --api-key values). */
  apiKey: string;
  freshKey?: string;
  fixtureOrigins: string[];
  canaryPort?: number;
  /** A random string, the same for every step of one case execution ({{nonce}}). */
  nonce?: string;
}

function origin(ctx: ResolveContext, i: number): string {
  const o = ctx.fixtureOrigins[i];
  if (!o) throw new Error(`case needs fixture origin #${i + 1}, none configured`);
  return o;
}

function canary(ctx: ResolveContext, path: string, spelling?: CanarySpelling): string {
  if (ctx.canaryPort === undefined) throw new Error('case needs a canary, none started');
  return canaryUrl(ctx.canaryPort, path, spelling);
}

function template(ctx: ResolveContext, s: string): string {
  // {{nonce}} is a per-execution random string (unique cache keys); {{canaryPort}} is the canary's port; {{canary}} / {{fixtures}} / {{fixtures2}} are origins without a trailing slash; {{canary:/p}} adds a path.
  return s.replace(/\{\{(canary|canaryPort|fixtures|fixtures2|nonce)(:[^}]*)?\}\}/g, (_, what: string, rest?: string) => {
    const p = rest ? rest.slice(1) : '';
    if (what === 'nonce') return ctx.nonce ?? 'n';
    if (what === 'canaryPort') return String(canary(ctx, '/').split(':')[2]!.replace('/', ''));
    const o = what === 'canary' ? canary(ctx, '/').slice(0, -1) : origin(ctx, what === 'fixtures' ? 0 : 1);
    return o + p;
  });
}

export function resolveValue(v: unknown, ctx: ResolveContext): unknown {
  if (Array.isArray(v)) return v.map((x) => resolveValue(x, ctx));
  if (!v || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if (typeof o.$fixture === 'string') return pageFixture(o.$fixture);
  if (typeof o.$consentFixture === 'string') return consentFixture(o.$consentFixture);
  if (typeof o.$fixtureUrl === 'string') return origin(ctx, 0) + o.$fixtureUrl;
  if (typeof o.$fixtureUrl2 === 'string') return origin(ctx, 1) + o.$fixtureUrl2;
  if (typeof o.$canaryUrl === 'string') return canary(ctx, o.$canaryUrl, o.spelling as CanarySpelling | undefined);
  if (typeof o.$template === 'string') return template(ctx, o.$template);
  if (o.$html && typeof o.$html === 'object') {
    const h = o.$html as { bytes: number; fill?: string };
    return sizedHtml(h.bytes, h.fill);
  }
  if ('$repeat' in o && typeof o.times === 'number') return Array.from({ length: o.times }, () => resolveValue(o.$repeat, ctx));
  if (o.$string && typeof o.$string === 'object') {
    const s = o.$string as { char: string; length: number };
    return s.char.repeat(s.length);
  }
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, resolveValue(x, ctx)]));
}

export function buildRequest(spec: RequestSpec, ctx: ResolveContext): HttpRequest {
  const headers: Record<string, string> = {};
  const auth = spec.auth ?? 'valid';
  if (auth === 'valid') headers.authorization = `Bearer ${ctx.apiKey}`;
  if (auth === 'fresh') {
    if (!ctx.freshKey) throw new Error('case needs --fresh-key');
    headers.authorization = `Bearer ${ctx.freshKey}`;
  }
  if (auth === 'invalid') headers.authorization = 'Bearer conformance-invalid-key-0000000000';
  if (auth === 'malformed') headers.authorization = `Basic ${Buffer.from('user:pass').toString('base64')}`;
  let body: string | undefined;
  if (spec.rawBody !== undefined) body = spec.rawBody;
  else if (spec.body !== undefined) body = JSON.stringify(resolveValue(spec.body, ctx));
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (const [k, v] of Object.entries(spec.headers ?? {})) {
    if (v === '') delete headers[k.toLowerCase()]; // '' removes a header the runner would send
    else headers[k.toLowerCase()] = v;
  }
  const method = spec.method ?? 'POST';
  const url = ctx.baseUrl.replace(/\/+$/, '') + (spec.path ?? '/v1/screenshot');
  return { method, url, headers, ...(body !== undefined && method !== 'GET' && method !== 'HEAD' ? { body } : {}) };
}
