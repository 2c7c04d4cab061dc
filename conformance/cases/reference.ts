// Reference profile: the reference server's decisions for what the spec leaves open (DESIGN §3):
// error statuses and codes, response headers, billing and caching as seen through those headers.
// An alternative implementation may choose otherwise; run it with --profile core.
import type { CaseSpec, Expectation, Step } from '../model/model.ts';
import { around, BLUE, box, color, GREEN, html, png, RED, YELLOW } from './helpers.ts';

export const VP = { width: 320, height: 240 };
export const plain = (extra: Record<string, unknown> = {}) => html('plain', { viewport: VP, ...extra });
const greenProbe = [color(around(160, 120), GREEN)];
const SUCCESS_HEADERS: Expectation['headers'] = {
  'x-request-id': { present: true },
  'x-credits-charged': '1',
  'x-credits-remaining': { integer: true, min: 0 },
  'x-cache': 'miss',
  'x-banner-action': { present: true },
};
const err = (status: number, error: string, extra: Partial<Expectation> = {}): Expectation => ({
  status,
  error,
  headers: { 'x-request-id': { present: true } },
  ...extra,
});

/** One url capture of the billing case's page on the fresh key: a miss costs the credit it reports, a hit nothing. */
export const ledgerUrlStep = (cache: 'miss' | 'hit', fromStep: number, plus: number): Step => ({
  request: {
    auth: 'fresh',
    body: { url: { $template: '{{fixtures:/pages/blocks.html?case=billing-ledger&n=}}{{nonce}}' }, viewport: { width: 400, height: 300 } },
  },
  expect: {
    status: 200,
    image: { type: 'png', width: 400, height: 300 },
    headers: { 'x-cache': cache, 'x-credits-charged': cache === 'miss' ? '1' : '0' },
    compare: [{ read: { header: 'x-credits-remaining' }, fromStep, plus }],
  },
});

export const referenceCases: CaseSpec[] = [
  // authentication
  {
    id: 'ref.auth.missing-key',
    must: 'The reference server MUST answer 401 unauthorized with WWW-Authenticate: Bearer when no key is sent.',
    rules: ['D3/unauthorized', '5/bearer'],
    request: { auth: 'none', body: plain() },
    expect: err(401, 'unauthorized', { headers: { 'www-authenticate': { matches: '^Bearer' }, 'x-request-id': { present: true } } }),
  },
  {
    id: 'ref.auth.unknown-key',
    must: 'The reference server MUST answer 401 unauthorized for an unknown key.',
    rules: ['D3/unauthorized'],
    request: { auth: 'invalid', body: plain() },
    expect: err(401, 'unauthorized', { headers: { 'www-authenticate': { matches: '^Bearer' } } }),
  },
  {
    id: 'ref.auth.malformed-header',
    must: 'The reference server MUST answer 401 unauthorized for a non-Bearer Authorization header.',
    rules: ['D3/unauthorized'],
    request: { auth: 'malformed', body: plain() },
    expect: err(401, 'unauthorized'),
  },

  // request shape
  {
    id: 'ref.html.2000001-bytes-413',
    must: 'The reference server MUST answer 413 payload_too_large for html of 2,000,001 bytes.',
    rules: ['D3/payload-too-large', '8/html-size'],
    request: { body: { html: { $html: { bytes: 2_000_001 } }, viewport: VP } },
    expect: err(413, 'payload_too_large', { message: 'html' }),
  },
  {
    id: 'ref.html.multibyte-413',
    must: 'The reference server MUST count UTF-8 bytes: 2,000,002 bytes of two-byte characters give 413.',
    rules: ['D3/payload-too-large', '8/html-size'],
    request: { body: { html: { $html: { bytes: 2_000_002, fill: 'é' } }, viewport: VP } },
    expect: err(413, 'payload_too_large'),
  },
  {
    id: 'ref.content-type.text-plain',
    must: 'The reference server MUST answer 415 unsupported_media_type for a text/plain body.',
    rules: ['D3/unsupported-media-type'],
    request: { body: plain(), headers: { 'content-type': 'text/plain' } },
    expect: err(415, 'unsupported_media_type'),
  },
  {
    id: 'ref.content-type.missing',
    must: 'The reference server MUST answer 415 unsupported_media_type when Content-Type is absent.',
    rules: ['D3/unsupported-media-type'],
    request: { rawBody: '{"html":"<p>x</p>"}', headers: { 'content-type': '' } },
    expect: err(415, 'unsupported_media_type'),
  },
  {
    id: 'ref.json.invalid',
    must: 'The reference server MUST answer 400 bad_request for a body that is not JSON, without echoing it.',
    rules: ['D3/invalid-json'],
    request: { rawBody: '{"html": "<p>conformance-secret-7f3a</p>", oops' },
    expect: err(400, 'bad_request', { messageExcludes: 'conformance-secret-7f3a' }),
  },
  {
    id: 'ref.json.not-an-object',
    must: 'The reference server MUST answer 400 bad_request for a JSON body that is not an object.',
    rules: ['D3/invalid-json', '2.1/rule-3'],
    request: { rawBody: '["html"]' },
    expect: err(400, 'bad_request'),
  },
  {
    id: 'ref.message.field-path',
    must: 'The reference server MUST name the field by its path: "viewport.width must be ...".',
    rules: ['2.1/rule-3'],
    request: { body: html('plain', { viewport: { width: 10001, height: 100 } }) },
    expect: err(400, 'bad_request', { message: 'viewport\\.width must be' }),
  },
  {
    id: 'ref.message.all-fields',
    must: 'The reference server MUST collect every field error of a request into one 400 naming each field.',
    rules: ['2.1/rule-3'],
    request: { body: plain({ format: 'gif', fullPage: 'yes', blockAds: 3 }) },
    expect: err(400, 'bad_request', { message: '(?=.*format)(?=.*fullPage)(?=.*blockAds)' }),
  },

  // routes
  {
    id: 'ref.route.not-found',
    must: 'The reference server MUST answer 404 not_found for an unknown route.',
    rules: ['D3/not-found'],
    request: { method: 'GET', path: '/v1/no-such-route' },
    expect: err(404, 'not_found'),
  },
  {
    id: 'ref.route.v2-not-found',
    must: 'The reference server MUST answer 404 not_found for another version of the path.',
    rules: ['D3/not-found', '9/path-version'],
    request: { path: '/v2/screenshot', body: plain() },
    expect: err(404, 'not_found'),
  },
  {
    id: 'ref.route.method-not-allowed',
    must: 'The reference server MUST answer 405 method_not_allowed with Allow: POST for GET /v1/screenshot.',
    rules: ['D3/method-not-allowed'],
    request: { method: 'GET', path: '/v1/screenshot' },
    expect: err(405, 'method_not_allowed', { headers: { allow: { matches: 'POST' } } }),
  },

  // target failures
  {
    id: 'ref.navigation.connection-dropped',
    must: 'The reference server MUST answer 502 navigation_failed when the target drops the connection.',
    rules: ['D3/navigation-failed'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/hangup' }, viewport: VP } },
    expect: err(502, 'navigation_failed'),
  },
  {
    id: 'ref.navigation.redirect-to-loopback',
    must: 'The reference server MUST answer 400 bad_request naming the blocked hop when a redirect leads to loopback, and never connect to it.',
    rules: ['D3/redirect-blocked', '1/private-targets'],
    needs: ['fixtures', 'canary'],
    request: { body: { url: { $template: '{{fixtures:/redirect?status=302&to=}}{{canary:/redirected}}' }, viewport: VP } },
    expect: err(400, 'bad_request', { message: 'redirect|127\\.0\\.0\\.1|blocked', canaryConnections: 0 }),
  },

  // headers on success
  {
    id: 'ref.headers.success-html',
    must: 'The reference server MUST send x-request-id, x-credits-charged 1, x-credits-remaining, x-cache miss and x-banner-action on an html success.',
    rules: ['D3/request-id', 'D3/credits-headers', 'D3/banner-action', 'D3/cache-header', '1/billing-success'],
    request: { body: plain() },
    expect: png(320, 240, greenProbe, { headers: { ...SUCCESS_HEADERS, 'x-banner-action': 'none', 'x-target-status': { present: false } } }),
  },
  {
    id: 'ref.headers.target-status',
    must: "The reference server MUST report the target's HTTP status in x-target-status (url mode), here 404, and still capture.",
    rules: ['D3/target-status'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/status?code=404&case=target-status' }, viewport: VP } },
    expect: png(320, 240, [], { headers: { 'x-target-status': '404' } }),
  },
  {
    id: 'ref.headers.target-status-200',
    must: 'The reference server MUST send x-target-status 200 for a normal url capture.',
    rules: ['D3/target-status'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/pages/plain.html?case=target-status-200' }, viewport: VP } },
    expect: png(320, 240, greenProbe, { headers: { 'x-target-status': '200' } }),
  },
  ...(['png', 'jpeg', 'webp'] as const).map((f): CaseSpec => ({
    id: `ref.headers.content-disposition-${f}`,
    must: `The reference server MUST send content-disposition: inline; filename="screenshot.${f === 'jpeg' ? 'jpg' : f}" for ${f}.`,
    rules: ['D3/content-disposition', '2.3/content-disposition'],
    request: { body: plain({ format: f }) },
    expect: {
      status: 200,
      image: { type: f, width: 320, height: 240 },
      probes: [color(around(160, 120), GREEN, undefined, 32)],
      headers: { 'content-disposition': `inline; filename="screenshot.${f === 'jpeg' ? 'jpg' : f}"` },
    },
  })),
  {
    id: 'ref.headers.banner-action-hidden',
    must: 'The reference server MUST report what the clean-up did in x-banner-action (a banner was removed).',
    rules: ['D3/banner-action'],
    request: { body: html('banner-basic', { viewport: { width: 800, height: 600 } }) },
    expect: png(800, 600, [], { headers: { 'x-banner-action': { matches: '^(hidden|rejected)' } } }),
  },
  {
    id: 'ref.headers.banner-action-reverted',
    must: 'The reference server MUST report x-banner-action: reverted for the near-empty page.',
    rules: ['D3/banner-action', '4.1/rule-3-revert'],
    request: { body: html('near-empty', { viewport: VP }) },
    expect: png(320, 240, [], { headers: { 'x-banner-action': { matches: '^reverted' } } }),
  },
  {
    id: 'ref.headers.banner-action-none-when-disabled',
    must: 'The reference server MUST report x-banner-action: none with blockCookieBanners: false.',
    rules: ['D3/banner-action', '4.1/rule-4-keep'],
    request: { body: html('banner-basic', { viewport: { width: 800, height: 600 }, blockCookieBanners: false }) },
    expect: png(800, 600, [color(box(520, 450, 270, 140), RED, 'banner kept')], { headers: { 'x-banner-action': 'none' } }),
  },
  // capture details the spec leaves open
  {
    id: 'ref.selector.scaled',
    must: "The reference server MUST capture a selector's box at the device scale factor (320x180 at 2 is 640x360).",
    rules: ['2.2/scale', '4.1/rule-2'],
    request: { body: html('element', { viewport: { width: 800, height: 600, deviceScaleFactor: 2 }, selector: '#target' }) },
    expect: png(640, 360, [color(box(8, 8, 300, 160), YELLOW), color(box(340, 190, 290, 160), BLUE)]),
  },
  {
    id: 'ref.omitBackground.webp-alpha',
    must: 'The reference server MUST keep transparency in WebP with omitBackground: true.',
    rules: ['2.1/omitBackground'],
    request: { body: html('transparent', { viewport: { width: 400, height: 300 }, omitBackground: true, format: 'webp' }) },
    expect: {
      status: 200,
      image: { type: 'webp', width: 400, height: 300, hasAlpha: true },
      probes: [{ kind: 'alpha', region: box(0, 0, 40, 40), min: 0, max: 0 }],
    },
  },
  {
    id: 'ref.omitBackground.jpeg-white',
    must: 'The reference server MUST flatten JPEG (no alpha) onto white with omitBackground: true.',
    rules: ['2.1/omitBackground'],
    request: { body: html('transparent', { viewport: { width: 400, height: 300 }, omitBackground: true, format: 'jpeg' }) },
    expect: {
      status: 200,
      image: { type: 'jpeg', width: 400, height: 300, hasAlpha: false },
      probes: [color(box(0, 0, 40, 40), [255, 255, 255], 'white corner', 8)],
    },
  },
];
