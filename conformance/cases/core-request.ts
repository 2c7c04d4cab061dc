// Core profile: the request body (spec §2.1, §2.2), the error table (§7) and both sides of every
// bound (§8). Mostly html-mode with tiny viewports, so these run anywhere and quickly.
import type { CaseSpec } from '../model/model.ts';
import { badRequest, color, around, GREEN, html, png, SMALL, tagged } from './helpers.ts';

const FAIL_RULES = ['7/failure-body', '2.4/failure-body'];
const plain = (extra: Record<string, unknown> = {}) => html('plain', { viewport: SMALL, ...extra });
/** The plain page's green at the centre; lossy encoders at quality 1 shift colours, hence the wider tolerance. */
const green = (w: number, h: number, lossy = false) => [
  color(around(w / 2, h / 2, Math.max(1, Math.min(20, w, h))), GREEN, 'page green', lossy ? 64 : undefined),
];

/** One malformed known field: 400 bad_request naming it (spec §2.1 rule 3). */
function malformed(field: string, value: unknown, names: string, body: Record<string, unknown> = plain()): CaseSpec {
  return {
    id: `fields.malformed.${field}`,
    must: `The service MUST reject a malformed \`${field}\` with 400 bad_request and a message naming the field.`,
    rules: ['2.1/rule-3', '7/row-4', ...FAIL_RULES],
    request: { body: { ...body, [field]: value } },
    expect: badRequest(names),
  };
}

/** A boundary value of one bound: accepted (an image of the given size) or rejected naming the field. */
function bound(
  id: string,
  rules: string[],
  body: Record<string, unknown>,
  outcome: { w: number; h: number; type?: 'png' | 'jpeg' | 'webp' } | { field: string },
): CaseSpec {
  if ('field' in outcome) {
    return {
      id,
      must: `The service MUST reject ${id.split('.').slice(-1)[0]} with 400 bad_request naming ${outcome.field.replace(/\\/g, '')}.`,
      rules: [...rules, '2.1/rule-3', '7/row-4', ...FAIL_RULES],
      request: { body },
      expect: badRequest(outcome.field),
    };
  }
  return {
    id,
    must: `The service MUST accept ${id.split('.').slice(-1)[0]} and return a ${outcome.w}x${outcome.h} image.`,
    rules,
    request: { body },
    expect: {
      status: 200,
      image: { type: outcome.type ?? 'png', width: outcome.w, height: outcome.h },
      probes: green(outcome.w, outcome.h, (outcome.type ?? 'png') !== 'png'),
    },
  };
}

const VP = ['8/viewport-size', '2.2/bounds'];
const SCALE = ['8/scale', '2.2/bounds', '2.2/scale'];
const WIDTH = 'viewport.*width|width.*viewport';

export const coreRequestCases: CaseSpec[] = [
  // §2.1 rule 1, §7 row 1: exactly one of url and html
  {
    id: 'one-of.neither',
    tags: ['error-body-not-json'],
    must: 'The service MUST reject a body with neither url nor html with 400 bad_request.',
    rules: ['2.1/rule-1', '7/row-1', ...FAIL_RULES],
    request: { body: { viewport: SMALL } },
    expect: badRequest(),
  },
  {
    id: 'one-of.both',
    tags: ['accepts-url-and-html'],
    must: 'The service MUST reject a body with both url and html with 400 bad_request.',
    rules: ['2.1/rule-1', '7/row-1', ...FAIL_RULES],
    needs: ['fixtures'],
    request: { body: { ...plain(), url: { $fixtureUrl: '/pages/plain.html' } } },
    expect: badRequest(),
  },
  {
    id: 'one-of.both-offline',
    tags: ['accepts-url-and-html'],
    must: 'The service MUST reject both url and html with 400 bad_request even when the url is unreachable.',
    rules: ['2.1/rule-1', '7/row-1'],
    request: { body: { ...plain(), url: 'http://127.0.0.1:1/' } },
    expect: badRequest(),
  },
  {
    id: 'one-of.html-only',
    must: 'The service MUST render an html-only request and return the image.',
    rules: ['2.1/rule-1', '2.1/html', '1/raster-image', '2.3/success', '4.1/endpoint', '5/bearer', '9/path-version'],
    request: { body: plain() },
    expect: png(320, 240, green(320, 240)),
  },
  {
    id: 'one-of.url-only',
    must: 'The service MUST render a url-only request of a public page and return the image.',
    rules: ['2.1/rule-1', '2.1/url', '1/raster-image', '2.3/success'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/pages/plain.html' }, viewport: SMALL } },
    expect: png(320, 240, green(320, 240)),
  },

  // §7 row 2: url must be an absolute http(s) URL
  {
    id: 'url.relative',
    tags: ['error-body-not-json'],
    must: 'The service MUST reject a relative url with 400 bad_request naming url.',
    rules: ['2.1/url', '7/row-2', ...FAIL_RULES],
    request: { body: { url: '/pages/plain.html', viewport: SMALL } },
    expect: badRequest('url'),
  },
  {
    id: 'url.not-a-url',
    must: 'The service MUST reject a url that is not a URL with 400 bad_request naming url.',
    rules: ['2.1/url', '7/row-2'],
    request: { body: { url: 'not a url at all', viewport: SMALL } },
    expect: badRequest('url'),
  },
  ...(
    [
      ['file', 'file:///etc/passwd'],
      ['data', 'data:text/html,<h1>hi</h1>'],
      ['javascript', 'javascript:alert(1)'],
    ] as const
  ).map(([scheme, url]): CaseSpec => ({
    id: `url.${scheme}-scheme`,
    must: `The service MUST reject a ${scheme}: url with 400 bad_request.`,
    rules: ['2.1/url', '7/row-2'],
    request: { body: { url, viewport: SMALL } },
    expect: badRequest(),
  })),

  // §4.1 rule 7, §7 row 3: quality only with lossy formats
  {
    id: 'quality.with-png',
    tags: ['accepts-quality-with-png'],
    must: 'The service MUST reject quality with format png with 400 bad_request.',
    rules: ['4.1/rule-7', '7/row-3', '2.1/quality', ...FAIL_RULES],
    request: { body: plain({ format: 'png', quality: 80 }) },
    expect: badRequest(),
  },
  {
    id: 'quality.without-format',
    tags: ['accepts-quality-with-png'],
    must: 'The service MUST reject quality without format with 400 bad_request.',
    rules: ['4.1/rule-7', '7/row-3', '2.1/quality'],
    request: { body: plain({ quality: 80 }) },
    expect: badRequest(),
  },
  {
    id: 'quality.with-jpeg',
    must: 'The service MUST accept quality with format jpeg.',
    rules: ['2.1/quality', '8/quality'],
    request: { body: plain({ format: 'jpeg', quality: 80 }) },
    expect: { status: 200, image: { type: 'jpeg', width: 320, height: 240 }, probes: green(320, 240, true) },
  },
  {
    id: 'quality.with-webp',
    must: 'The service MUST accept quality with format webp.',
    rules: ['2.1/quality', '8/quality'],
    request: { body: plain({ format: 'webp', quality: 80 }) },
    expect: { status: 200, image: { type: 'webp', width: 320, height: 240 }, probes: green(320, 240, true) },
  },
  // §8: both sides of every bound are generated from the schema (limits/cases.ts); these are far past them
  bound('bounds.width.negative', VP, html('plain', { viewport: { width: -5, height: 100 } }), { field: WIDTH }),
  bound('bounds.scale.0', SCALE, html('plain', { viewport: { width: 100, height: 100, deviceScaleFactor: 0 } }), { field: 'deviceScaleFactor' }),

  // §2.2: width and height are required when viewport is given
  {
    id: 'viewport.missing-height',
    must: 'The service MUST reject a viewport without height with 400 bad_request naming height.',
    rules: ['2.2/required', '2.1/rule-3', '7/row-4'],
    request: { body: html('plain', { viewport: { width: 320 } }) },
    expect: badRequest('height'),
  },
  {
    id: 'viewport.missing-width',
    must: 'The service MUST reject a viewport without width with 400 bad_request naming width.',
    rules: ['2.2/required', '2.1/rule-3', '7/row-4'],
    request: { body: html('plain', { viewport: { height: 240 } }) },
    expect: badRequest('width'),
  },

  // §2.1 rule 3: every known field, malformed, is named
  malformed('url', 42, 'url', { viewport: SMALL }),
  malformed('html', 42, 'html', { viewport: SMALL }),
  malformed('fullPage', 'yes', 'fullPage'),
  tagged(malformed('format', 'gif', 'format'), 'message-without-field'),
  malformed('quality', 'high', 'quality', plain({ format: 'jpeg' })),
  malformed('viewport', 'big', 'viewport', html('plain')),
  {
    ...malformed('viewport.width', 'wide', WIDTH),
    id: 'fields.malformed.viewport.width',
    tags: ['message-without-field'],
    request: { body: html('plain', { viewport: { width: 'wide', height: 240 } }) },
  },
  {
    ...malformed('viewport.deviceScaleFactor', 'retina', 'deviceScaleFactor'),
    id: 'fields.malformed.viewport.deviceScaleFactor',
    request: { body: html('plain', { viewport: { width: 320, height: 240, deviceScaleFactor: 'retina' } }) },
  },
  malformed('selector', 42, 'selector'),
  malformed('omitBackground', 'no', 'omitBackground'),
  tagged(malformed('waitUntil', 'domcontentloaded', 'waitUntil'), 'message-without-field'),
  malformed('waitForSelector', 42, 'waitForSelector'),
  malformed('blockCookieBanners', 1, 'blockCookieBanners'),
  tagged(malformed('hideSelectors', '#ad', 'hideSelectors'), 'message-without-field'),
  { ...malformed('hideSelectors.item', 7, 'hideSelectors'), request: { body: plain({ hideSelectors: ['#ok', 7] }) } },
  malformed('blockAds', 'true', 'blockAds'),

  // §2.1 rule 2, §9: unknown fields are ignored (and change nothing)
  {
    id: 'fields.unknown-ignored',
    tags: ['rejects-unknown-fields'],
    must: 'The service MUST ignore unknown fields and render exactly as without them.',
    rules: ['2.1/rule-2', '9/unknown-fields'],
    request: { body: plain({ futureOption: true, 'x-vendor': { nested: [1, 2, 3] }, viewportWidth: 99, format2: 'gif' }) },
    expect: png(320, 240, green(320, 240), {
      relation: {
        request: { body: plain() },
        relation: 'pixels-similar',
        maxDiffRatio: 0.001,
        expect: { status: 200, image: { type: 'png', width: 320, height: 240 } },
      },
    }),
  },
];
