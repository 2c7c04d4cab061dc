// Core profile: waiting (spec §4.1 rules 5 and 6, §8 budget and idle window), clean-up (§4.1
// rules 3 and 4: banners, hideSelectors, blockAds, scroll lock, the near-empty revert), private
// targets (§4.1 rule 8) and authentication (§5). The MCP server (§4.2) is in mcp.ts.
import type { CaseSpec } from '../model/model.ts';
import { absent, BLUE, box, BUDGET_PLUS_SLACK_MS, color, GREEN, GREY, html, MAGENTA, png, RED, WHITE } from './helpers.ts';

const VP = { width: 400, height: 300 };
/**
 * fixtures/pages/late-network.html: three requests stay in flight until the page has turned green
 * `d` ms after its first script ran (the fixture server holds them until the page releases them),
 * so a network-idle wait ends after the green whatever the machine's load; `never`: no green, and
 * the requests are never released.
 */
const lateNetwork = (d: number | 'never', extra: Record<string, unknown> = {}) => ({
  url: { $fixtureUrl: `/pages/late-network.html?d=${d}` },
  viewport: VP,
  ...extra,
});
const allGreen = [color(box(0, 0, 400, 300), GREEN, 'late content arrived')];

export const coreBehaviourCases: CaseSpec[] = [
  // §4.1 rule 5: waitUntil
  {
    id: 'waitUntil.default-waits-for-late-network',
    tags: ['waitUntil-always-load'],
    must: 'The service MUST by default (networkidle2) wait until at most 2 requests are in flight for 500 ms: content shown while three requests are in flight is captured.',
    rules: ['2.1/waitUntil', '4.1/rule-5-networkidle2', '8/idle-window'],
    needs: ['fixtures'],
    request: { body: lateNetwork(1500) },
    expect: png(400, 300, allGreen, { minDurationMs: 1500 }),
  },
  {
    id: 'waitUntil.networkidle2-late-network',
    tags: ['waitUntil-always-load'],
    must: 'The service MUST, with waitUntil networkidle2, capture content that appears before three late requests finish.',
    rules: ['4.1/rule-5-networkidle2', '8/idle-window'],
    needs: ['fixtures'],
    request: { body: lateNetwork(1500, { waitUntil: 'networkidle2' }) },
    expect: png(400, 300, allGreen),
  },
  {
    id: 'waitUntil.networkidle2-tolerates-long-poll',
    must: 'The service MUST, with networkidle2, capture a page that keeps one long-poll request open (at most 2 in flight is idle).',
    rules: ['4.1/rule-5-networkidle2', '8/idle-window'],
    needs: ['fixtures'],
    request: { body: { url: { $fixtureUrl: '/pages/longpoll.html' }, viewport: VP, waitUntil: 'networkidle2' } },
    // no time bound: waiting for the long poll would never end within the budget (a 504)
    expect: png(400, 300, allGreen),
  },
  {
    id: 'waitUntil.networkidle0-late-network',
    tags: ['waitUntil-always-load'],
    must: 'The service MUST, with waitUntil networkidle0, capture content that appears before the late requests finish.',
    rules: ['4.1/rule-5-networkidle0'],
    needs: ['fixtures'],
    request: { body: lateNetwork(1500, { waitUntil: 'networkidle0' }) },
    expect: png(400, 300, allGreen),
  },
  {
    id: 'waitUntil.networkidle0-long-poll-times-out',
    must: 'The service MUST, with networkidle0, keep waiting while one request stays in flight, and answer 504 render_timeout within the 20-second budget.',
    rules: ['4.1/rule-5-networkidle0', '4.1/rule-6-timeout', '7/row-6', '8/render-budget', '7/failure-body'],
    needs: ['fixtures'],
    heavy: true,
    timeoutMs: 60_000,
    request: { body: { url: { $fixtureUrl: '/pages/longpoll.html' }, viewport: VP, waitUntil: 'networkidle0' } },
    expect: { status: 504, error: 'render_timeout', maxDurationMs: BUDGET_PLUS_SLACK_MS, minDurationMs: 10_000 },
  },
  {
    id: 'waitUntil.load-does-not-wait-for-network',
    must: 'The service MUST, with waitUntil load, capture at the load event without waiting for later network activity.',
    rules: ['4.1/rule-5-load', '2.1/waitUntil'],
    needs: ['fixtures'],
    // the three requests never end: waiting for them would never end within the budget (a 504)
    request: { body: lateNetwork('never', { waitUntil: 'load' }) },
    expect: png(400, 300, [color(box(0, 0, 400, 300), RED, 'state at the load event')]),
  },

  // §4.1 rule 6: waitForSelector
  {
    id: 'waitForSelector.appears',
    tags: ['ignores-waitForSelector'],
    must: 'The service MUST wait for waitForSelector to match and capture the page after it appears.',
    rules: ['4.1/rule-6-wait', '2.1/waitForSelector'],
    request: { body: html('late-selector', { viewport: VP, waitForSelector: '#late', waitUntil: 'load' }) },
    expect: png(400, 300, allGreen),
  },
  {
    id: 'waitForSelector.appears-after-6s',
    tags: ['ignores-waitForSelector'],
    must: 'The service MUST keep waiting for waitForSelector within the 20-second budget: an element appearing after 6 s is captured.',
    rules: ['4.1/rule-6-wait', '8/render-budget'],
    timeoutMs: 60_000,
    request: { body: html('late-selector-6s', { viewport: VP, waitForSelector: '#late', waitUntil: 'load' }) },
    expect: png(400, 300, allGreen, { minDurationMs: 5_500 }),
  },
  {
    id: 'waitForSelector.never-times-out',
    tags: ['timeout-as-500', 'ignores-waitForSelector'],
    must: 'The service MUST answer 504 render_timeout within the 20-second budget (plus slack) when waitForSelector never matches.',
    rules: ['4.1/rule-6-timeout', '7/row-6', '8/render-budget', '2.1/waitForSelector', '7/failure-body'],
    heavy: true,
    timeoutMs: 60_000,
    request: { body: html('never', { viewport: VP, waitForSelector: '#never', waitUntil: 'load' }) },
    expect: { status: 504, error: 'render_timeout', maxDurationMs: BUDGET_PLUS_SLACK_MS, minDurationMs: 10_000 },
  },

  // §4.1 rules 3 and 4, §1: banners
  {
    id: 'banners.removed-by-default',
    tags: ['never-removes-banners'],
    must: 'The service MUST remove a cookie banner by default, without accepting consent.',
    rules: ['1/banners-default', '2.1/blockCookieBanners', '4.1/rule-3-hide', '1/consent-not-given'],
    request: { body: html('banner-basic', { viewport: { width: 800, height: 600 } }) },
    expect: png(800, 600, [
      absent(box(0, 440, 800, 160), RED, 'banner gone'),
      absent(box(0, 0, 800, 60), MAGENTA, 'consent not given'),
      color(box(560, 10, 220, 100), BLUE, 'article header kept'),
    ]),
  },
  {
    id: 'banners.kept-when-disabled',
    tags: ['always-removes-banners'],
    must: 'The service MUST keep the cookie banner with blockCookieBanners: false.',
    rules: ['4.1/rule-4-keep', '2.1/blockCookieBanners'],
    request: { body: html('banner-basic', { viewport: { width: 800, height: 600 }, blockCookieBanners: false }) },
    expect: png(800, 600, [color(box(520, 450, 270, 140), RED, 'banner visible'), absent(box(0, 0, 800, 60), MAGENTA, 'consent not given')]),
  },
  {
    id: 'banners.near-empty-revert',
    must: 'The service MUST revert the clean-up and capture the original page when hiding would leave it near-empty.',
    rules: ['4.1/rule-3-revert'],
    request: { body: html('near-empty', { viewport: VP }) },
    expect: png(400, 300, [
      color(box(0, 200, 400, 100), GREEN, 'the original page, notice included'),
      { kind: 'absent', region: box(0, 0, 400, 300), rgb: WHITE, fraction: 0.2, label: 'not an empty white page' },
    ]),
  },
  {
    id: 'banners.scroll-lock-lifted',
    must: 'The service MUST lift the scroll lock a removed banner added, so that a full-page capture sees the whole 3000 px page.',
    rules: ['4.1/rule-3-scroll-lock', '4.1/rule-3-hide'],
    request: { body: html('scroll-lock', { viewport: { width: 600, height: 400 }, fullPage: true }) },
    expect: png(600, 3000, [
      color(box(450, 400, 100, 200), RED),
      color(box(450, 1400, 100, 200), GREEN),
      color(box(450, 2400, 100, 200), BLUE),
      absent(box(0, 0, 600, 3000), MAGENTA, 'banner gone'),
    ]),
  },

  // §4.1 rule 4: hideSelectors and blockAds
  {
    id: 'hideSelectors.hides',
    tags: ['drops-hideSelectors'],
    must: 'The service MUST hide the elements matched by hideSelectors and keep the rest.',
    rules: ['4.1/rule-4-hideSelectors', '2.1/hideSelectors'],
    request: { body: html('hide', { viewport: { width: 900, height: 400 }, hideSelectors: ['#promo'] }) },
    expect: png(900, 400, [color(box(110, 110, 280, 130), GREY, 'promo hidden'), color(box(510, 110, 280, 130), BLUE, 'card kept')]),
  },
  {
    id: 'hideSelectors.baseline',
    must: 'The service MUST NOT hide an ordinary element that no hideSelectors entry matches.',
    rules: ['4.1/rule-4-hideSelectors'],
    request: { body: html('hide', { viewport: { width: 900, height: 400 }, hideSelectors: ['.card-nothing'] }) },
    expect: png(900, 400, [color(box(110, 110, 280, 130), RED, 'promo kept'), color(box(510, 110, 280, 130), BLUE, 'card kept')]),
  },
  {
    id: 'hideSelectors.never-root-or-body',
    must: 'The service MUST NOT hide the root or body elements even when hideSelectors names them.',
    rules: ['2.1/hideSelectors-root'],
    request: { body: html('hide', { viewport: { width: 900, height: 400 }, hideSelectors: ['html', 'body', ':root', '#promo'] }) },
    expect: png(900, 400, [
      color(box(0, 300, 900, 100), GREY, 'body background'),
      color(box(510, 110, 280, 130), BLUE, 'card kept'),
      color(box(110, 110, 280, 130), GREY, 'promo hidden'),
    ]),
  },
  {
    id: 'blockAds.hides-ad-slot',
    tags: ['ignores-blockAds'],
    must: 'The service MUST hide a standard ad slot (ins.adsbygoogle) with blockAds: true.',
    rules: ['4.1/rule-4-blockAds', '2.1/blockAds'],
    request: { body: html('ads', { viewport: { width: 900, height: 400 }, blockAds: true }) },
    expect: png(900, 400, [absent(box(100, 100, 300, 250), RED, 'ad hidden'), color(box(510, 140, 280, 200), BLUE, 'content kept')]),
  },
  {
    id: 'blockAds.default-keeps-ads',
    tags: ['ignores-blockAds'],
    must: 'The service MUST keep ad slots by default (blockAds false).',
    rules: ['4.1/rule-4-blockAds', '2.1/blockAds'],
    request: { body: html('ads', { viewport: { width: 900, height: 400 } }) },
    expect: png(900, 400, [color(box(110, 110, 280, 230), RED, 'ad kept'), color(box(510, 140, 280, 200), BLUE, 'content kept')]),
  },

  // §4.1 rule 8, §1: private targets (loopback spellings are safe to send: the suite listens there)
  {
    id: 'private.loopback-no-connection',
    tags: ['connects-before-rejecting'],
    must: 'The service MUST reject a loopback url with 400 bad_request before any connection is made to it.',
    rules: ['4.1/rule-8', '1/private-targets', '7/row-2', '2.1/url'],
    needs: ['canary'],
    request: { body: { url: { $canaryUrl: '/private' }, viewport: VP } },
    expect: { status: 400, error: 'bad_request', canaryConnections: 0 },
  },
  {
    id: 'private.localhost-name',
    tags: ['connects-before-rejecting'],
    must: 'The service MUST reject a url whose host name resolves to loopback with 400 bad_request.',
    rules: ['4.1/rule-8', '1/private-targets', '7/row-2'],
    needs: ['canary'],
    request: { body: { url: { $canaryUrl: '/private', spelling: 'localhost' }, viewport: VP } },
    expect: { status: 400, error: 'bad_request', canaryConnections: 0 },
  },
  {
    id: 'private.loopback-status',
    must: 'The service MUST reject a loopback url with 400 bad_request (status only, for remote implementations).',
    rules: ['4.1/rule-8', '7/row-2'],
    request: { body: { url: 'http://127.0.0.1:9/', viewport: VP } },
    expect: { status: 400, error: 'bad_request' },
  },
  {
    id: 'private.link-local-metadata',
    must: 'The service MUST reject the link-local cloud-metadata address with 400 bad_request.',
    rules: ['4.1/rule-8', '1/private-targets', '7/row-2'],
    needs: ['isolatedNetwork'],
    request: { body: { url: 'http://169.254.169.254/latest/meta-data/', viewport: VP } },
    // no time bound: in the isolated namespace a connection attempt fails at once (502, not 400)
    expect: { status: 400, error: 'bad_request' },
  },

  // §5 authentication (the response to a missing key is not shown: any 4xx)
  {
    id: 'auth.missing-key-rejected',
    tags: ['no-auth-required'],
    must: 'The service MUST NOT render a request that carries no Authorization Bearer key.',
    rules: ['5/bearer', '4.1/endpoint'],
    request: { auth: 'none', body: html('plain', { viewport: VP }) },
    expect: { status: '4xx' },
  },
];
