// The properties: each a generator of requests (valid.ts, fields.ts) and an oracle computed from
// the spec and the fixture's known geometry, never recorded. Every response of every property is
// also held to the rules every answer keeps: no 5xx but 504 render_timeout, every failure JSON
// {error, message} (spec §2.4, §7).
import fc from 'fast-check';
import type { RunEnv } from '../engine/execute.ts';
import type { Observed } from '../engine/exchange.ts';
import type { HttpClient } from '../engine/http.ts';
import { decodeImage } from '../engine/image.ts';
import { compareImages } from '../engine/compare.ts';
import type { Check, Expectation, HttpRequestSpec, Region } from '../model/model.ts';
import { FIXTURE_NAME, stripNamed } from '../pairwise/fixture.ts';
import { DEFAULT_SCALE, frameOf } from '../pairwise/frame.ts';
import { shapeOf } from '../pairwise/parameters.ts';
import { judge, snippet } from '../engine/verdict.ts';
import { send, type Trial } from './engine.ts';
import { fieldsFor, KNOWN_FIELDS, malformedOf, type Malformed } from './fields.ts';
import { shotOf, validDraft } from './valid.ts';

export interface PropertyContext {
  env: RunEnv;
  http: HttpClient;
  /** The key of this property's next request. */
  key(): string;
  /** No other property sends this property's key (balances read across its requests are its own). */
  ownKey: boolean;
  declared?: ReadonlySet<string>;
}

export interface Runner<T> {
  arbitrary: fc.Arbitrary<T>;
  trial(value: T): Promise<Trial>;
}

export interface Property {
  id: string;
  /** One sentence, "The service MUST ...". */
  must: string;
  rules: string[];
  /** This property's runs: --runs times this (its requests cost more or less than one capture). */
  share: number;
  /** It reads the balance across its requests: it gets a key no other property sends. */
  readsBalance?: boolean;
  /** Why it cannot run against this implementation, or null. */
  skip?(ctx: PropertyContext): string | null;
  start(ctx: PropertyContext): Promise<Runner<any>>;
}

/** spec §2.4, §7: what every answer keeps, whatever was asked. */
export function everyAnswer(res: Observed, label = ''): Check[] {
  const checks: Check[] = [];
  const json = res.json as { error?: unknown; message?: unknown } | undefined;
  const timeout = res.status === 504 && json?.error === 'render_timeout';
  checks.push({
    name: `${label}no 5xx but 504 render_timeout`,
    pass: res.status < 500 || timeout,
    detail: `status ${res.status}${res.status >= 500 ? `: ${snippet(res.body)}` : ''}`,
  });
  if (res.status >= 400) {
    const ok = !!json && typeof json === 'object' && !Array.isArray(json) && typeof json.error === 'string' && typeof json.message === 'string';
    checks.push({ name: `${label}failure body is JSON {error, message}`, pass: ok, detail: ok ? `error=${String(json!.error)}` : `got ${snippet(res.body)}` });
  }
  return checks;
}

const body = (b: Record<string, unknown>): HttpRequestSpec => ({ body: b });

/** The billing headers, where the implementation sends them (spec §1: one credit per capture, none when cached). */
function billing(res: Observed): Check[] {
  const charged = res.headers['x-credits-charged'];
  if (charged === undefined || res.status !== 200) return [];
  const cached = res.headers['x-cache'] === 'hit';
  return [
    { name: 'one credit (none when cached)', pass: charged === (cached ? '0' : '1'), detail: `x-credits-charged ${charged}${cached ? ' on a cache hit' : ''}` },
  ];
}

/** A valid request's whole verdict: its oracle (size, type, magic bytes, alpha, strips), content-disposition, billing. */
async function judgeShot(
  res: Observed,
  shot: ReturnType<typeof shotOf>,
  label = '',
): Promise<{ checks: Check[]; image?: Awaited<ReturnType<typeof decodeImage>> }> {
  const open = shot.sizes.length > 1;
  const expect: Expectation = {
    ...shot.expect,
    image: open ? { ...shot.expect.image!, width: undefined, height: undefined } : shot.expect.image,
    headers: { 'content-disposition': { matches: '^inline\\b' } },
  };
  const j = await judge(expect, res);
  const checks = [...j.checks, ...billing(res), ...everyAnswer(res)];
  if (open && j.image) {
    const ok = shot.sizes.some((s) => s.width === j.image!.width && s.height === j.image!.height);
    checks.push({
      name: 'size (a fractional viewport side)',
      pass: ok,
      detail: `${j.image.width}x${j.image.height}, one of ${shot.sizes.map((s) => `${s.width}x${s.height}`).join(', ')} (either side rounded, times the scale)`,
    });
  }
  return { checks: checks.map((k) => ({ ...k, name: label + k.name })), image: j.image };
}

const valid: Property = {
  id: 'valid',
  must: 'The service MUST answer every valid request with 200 and the picture it asks for: the exact size, type, magic bytes and alpha, every strip of the fixture as the spec puts it, content-disposition inline, one credit (none when cached).',
  rules: [
    '2.3/success',
    '2.3/content-type',
    '2.3/content-disposition',
    '2.2/exact-frame',
    '2.2/bounds',
    '8/viewport-size',
    '8/scale',
    '8/quality',
    '8/hideSelectors',
    '1/billing-success',
  ],
  share: 1.6,
  async start(ctx) {
    const arbitrary = validDraft({ url: ctx.env.fixtureOrigins.length > 0, declared: ctx.declared });
    return {
      arbitrary,
      async trial(d) {
        const shot = shotOf(d);
        const req = body(shot.body);
        const res = await send(ctx, req);
        return { requests: [req], checks: (await judgeShot(res, shot)).checks, responses: [res] };
      },
    };
  },
};

/** A cheap valid request for the balance reads: one small capture. */
const TINY = body({ html: '<!doctype html><body style="margin:0;background:#20a040"></body>', viewport: { width: 16, height: 16 } });

/** A valid base the malformed field goes into: small, cheap, never waiting. */
const base = fc.record({
  viewport: fc.record({ width: fc.integer({ min: 1, max: 64 }), height: fc.integer({ min: 1, max: 64 }) }),
  format: fc.constantFrom('png', 'jpeg', 'webp'),
  fullPage: fc.boolean(),
  omitBackground: fc.boolean(),
});

type Base = { viewport: { width: number; height: number }; format: string; fullPage: boolean; omitBackground: boolean };

/** spec §4.1 rule 7, §7 row 3: a quality in range is malformed with png (or no format). */
const qualityWithPng = fc
  .tuple(fc.constantFrom(1, 80, 100, 55.5), fc.constantFrom('png', undefined))
  .map(([value, format]): Malformed & { format?: string } => ({
    path: ['quality'],
    value,
    what: `with format ${format ?? '(none)'}`,
    names: 'quality',
    format,
  }));

function malformedBody(b: Base, m: Malformed & { format?: string }): Record<string, unknown> {
  const out: Record<string, unknown> = { html: { $fixture: 'plain' }, ...b, viewport: { ...b.viewport } };
  const field = m.path[0]!;
  if (field === 'url') delete out.html;
  if (field === 'quality') {
    out.format = 'format' in m ? m.format : 'jpeg';
    if (out.format === undefined) delete out.format;
  }
  if (m.path.length === 1) out[field] = m.value;
  else {
    const parent = (out[field] ?? {}) as Record<string, unknown>;
    if (m.value === undefined) delete parent[m.path[1]!];
    else parent[m.path[1]!] = m.value;
    out[field] = parent;
  }
  // A malformed viewport side with an extension that needs a url, and the like, are not drawn: the
  // base sends nothing beyond the spec, so exactly one field is wrong.
  return out;
}

const malformed: Property = {
  id: 'malformed',
  must: 'The service MUST answer a request with exactly one malformed known field with 400 bad_request whose message names that field, and charge nothing for it.',
  rules: ['2.1/rule-3', '7/row-4', '7/row-2', '7/row-3', '2.4/failure-body', '7/failure-body', '1/billing-failed'],
  share: 1.6,
  readsBalance: true,
  async start(ctx) {
    const fields = fieldsFor(ctx.declared);
    let balance: number | undefined;
    const read = async (): Promise<{ remaining?: number; charged: number; checks: Check[] }> => {
      const res = await send(ctx, TINY);
      const r = res.headers['x-credits-remaining'];
      return {
        remaining: r === undefined ? undefined : Number(r),
        charged: Number(res.headers['x-credits-charged'] ?? 1),
        checks: everyAnswer(res, 'balance read: '),
      };
    };
    if (ctx.ownKey) balance = (await read()).remaining;
    return {
      arbitrary: fc.record({
        base,
        bad: fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...fields).chain(malformedOf) }, { weight: 1, arbitrary: qualityWithPng }),
      }),
      async trial({ base: b, bad }) {
        const req = body(malformedBody(b, bad));
        const res = await send(ctx, req);
        const leaf = bad.names.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const j = await judge({ status: 400, error: 'bad_request', message: `\\b${leaf}\\b` }, res);
        const checks = [...j.checks.map((k) => ({ ...k, name: `${bad.path.join('.')} ${bad.what}: ${k.name}` })), ...everyAnswer(res)];
        if (balance !== undefined) {
          const after = await read();
          checks.push(...after.checks);
          if (after.remaining !== undefined) {
            const want = balance - after.charged;
            checks.push({
              name: 'costs nothing (balance before and after)',
              pass: after.remaining === want,
              detail: `x-credits-remaining ${balance} before, ${after.remaining} after it and one ${after.charged}-credit capture (expected ${want})`,
            });
            balance = after.remaining;
          }
        }
        return { requests: [req], checks, responses: [res] };
      },
    };
  },
};

/** Names no version of the schema knows, of several scripts and shapes (and the names of Object's own members). */
const unknownName = fc
  .oneof(
    fc.constantFrom(
      'futureOption',
      'x-vendor',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '',
      ' ',
      'viewportWidth',
      'format2',
      'ñame',
      '名前',
      '🙂',
    ),
    fc.string({ minLength: 1, maxLength: 10 }),
  )
  .filter((k) => !KNOWN_FIELDS.has(k) && k !== '__proto__');
const unknownValue = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom('', 'ünïcödé 名前 🙂', 0, -1, 1e300, true, [], {}, { width: 'x' }) },
);
const unknownFields = fc.dictionary(unknownName, unknownValue, { minKeys: 1, maxKeys: 4 });
const VIEWPORT_KNOWN = new Set(['width', 'height', 'deviceScaleFactor']);
const unknownInViewport = fc.dictionary(
  unknownName.filter((k) => !VIEWPORT_KNOWN.has(k)),
  unknownValue,
  { maxKeys: 2 },
);

/** The rows of the picture where the late element may or may not be (with a margin for lossy blocks). */
function lateMask(shot: ReturnType<typeof shotOf>, image: { width: number; height: number }): Region[] {
  const late = stripNamed('late');
  const frame = frameOf(shapeOf(shot.combo));
  const scale = shot.combo.scale ?? DEFAULT_SCALE;
  const margin = shot.combo.format === 'jpeg' || shot.combo.format === 'webp' ? 16 : 1;
  const top = Math.max(0, Math.round((late.y0 - frame.y) * scale) - margin);
  const bottom = Math.min(image.height, Math.round((late.y1 - frame.y) * scale) + margin);
  return bottom > top ? [{ x: 0, y: top, w: image.width, h: bottom - top }] : [];
}

const unknown: Property = {
  id: 'unknown-fields',
  must: 'The service MUST ignore unknown fields at any depth and with any value: the same picture as without them.',
  rules: ['2.1/rule-2', '9/unknown-fields'],
  share: 0.6,
  async start(ctx) {
    return {
      arbitrary: fc.record({
        // The late element is neither waited for nor shown by virtual time: its strip is left
        // out of the comparison (when its timer fires is the page's), as the oracle leaves it open.
        draft: validDraft({ url: false, declared: ctx.declared }).map(({ ext: { deterministic: _d, ...ext }, ...d }) => ({ ...d, ext, waitForSelector: null })),
        top: unknownFields,
        nested: unknownInViewport,
      }),
      async trial({ draft, top, nested }) {
        const shot = shotOf(draft);
        const plain = body(shot.body);
        const withUnknown: Record<string, unknown> = { ...top, ...shot.body };
        if (shot.body.viewport && Object.keys(nested).length) withUnknown.viewport = { ...nested, ...(shot.body.viewport as object) };
        const req = body(withUnknown);
        const a = await send(ctx, req);
        const b = await send(ctx, plain);
        const ja = await judgeShot(a, shot);
        const jb = await judgeShot(b, shot, 'without the unknown fields: ');
        const checks = [...ja.checks, ...jb.checks];
        if (ja.image && jb.image) {
          const cmp = compareImages(ja.image, jb.image, { threshold: 0.1, maxDiffPixels: Infinity, maxDiffPixelRatio: 1, mask: lateMask(shot, ja.image) });
          const ratio = Number.isNaN(cmp.diffPixels) ? 1 : cmp.diffPixels / cmp.total;
          checks.push({
            name: 'the same picture as without them',
            pass: ratio <= 0.001,
            detail: `${(ratio * 100).toFixed(2)}% of pixels differ (${cmp.detail})`,
          });
        }
        return { requests: [req, plain], checks, responses: [a, b] };
      },
    };
  },
};

/** Any JSON where a known spec field goes (waits, targets and the page left out: they only cost time). */
const ANY_FIELDS = ['fullPage', 'format', 'quality', 'viewport', 'selector', 'omitBackground', 'waitUntil', 'blockCookieBanners', 'hideSelectors', 'blockAds'];
const anyViewport = fc.oneof(
  fc.jsonValue({ maxDepth: 1 }),
  fc.record(
    {
      width: fc.oneof(fc.integer({ min: -5, max: 400 }), fc.jsonValue({ maxDepth: 0 })),
      height: fc.oneof(fc.integer({ min: -5, max: 400 }), fc.jsonValue({ maxDepth: 0 })),
    },
    { requiredKeys: [] },
  ),
);
const anyBody = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        fields: fc.subarray(ANY_FIELDS, { minLength: 1, maxLength: 3 }),
        values: fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 3, maxLength: 3 }),
        vp: anyViewport,
      })
      .map(({ fields, values, vp }) => {
        const b: Record<string, unknown> = { html: { $fixture: 'plain' }, viewport: { width: 32, height: 32 } };
        fields.forEach((f, i) => (b[f] = f === 'viewport' ? vp : values[i]));
        return body(b);
      }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v): HttpRequestSpec => ({ rawBody: JSON.stringify(v) })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', '{', '{"html": }', 'null', '[]', '"x"', '{"html":"<p>","html":1}').map((s): HttpRequestSpec => ({ rawBody: s })),
  },
);

const anyRequest: Property = {
  id: 'no-5xx',
  must: 'The service MUST answer any request body with no 5xx other than 504 render_timeout, and every failure as JSON {error, message}.',
  rules: ['2.4/failure-body', '7/failure-body', '7/row-6'],
  share: 4, // mostly 400s: cheap
  async start(ctx) {
    return {
      arbitrary: anyBody,
      async trial(req: HttpRequestSpec) {
        const res = await send(ctx, req);
        return { requests: [req], checks: everyAnswer(res), responses: [res] };
      },
    };
  },
};

const deterministic: Property = {
  id: 'deterministic',
  must: 'The service MUST answer a deterministic request twice with the same bytes.',
  rules: ['X/deterministic'],
  share: 0.4,
  skip: (ctx) => (ctx.declared?.has('deterministic') ? null : "the implementation's OpenAPI document does not declare deterministic (GET /openapi.json)"),
  async start(ctx) {
    return {
      arbitrary: validDraft({ url: false, declared: ctx.declared }).map((d) => ({ ...d, waitForSelector: null, ext: { ...d.ext, deterministic: true } })),
      async trial(d) {
        const shot = shotOf(d);
        const req = body({ ...shot.body, html: { $fixture: FIXTURE_NAME } });
        const a = await send(ctx, req);
        const b = await send(ctx, req);
        const checks = [...(await judgeShot(a, shot)).checks, ...everyAnswer(b, 'second: ')];
        checks.push({
          name: 'the same bytes twice',
          pass: a.status === 200 && b.status === 200 && a.body.equals(b.body),
          detail: `${a.body.length} and ${b.body.length} bytes`,
        });
        return { requests: [req], checks, responses: [a, b] };
      },
    };
  },
};

export const PROPERTIES: readonly Property[] = [valid, malformed, unknown, anyRequest, deterministic];
