// Deliberately broken implementations: each is a proxy in front of the reference server that breaks
// exactly ONE rule. The suite must reject every one (run-mutants.ts). `cases` is the subset of cases
// the mutant is run against (the cases relevant to the rule it breaks), to keep the run affordable:
// the cases tagged with its id (Case.tags, written on the case), or for a pair mutant the generated
// cases holding its pair; run-mutants.ts also checks that the same subset passes against the
// unbroken server, and self-test/mutants.test.ts that no mutant is left without a case.
import sharp from 'sharp';
import { request } from 'undici';
import { screenshotRequestSchema } from '../../server/request/schema.ts';
import { body, isShot, jsonOf, jsonResponse, withJson } from './proxy.ts';
import { PAIR_MUTANTS } from './pairs.ts';
import { PROPERTY_MUTANTS } from './properties.ts';
import type { ProxyHooks } from './proxy.ts';
import type { Case } from '../model/model.ts';

export interface Mutant {
  id: string;
  /** The rule it breaks (a rule id from rules.ts) and how. */
  breaks: string;
  description: string;
  cases: MutantCases;
  /** Properties (properties/list.ts ids) also run against it, with run-mutants.ts's fixed seed. */
  properties?: readonly string[];
  hooks: ProxyHooks;
}

/** The cases a mutant runs against: those carrying a tag, or a set computed from the generator (pairwise). */
export type MutantCases = { tag: string } | { ids: ReadonlySet<string> };

/** Whether the mutant runs against this case. */
export function selects(m: Pick<Mutant, 'cases'>, c: Pick<Case, 'id' | 'tags'>): boolean {
  return 'tag' in m.cases ? (c.tags ?? []).includes(m.cases.tag) : m.cases.ids.has(c.id);
}

/** The known request fields, from the one schema. */
const KNOWN = new Set(Object.keys(screenshotRequestSchema.properties));

export const MUTANTS: Mutant[] = [
  {
    id: 'content-type-mislabel',
    breaks: '2.3/content-type',
    description: 'labels PNG images as image/jpeg',
    cases: { tag: 'content-type-mislabel' },
    hooks: {
      onResponse: (res) => (res.headers['content-type']?.startsWith('image/png') ? { ...res, headers: { ...res.headers, 'content-type': 'image/jpeg' } } : res),
    },
  },
  {
    id: 'format-ignored',
    breaks: '2.1/format',
    description: 'renders webp requests as png but labels them image/webp',
    cases: { tag: 'format-ignored' },
    hooks: {
      onRequest(req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        if (!b || b.format !== 'webp') return req;
        return { ...withJson(req, { ...b, format: 'png', quality: undefined }), headers: { ...req.headers, 'x-mutant-was-webp': '1' } };
      },
      onResponse: (res, req) =>
        req.headers['x-mutant-was-webp'] && res.status === 200 ? { ...res, headers: { ...res.headers, 'content-type': 'image/webp' } } : res,
    },
  },
  {
    id: 'drops-selector',
    breaks: '4.1/rule-2',
    description: 'ignores `selector` and captures the viewport',
    cases: { tag: 'drops-selector' },
    hooks: body(({ selector: _s, ...b }) => b),
  },
  {
    id: 'ignores-scale',
    breaks: '2.2/scale',
    description: 'ignores viewport.deviceScaleFactor',
    cases: { tag: 'ignores-scale' },
    hooks: body((b) => (b.viewport && typeof b.viewport === 'object' ? { ...b, viewport: { width: b.viewport.width, height: b.viewport.height } } : b)),
  },
  {
    id: 'accepts-quality-with-png',
    breaks: '4.1/rule-7',
    description: 'accepts `quality` with png (drops it instead of answering 400)',
    cases: { tag: 'accepts-quality-with-png' },
    hooks: body((b) => (b.quality !== undefined && (b.format === undefined || b.format === 'png') ? { ...b, quality: undefined } : b)),
  },
  {
    id: 'timeout-as-500',
    breaks: '7/row-6',
    description: 'turns 504 render_timeout into 500',
    cases: { tag: 'timeout-as-500' },
    hooks: { onResponse: (res) => (res.status === 504 ? { ...res, status: 500 } : res) },
  },
  {
    id: 'renames-error-code',
    breaks: '7/row-5',
    description: 'sends `element_not_found` instead of `selector_not_found`',
    cases: { tag: 'renames-error-code' },
    hooks: {
      onResponse: (res) =>
        res.status === 400 ? { ...res, body: Buffer.from(res.body.toString('utf8').replace('"selector_not_found"', '"element_not_found"')) } : res,
    },
  },
  {
    id: 'wrong-size',
    breaks: '2.2/exact-frame',
    description: 'returns images one pixel narrower than asked',
    cases: { tag: 'wrong-size' },
    hooks: {
      async onResponse(res) {
        if (res.status !== 200 || !res.headers['content-type']?.startsWith('image/png')) return res;
        const img = sharp(res.body);
        const m = await img.metadata();
        if (!m.width || m.width < 2) return res;
        return {
          ...res,
          body: await img
            .extract({ left: 0, top: 0, width: m.width - 1, height: m.height! })
            .png()
            .toBuffer(),
        };
      },
    },
  },
  {
    id: 'truncates-tall-pages',
    breaks: '2.1/fullPage',
    description: 'cuts full-page captures at 10000 px (no stitching beyond one texture)',
    cases: { tag: 'truncates-tall-pages' },
    hooks: {
      async onResponse(res) {
        if (res.status !== 200 || !res.headers['content-type']?.startsWith('image/png')) return res;
        const img = sharp(res.body, { limitInputPixels: false });
        const m = await img.metadata();
        if (!m.height || m.height <= 10000) return res;
        return { ...res, body: await img.extract({ left: 0, top: 0, width: m.width!, height: 10000 }).png().toBuffer() };
      },
    },
  },
  {
    id: 'charges-cache-hits',
    breaks: '1/billing-cached',
    description: 'reports a credit charged for a cache hit',
    cases: { tag: 'charges-cache-hits' },
    hooks: { onResponse: (res) => (res.headers['x-cache'] === 'hit' ? { ...res, headers: { ...res.headers, 'x-credits-charged': '1' } } : res) },
  },
  {
    id: 'drops-content-disposition',
    breaks: '2.3/content-disposition',
    description: 'sends no content-disposition',
    cases: { tag: 'drops-content-disposition' },
    hooks: { onResponse: ({ headers: { 'content-disposition': _cd, ...headers }, ...res }) => ({ ...res, headers }) },
  },
  {
    id: 'ignores-fullPage',
    breaks: '4.1/rule-1',
    description: 'ignores fullPage',
    cases: { tag: 'ignores-fullPage' },
    hooks: body(({ fullPage: _f, ...b }) => b),
  },
  {
    id: 'ignores-omitBackground',
    breaks: '2.1/omitBackground',
    description: 'ignores omitBackground',
    cases: { tag: 'ignores-omitBackground' },
    hooks: body(({ omitBackground: _o, ...b }) => b),
  },
  {
    id: 'always-removes-banners',
    breaks: '4.1/rule-4-keep',
    description: 'removes banners even with blockCookieBanners: false',
    cases: { tag: 'always-removes-banners' },
    hooks: body((b) => ({ ...b, blockCookieBanners: true })),
  },
  {
    id: 'never-removes-banners',
    breaks: '1/banners-default',
    description: 'keeps banners by default (blockCookieBanners defaults to false)',
    cases: { tag: 'never-removes-banners' },
    hooks: body((b) => (b.blockCookieBanners === undefined ? { ...b, blockCookieBanners: false } : b)),
  },
  {
    id: 'drops-hideSelectors',
    breaks: '4.1/rule-4-hideSelectors',
    description: 'ignores hideSelectors',
    cases: { tag: 'drops-hideSelectors' },
    hooks: body(({ hideSelectors: _h, ...b }) => b),
  },
  {
    id: 'ignores-blockAds',
    breaks: '4.1/rule-4-blockAds',
    description: 'ignores blockAds',
    cases: { tag: 'ignores-blockAds' },
    hooks: body(({ blockAds: _a, ...b }) => b),
  },
  {
    id: 'rejects-unknown-fields',
    breaks: '2.1/rule-2',
    description: 'answers 400 to a body with unknown fields',
    cases: { tag: 'rejects-unknown-fields' },
    hooks: body((b) => (Object.keys(b).some((k) => !KNOWN.has(k)) ? { respond: jsonResponse(400, { error: 'bad_request', message: 'unknown field' }) } : b)),
  },
  {
    id: 'viewport-bound-off-by-one',
    breaks: '8/viewport-size',
    description: 'accepts width and height 10001 (clamps to 10000)',
    cases: { tag: 'limits:viewport' },
    hooks: body((b) =>
      b.viewport && typeof b.viewport === 'object'
        ? {
            ...b,
            viewport: {
              ...b.viewport,
              ...(b.viewport.width === 10001 ? { width: 10000, height: 1 } : {}),
              ...(b.viewport.height === 10001 ? { height: 10000, width: 1 } : {}),
            },
          }
        : b,
    ),
  },
  {
    id: 'hideSelectors-limit-off-by-one',
    breaks: '8/hideSelectors',
    description: 'accepts 51 hideSelectors (keeps the first 50)',
    cases: { tag: 'limits:hideSelectors' },
    hooks: body((b) => (Array.isArray(b.hideSelectors) && b.hideSelectors.length === 51 ? { ...b, hideSelectors: b.hideSelectors.slice(0, 50) } : b)),
  },
  {
    id: 'html-limit-in-characters',
    breaks: '8/html-size',
    description: 'counts the html limit in characters instead of bytes',
    cases: { tag: 'limits:html' },
    hooks: {
      onRequest(req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        if (!b || typeof b.html !== 'string') return req;
        if (b.html.length > 2_000_000) return jsonResponse(413, { error: 'payload_too_large', message: 'html too long' });
        if (Buffer.byteLength(b.html) > 2_000_000) return withJson(req, { ...b, html: '<body style="background:#fff"></body>' });
        return req;
      },
    },
  },
  {
    id: 'ignores-waitForSelector',
    breaks: '4.1/rule-6-wait',
    description: 'ignores waitForSelector',
    cases: { tag: 'ignores-waitForSelector' },
    hooks: body(({ waitForSelector: _w, ...b }) => b),
  },
  {
    id: 'waitUntil-always-load',
    breaks: '4.1/rule-5-networkidle2',
    description: 'treats every waitUntil as load',
    cases: { tag: 'waitUntil-always-load' },
    hooks: body((b) => ({ ...b, waitUntil: 'load' })),
  },
  {
    id: 'connects-before-rejecting',
    breaks: '4.1/rule-8',
    description: 'opens a connection to a loopback target before answering 400',
    cases: { tag: 'connects-before-rejecting' },
    hooks: {
      async onRequest(req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        if (b && typeof b.url === 'string' && /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//i.test(b.url)) {
          await request(b.url, { headersTimeout: 1000, bodyTimeout: 1000 }).then(
            (r) => r.body.dump(),
            () => {},
          );
        }
        return req;
      },
    },
  },
  {
    id: 'message-without-field',
    breaks: '2.1/rule-3',
    description: 'answers malformed fields with a message that names no field',
    cases: { tag: 'message-without-field' },
    hooks: { onResponse: (res) => (res.status === 400 ? jsonResponse(400, { error: 'bad_request', message: 'invalid request' }) : res) },
  },
  {
    id: 'error-body-not-json',
    breaks: '7/failure-body',
    description: 'sends failures as text/plain',
    cases: { tag: 'error-body-not-json' },
    hooks: {
      onResponse: (res) => (res.status >= 400 ? { status: res.status, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Bad Request') } : res),
    },
  },
  {
    id: 'ignores-quality',
    breaks: '2.1/quality',
    description: 'ignores quality (always the encoder default)',
    cases: { tag: 'ignores-quality' },
    hooks: body(({ quality: _q, ...b }) => b),
  },
  {
    id: 'accepts-url-and-html',
    breaks: '2.1/rule-1',
    description: 'accepts both url and html (drops html)',
    cases: { tag: 'accepts-url-and-html' },
    hooks: body((b) => (b.url !== undefined && b.html !== undefined ? { ...b, html: undefined } : b)),
  },
  {
    id: 'no-auth-required',
    breaks: '5/bearer',
    description: 'renders requests that carry no key',
    cases: { tag: 'no-auth-required' },
    hooks: {
      onRequest(req) {
        return req.headers.authorization ? req : { ...req, headers: { ...req.headers, authorization: `Bearer ${process.env.MUTANT_FALLBACK_KEY ?? ''}` } };
      },
    },
  },
  // Extensions: each drops one field beyond the spec, as an implementation that declares the
  // field but ignores it would.
  {
    id: 'ignores-color-scheme',
    breaks: 'X/colorScheme',
    description: 'declares colorScheme but renders every page in the light scheme',
    cases: { tag: 'ignores-color-scheme' },
    hooks: body(({ colorScheme: _c, ...b }) => b),
  },
  {
    id: 'ignores-user-agent',
    breaks: 'X/userAgent',
    description: "declares userAgent but keeps the browser's own",
    cases: { tag: 'ignores-user-agent' },
    hooks: body(({ userAgent: _u, ...b }) => b),
  },
  {
    id: 'ignores-headers-and-cookies',
    breaks: 'X/headers',
    description: 'declares headers and cookies but sends neither',
    cases: { tag: 'ignores-headers-and-cookies' },
    hooks: body(({ headers: _h, cookies: _c, ...b }) => b),
  },
  {
    id: 'ignores-deterministic',
    breaks: 'X/deterministic',
    description: 'declares deterministic but lets the page move',
    cases: { tag: 'ignores-deterministic' },
    hooks: body(({ deterministic: _d, ...b }) => b),
  },
  {
    id: 'ignores-device',
    breaks: 'X/device',
    description: 'declares device but renders at the viewport it is given, as a desktop',
    cases: { tag: 'ignores-device' },
    hooks: body(({ device: _d, ...b }) => b),
  },
  {
    id: 'ignores-timezone',
    breaks: 'X/timezone',
    description: "declares timezone but keeps the server's",
    cases: { tag: 'ignores-timezone' },
    hooks: body(({ timezone: _t, ...b }) => b),
  },
  {
    id: 'ignores-locale',
    breaks: 'X/locale',
    description: "declares locale but keeps the browser's",
    cases: { tag: 'ignores-locale' },
    hooks: body(({ locale: _l, ...b }) => b),
  },
  {
    id: 'ignores-geolocation',
    breaks: 'X/geolocation',
    description: 'declares geolocation but never gives the page a position',
    cases: { tag: 'ignores-geolocation' },
    hooks: body(({ geolocation: _g, ...b }) => b),
  },
  {
    id: 'ignores-media-type',
    breaks: 'X/mediaType',
    description: 'declares mediaType but always lays pages out for the screen',
    cases: { tag: 'ignores-media-type' },
    hooks: body(({ mediaType: _m, ...b }) => b),
  },
  {
    id: 'ignores-reduced-motion',
    breaks: 'X/reducedMotion',
    description: "declares reducedMotion but leaves the browser's preference (or deterministic's)",
    cases: { tag: 'ignores-reduced-motion' },
    hooks: body(({ reducedMotion: _r, ...b }) => b),
  },
  {
    id: 'ignores-javascript-enabled',
    breaks: 'X/javaScriptEnabled',
    description: "declares javaScriptEnabled but always runs the page's scripts",
    cases: { tag: 'ignores-javascript-enabled' },
    hooks: body(({ javaScriptEnabled: _j, ...b }) => b),
  },
  {
    id: 'ignores-capture-on-timeout',
    breaks: 'X/captureOnTimeout',
    description: 'declares captureOnTimeout but answers 504 as without it',
    cases: { tag: 'ignores-capture-on-timeout' },
    hooks: body(({ captureOnTimeout: _c, ...b }) => b),
  },
  {
    id: 'ignores-css',
    breaks: 'X/css',
    description: 'declares css but never applies it',
    cases: { tag: 'ignores-css' },
    hooks: body(({ css: _c, ...b }) => b),
  },
  {
    id: 'ignores-js',
    breaks: 'X/js',
    description: 'declares js but never runs it',
    cases: { tag: 'ignores-js' },
    hooks: body(({ js: _j, ...b }) => b),
  },
  {
    id: 'ignores-actions',
    breaks: 'X/actions',
    description: 'declares actions but never runs them',
    cases: { tag: 'ignores-actions' },
    hooks: body(({ actions: _a, ...b }) => b),
  },
  {
    id: 'ignores-block-resource-types',
    breaks: 'X/blockResourceTypes',
    description: 'declares blockResourceTypes but lets every request through',
    cases: { tag: 'ignores-block-resource-types' },
    hooks: body(({ blockResourceTypes: _t, ...b }) => b),
  },
  {
    id: 'ignores-block-urls',
    breaks: 'X/blockUrls',
    description: 'declares blockUrls but lets every request through',
    cases: { tag: 'ignores-block-urls' },
    hooks: body(({ blockUrls: _u, ...b }) => b),
  },
  {
    id: 'ignores-clip',
    breaks: 'X/clip',
    description: 'declares clip but captures the window',
    cases: { tag: 'ignores-clip' },
    hooks: body(({ clip: _c, ...b }) => b),
  },
  {
    id: 'ignores-delay',
    breaks: 'X/delay',
    description: 'declares delay but captures at once',
    cases: { tag: 'ignores-delay' },
    hooks: body(({ delay: _d, ...b }) => b),
  },
  {
    id: 'ignores-fail-on-target-error',
    breaks: 'X/failOnTargetError',
    description: 'declares failOnTargetError but captures the error page',
    cases: { tag: 'ignores-fail-on-target-error' },
    hooks: body(({ failOnTargetError: _f, ...b }) => b),
  },
  {
    id: 'ignores-cache-ttl',
    breaks: 'X/cacheTtl',
    description: 'declares cacheTtl but reuses a cached capture when it is 0',
    cases: { tag: 'ignores-cache-ttl' },
    hooks: body(({ cacheTtl: _c, ...b }) => b),
  },
  {
    id: 'ignores-full-page-max-height',
    breaks: 'X/fullPageMaxHeight',
    description: 'declares fullPageMaxHeight but captures the whole page',
    cases: { tag: 'ignores-full-page-max-height' },
    hooks: body(({ fullPageMaxHeight: _m, ...b }) => b),
  },
  // Pairs: each option right alone, one pair broken (pairs.ts; the pairwise cases holding it).
  ...PAIR_MUTANTS,
  // Exact limits, odd valid values, nested unknown fields: only the properties find them.
  ...PROPERTY_MUTANTS,
  {
    id: 'compare-ignores-masks',
    breaks: 'X/compare',
    description: 'compares without the masks (drops ignoreRegions and ignoreSelectors from POST /v1/compare)',
    cases: { tag: 'compare-ignores-masks' },
    hooks: {
      onRequest(req) {
        const b = req.method === 'POST' && req.path.split('?')[0] === '/v1/compare' ? jsonOf(req) : null;
        if (!b) return req;
        const { ignoreRegions: _r, ignoreSelectors: _s, ...rest } = b;
        return withJson(req, rest);
      },
    },
  },
];
