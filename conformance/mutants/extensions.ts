// Mutants of the extensions: each drops one field beyond the spec, as an implementation that
// declares the field but ignores it would (and compare without its masks).
import type { Mutant } from './mutant.ts';
import { body, jsonOf, withJson } from './proxy.ts';

export const EXTENSION_MUTANTS: Mutant[] = [
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
