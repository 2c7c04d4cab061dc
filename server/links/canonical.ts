// Signed render links: how the options of POST /v1/screenshot travel in a query string,
// and the one canonical form that is signed.
//
// Flattening (toQuery / fromQuery), typed by the one request schema:
//   top-level scalars     url=https%3A%2F%2Fexample.com%2F  fullPage=true  quality=80
//   nested object fields  viewport.width=1200  viewport.deviceScaleFactor=2
//   arrays                the name repeated, in order: hideSelectors=.ad&hideSelectors=.promo
//   arrays of objects     each item as JSON, the name repeated: actions={"click":"#menu"}&actions={"wait":200}
// Numbers and booleans are typed by the schema (viewport.width=1200 is the number 1200, fullPage=true
// the boolean), so the GET and the POST of the same options are the same request and share a cache
// entry. A value the schema's type cannot read stays a string and fails validation naming its field.
// headers and cookies are refused: a link is public, and its query would publish them.
//
// Canonical form (what is signed): every name=value pair of the query except `signature`, decoded
// as application/x-www-form-urlencoded (`+` is a space, %XX is UTF-8), re-encoded one way (RFC 3986
// unreserved characters A-Z a-z 0-9 - . _ ~ as they are, every other UTF-8 byte as %XX in upper
// case, so a space is %20), sorted by encoded name (code-unit order; a stable sort, so repeated
// names keep their order, which is an array's order), joined as name=value with `&`. The string to
// sign is `/v1/screenshot?` followed by that. The signature is the lower-case hex HMAC-SHA256 of the
// string under the key's signing secret (its text, as UTF-8).
import { badRequest } from '../errors.ts';
import { screenshotRequestSchema } from '../request/schema.ts';

export const SIGNED_PATH = '/v1/screenshot';
/** Query parameters of the link itself, not options. */
export const LINK_PARAMS = ['keyId', 'expires', 'signature'] as const;
/** Options a link may not carry: they would be published with it. */
export const NOT_IN_LINKS = ['headers', 'cookies'] as const;

export type Pair = [name: string, value: string];

/** RFC 3986 percent-encoding of everything but the unreserved characters (encodeURIComponent leaves !'()* as they are). */
export function encode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The pairs of a raw query string (no leading `?`), decoded as a form would be. */
export function parseQuery(raw: string): Pair[] {
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      throw badRequest('the query string is not valid percent-encoded UTF-8');
    }
  };
  return raw
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      return i < 0 ? [decode(p), ''] : [decode(p.slice(0, i)), decode(p.slice(i + 1))];
    });
}

/** The canonical query of the pairs, `signature` left out. */
export function canonicalQuery(pairs: Pair[]): string {
  return pairs
    .filter(([name]) => name !== 'signature')
    .map(([n, v]): Pair => [encode(n), encode(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([n, v]) => `${n}=${v}`)
    .join('&');
}

/** What the signature is computed over: the path (a link for one route is not one for another) and the canonical query. */
export function stringToSign(pairs: Pair[], path: string = SIGNED_PATH): string {
  return `${path}?${canonicalQuery(pairs)}`;
}

export type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema };
const FIELDS = screenshotRequestSchema.properties as unknown as Record<string, Schema>;

/** Options (a JSON request body) as query pairs. */
export function toQuery(options: Record<string, unknown>, fields: Record<string, Schema> = FIELDS): Pair[] {
  const out: Pair[] = [];
  const scalar = (name: string, v: unknown) => {
    if (v === null || typeof v === 'object') throw badRequest(`${name} cannot be written in a link`);
    out.push([name, String(v)]);
  };
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if ((NOT_IN_LINKS as readonly string[]).includes(name))
      throw badRequest(`${name} cannot be sent in a signed link: a link is public, and would publish them`);
    const objects = fields[name]?.items?.type === 'object';
    if (Array.isArray(value)) value.forEach((v) => scalar(name, objects && v !== null && typeof v === 'object' ? JSON.stringify(v) : v));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) scalar(`${name}.${k}`, v);
    else scalar(name, value);
  }
  return out;
}

/** A query value read as the schema types it (a value of the wrong form stays a string: validation names the field). */
function typed(schema: Schema | undefined, v: string): unknown {
  if (schema?.type === 'object' && v.startsWith('{')) {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  }
  if ((schema?.type === 'number' || schema?.type === 'integer') && /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(v)) return Number(v);
  if (schema?.type === 'boolean' && (v === 'true' || v === 'false')) return v === 'true';
  return v;
}

/** The options of a link's query pairs (link parameters excluded), typed by the schema. */
export function fromQuery(pairs: Pair[], fields: Record<string, Schema> = FIELDS): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [name, value] of pairs) {
    if ((LINK_PARAMS as readonly string[]).includes(name)) continue;
    const [top, sub, ...deeper] = name.split('.');
    const field = fields[top!];
    if (!field) continue; // unknown fields are ignored (spec §9), as in a JSON body
    if ((NOT_IN_LINKS as readonly string[]).includes(top!))
      throw badRequest(`${top} cannot be sent in a signed link: a link is public, and would publish them`);
    if (field.type === 'array') {
      if (sub !== undefined) throw badRequest(`${top} is written as repeated ${top}=... parameters in a link`);
      ((body[top!] ??= []) as unknown[]).push(typed(field.items, value));
      continue;
    }
    // Named as the schema names it: the rest of a parameter name is the caller's own text.
    if (seen.has(name)) throw badRequest(`${sub !== undefined && field.properties?.[sub] ? `${top}.${sub}` : top} is given twice in the link`);
    seen.add(name);
    if (sub === undefined) {
      body[top!] = typed(field, value);
    } else if (field.type === 'object' && field.properties?.[sub] && deeper.length === 0) {
      const obj = (body[top!] ??= {}) as Record<string, unknown>;
      if (typeof obj !== 'object') throw badRequest(`${top} is given both whole and by its fields in the link`);
      obj[sub] = typed(field.properties[sub], value);
    } else {
      throw badRequest(`a parameter under ${top} names no field of ${top}`);
    }
  }
  return body;
}
