// The coverage manifest: every normative rule of the spec (spec/screenshot-service.md) with a
// stable id and the quoted rule, plus the reference server's decisions (DESIGN §3) and the threat
// model's classes that the `reference` and `security` profiles check, and the MCP server's
// decisions. Ids are stable anchors: "<section>/<name>". Never renumber; add new ids instead. A
// self-test fails when a spec rule has no case (conformance/self-test/cases.test.ts); `--coverage`
// prints the matrix. The rules live here (the extensions' in extension-rules.ts) and only there.

import { EXTENSION_RULES } from './extension-rules.ts';
import { design, spec, threat, type Rule } from './rule.ts';

export type { Rule, RuleSource } from './rule.ts';

export const RULES: readonly Rule[] = [
  // §1 What the service does
  spec(
    '1/raster-image',
    'The service accepts one JSON request on one endpoint and returns a raster image (PNG, JPEG or WebP) of either a live page (`url`) or caller-supplied markup (`html`).',
  ),
  spec('1/synchronous', 'Rendering is synchronous. The response body is the image itself, with no JSON envelope, no job and no polling.'),
  spec('1/capture-modes', 'The capture can be of the viewport, the full scrollable page, or a single element chosen by CSS selector.'),
  spec('1/banners-default', 'By default the service removes cookie banners, consent popups and overlays before capturing (see option `blockCookieBanners`).'),
  spec('1/private-targets', 'Requests whose target resolves to a private, loopback, link-local or cloud-metadata address are rejected before navigation.'),
  spec('1/html-not-retained', 'Supplied HTML is rendered and returned; nothing of it is retained by the service.'),
  spec('1/billing-success', 'Billing: one successful capture costs one credit.'),
  spec('1/billing-failed', 'Failed requests (any status >= 400) are never billed.'),
  spec('1/billing-cached', 'Cached results are never billed.'),
  spec('1/free-allowance', 'A free allowance of 100 screenshots exists for new users.'),
  spec('1/consent-not-given', 'On consent-or-pay walls the wall is only visually hidden; consent is not given.'),
  spec('1/mcp', 'An agent-tool (MCP) server also exposes screenshot capture (see Endpoints).'),

  // §2.1 Request body
  spec('2.1/url', '`url` ... Absolute http or https URL. Checked against private/loopback/link-local/metadata targets before navigation.'),
  spec('2.1/html', '`html` ... Raw markup rendered as the page. Maximum 2,000,000 bytes.'),
  spec('2.1/fullPage', '`fullPage` ... default `false` ... Capture the whole scrollable page (scroll and stitch). Ignored when `selector` is set.'),
  spec('2.1/format', '`format` ... default `"png"` ... Allowed: `"png"`, `"jpeg"`, `"webp"`. PNG is lossless.'),
  spec('2.1/quality', '`quality` ... 1 to 100. Valid only when `format` is `"jpeg"` or `"webp"`.'),
  spec('2.1/viewport-default', '`viewport` ... default 1280 x 720 at scale 1.'),
  spec('2.1/selector', '`selector` ... Capture only the matched element.'),
  spec('2.1/omitBackground', '`omitBackground` ... default `false` ... Transparent background (PNG) where the page has none, instead of white.'),
  spec('2.1/waitUntil', '`waitUntil` ... default `"networkidle2"` ... Allowed: `"load"`, `"networkidle0"`, `"networkidle2"`.'),
  spec('2.1/waitForSelector', '`waitForSelector` ... Wait until this element appears before capturing.'),
  spec('2.1/blockCookieBanners', '`blockCookieBanners` ... default `true` ... Remove cookie banners, consent popups and overlays before capture.'),
  spec('2.1/hideSelectors', '`hideSelectors` ... Extra elements to hide alongside the curated banner list. Maximum 50 entries, each at most 500 characters.'),
  spec('2.1/hideSelectors-root', '`hideSelectors` ... The root and body elements are never hidden.'),
  spec('2.1/blockAds', '`blockAds` ... default `false` ... Also hide common ad/iframe slots during banner removal (best effort).'),
  spec('2.1/rule-1', 'Exactly one of `url` and `html` must be present; both or neither gives 400 `bad_request`.'),
  spec('2.1/rule-2', 'Unknown fields are ignored.'),
  spec(
    '2.1/rule-3',
    'A known field with a malformed value is rejected with 400 `bad_request`, and the message names the field (for example the viewport width must be a number between 1 and 10000).',
  ),

  // §2.2 viewport
  spec('2.2/required', '`width` ... `height` ... Required: yes, when `viewport` is given.'),
  spec('2.2/bounds', '`width` 1 to 10000; `height` 1 to 10000; `deviceScaleFactor` 0.1 to 4, default 1 (2 or 3 for retina output).'),
  spec(
    '2.2/exact-frame',
    'The viewport sets the browser window the page lays out in. With `width`=1200 and `height`=630 the returned image is exactly that frame.',
  ),
  spec('2.2/scale', '`deviceScaleFactor` ... (2 or 3 for retina output)'),

  // §2.3 / §2.4 responses
  spec('2.3/success', 'Status 200; Body raw image bytes.'),
  spec('2.3/content-type', 'Header `content-type`: `image/png`, `image/jpeg` or `image/webp`, matching `format`.'),
  spec('2.3/content-disposition', 'Header `content-disposition`: `inline` with a filename.'),
  spec('2.4/failure-body', 'JSON object `{ error, message }`.'),

  // §4.1 endpoint
  spec(
    '4.1/endpoint',
    'POST {base_url}/v1/screenshot ... Request headers `Authorization: Bearer <API_KEY>`, `Content-Type: application/json` ... Success 200, raw image bytes.',
  ),
  spec('4.1/rule-1', 'Without `selector`, the capture is the current viewport; with `fullPage: true` it is the whole scrollable page.'),
  spec('4.1/rule-2', 'With `selector`, only the matched element is captured; if nothing matches, the response is 400 `selector_not_found`.'),
  spec(
    '4.1/rule-3-reject',
    '`blockCookieBanners: true` (default) performs, in order: clicking a reject-all/decline control on common consent-management platforms; ...',
  ),
  spec('4.1/rule-3-hide', '... hiding a curated list of cookie/consent/overlay elements; ...'),
  spec('4.1/rule-3-scroll-lock', '... lifting any scroll-lock the banner added.'),
  spec('4.1/rule-3-revert', 'If hiding would leave the page near-empty, the clean-up is reverted and the original page is captured.'),
  spec('4.1/rule-4-keep', '`blockCookieBanners: false` keeps banners.'),
  spec('4.1/rule-4-hideSelectors', '`hideSelectors` adds own elements to hide.'),
  spec('4.1/rule-4-blockAds', '`blockAds: true` adds ad slots to hidden elements.'),
  spec('4.1/rule-5-networkidle2', '`waitUntil` semantics: `networkidle2` = at most 2 in-flight requests for 500 ms; ...'),
  spec('4.1/rule-5-networkidle0', '... `networkidle0` = no in-flight requests; ...'),
  spec('4.1/rule-5-load', '... `load` = the load event (fastest).'),
  spec('4.1/rule-6-wait', '`waitForSelector` blocks until the element appears.'),
  spec('4.1/rule-6-timeout', 'Both waiting mechanisms are bounded by the 20-second render budget; exceeding it gives 504 `render_timeout`.'),
  spec('4.1/rule-7', '`quality` with `format` `"png"` or with no `format` gives 400 `bad_request`.'),
  spec(
    '4.1/rule-8',
    'A `url` resolving to a private, loopback, link-local or cloud-metadata address (for example the link-local metadata address) gives 400 `bad_request`, before the browser connects.',
  ),
  spec('4.1/rule-9', 'Capture is synchronous; the response is produced within the same HTTP exchange.'),
  spec(
    '4.2/mcp',
    'An MCP server is available at `{mcp_url}`, authenticated with an `Authorization` header carrying `Bearer <API_KEY>`. It gives an MCP client a screenshot tool able to capture a page or rendered HTML.',
  ),

  // §5 Authentication
  spec(
    '5/bearer',
    'Every request to the endpoint carries the header `Authorization: Bearer <API_KEY>`. ... The same call works from any HTTP client; no SDK is needed.',
  ),

  // §7 Errors (one id per row)
  spec('7/failure-body', 'Every failure returns a JSON body with the fields `error` (machine code string) and `message` (human-readable string).'),
  spec('7/row-1', '400 `bad_request`: Both or neither of `url`/`html` given'),
  spec('7/row-2', '400 `bad_request`: `url` not an absolute http/https URL, or target private/loopback/link-local/cloud-metadata'),
  spec('7/row-3', '400 `bad_request`: `quality` sent with `format` `png` or no `format`'),
  spec('7/row-4', '400 `bad_request`: A known field is malformed (message names the field, e.g. viewport width out of 1 to 10000)'),
  spec('7/row-5', '400 `selector_not_found`: `selector` matches no element'),
  spec('7/row-6', '504 `render_timeout`: Rendering (including `waitUntil`/`waitForSelector`) exceeds the 20-second render budget'),

  // §8 Limits
  spec('8/html-size', 'HTML body size: 2,000,000 bytes (about 2 MB), applies to `html`.'),
  spec('8/viewport-size', 'Viewport width and height: 1 to 10000 each.'),
  spec('8/scale', 'Device scale factor: 0.1 to 4, default 1.'),
  spec('8/quality', 'Quality: 1 to 100 (lossy formats only).'),
  spec('8/hideSelectors', '`hideSelectors`: at most 50 entries, each at most 500 characters.'),
  spec('8/render-budget', 'Render budget: 20 seconds, whole capture, including waits.'),
  spec('8/idle-window', 'Network idle window: 500 ms with at most 2 in-flight requests (`networkidle2`).'),
  spec('8/free-allowance', 'Free allowance: 100 screenshots, new users, no card.'),
  spec('8/cost', 'Cost: 1 credit per successful capture; cached results and failed requests free.'),

  // §9 Versioning
  spec('9/path-version', 'The version is part of the path: `/v1/screenshot`.'),
  spec('9/unknown-fields', 'Unknown request fields are ignored, so that requests stay forward-compatible.'),

  // DESIGN §3: the reference server's decisions (reference profile only)
  design('D3/unauthorized', 'missing, malformed or unknown API key (`WWW-Authenticate: Bearer`): 401 `unauthorized`'),
  design(
    'D3/insufficient-credits',
    'key has no credits left: 402 `insufficient_credits`',
    "needs a key with no credits; covered by the server's accounts tests",
  ),
  design('D3/payload-too-large', 'body over the limit, or `html` over 2,000,000 UTF-8 bytes: 413 `payload_too_large`'),
  design('D3/unsupported-media-type', '`Content-Type` not JSON: 415 `unsupported_media_type`'),
  design('D3/invalid-json', 'body not valid JSON (message must not echo the body): 400 `bad_request`'),
  design(
    'D3/rate-limited',
    'per-key rate limit exceeded (`Retry-After`): 429 `rate_limited`',
    "needs a flood of requests from one key; covered by the server's rate-limit tests",
  ),
  design('D3/overloaded', 'render queue full (`Retry-After`): 503 `overloaded`', "needs a saturated queue; covered by the server's pool tests"),
  design('D3/navigation-failed', 'target unreachable: DNS failure, refused, TLS error: 502 `navigation_failed`'),
  design('D3/redirect-blocked', 'a redirect or navigation reaches a blocked address: 400 `bad_request` (message names the blocked hop)'),
  design('D3/render-failed', 'page or browser crashed: 500 `render_failed`', "needs a renderer crash on demand; covered by the server's pool tests"),
  design('D3/not-found', 'unknown route: 404 `not_found`'),
  design('D3/method-not-allowed', 'wrong method: 405 `method_not_allowed`'),
  design('D3/request-id', 'Response headers on success: `x-request-id` ... Errors carry `x-request-id` too.'),
  design('D3/credits-headers', '`x-credits-charged` (`0`/`1`), `x-credits-remaining`'),
  design('D3/cache-header', '`x-cache` (`hit`/`miss`) ... a cache hit costs 0.'),
  design('D3/banner-action', '`x-banner-action` (what cleanup did: `rejected`, `hidden`, `reverted`, `none`, with the CMP where known)'),
  design('D3/target-status', '`x-target-status` (url mode)'),
  design('D3/html-not-cached', '`html` renders are never cached or written anywhere'),
  design('D3/content-disposition', 'success header content-disposition `inline; filename="screenshot.<ext>"`'),

  // Threat model (security profile)
  threat(
    'T/spellings',
    'Spellings of one address (the parser normalises; classify the parsed result): decimal, hex, octal and short IPv4 forms, trailing dots, bracketed IPv6, userinfo tricks, scheme case, localhost names.',
  ),
  threat('T/address-classes', 'Address classification (allow only globally routable unicast): private, link-local, metadata, reserved ranges.'),
  threat('T/after-first-hop', 'After the first hop: HTTP 301/302/303/307/308 to an internal address, meta refresh, JS `location` ...'),
  threat(
    'T/subresources',
    'subresources of every kind (img, script, css, `@import`, `@font-face`, media, object/embed, SVG), iframes, fetch/XHR/beacon/EventSource, WebSocket ... in BOTH `url` and `html` mode.',
  ),
  threat(
    'T/schemes',
    'Only `http:` and `https:`. Reject `file:` (any case), `data:`, `javascript:`, `blob:`, `view-source:`, `chrome:`, `devtools:`, `ftp:`, `ws:`, scheme-relative URLs.',
  ),
  threat(
    'T/isolation',
    'Fresh incognito context per request, disposed afterwards; nothing shared between requests (cookies, storage, cache, service workers).',
  ),
  threat(
    'T/dos',
    'Infinite loops, memory bombs, dialogs ... never-idle networks ... Each ends within the 20 s budget with a clear error, the browser is healthy for the next request.',
  ),

  // The reference server's MCP decisions (reference profile only)
  design(
    'mcp/tool',
    'The capture tool, `take_screenshot` (listed first; `compare_screenshots` beside it), whose input schema is generated from the same JSON Schema as the REST body: same validation, same defaults, same billing, same egress guard, same cleanup.',
  ),
  design('mcp/auth', 'Streamable HTTP at `/mcp` (stateless), Bearer auth with the same keys as REST (401 otherwise).'),
  design(
    'mcp/results',
    'Success: image content (base64 data and mimeType) plus a short text part. Failure: a tool result with `isError: true` carrying the error code and message, never a silent empty result.',
  ),
  design(
    'mcp/size-budget',
    'Images over 750,000 bytes (or 8000 px on a side) are re-encoded or downscaled to fit, and the text part says what was done; REST is unchanged.',
  ),
  ...EXTENSION_RULES,
];

export const RULES_BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((r) => [r.id, r]));

export function ruleQuote(id: string): string {
  const r = RULES_BY_ID.get(id);
  if (!r) throw new Error(`unknown rule id ${id}`);
  return r.quote;
}

/** Titles of the sections rule ids start with, for the summary by section. */
export const SECTIONS: Readonly<Record<string, string>> = {
  '1': '§1 What the service does',
  '2.1': '§2.1 Request body',
  '2.2': '§2.2 viewport',
  '2.3': '§2.3 Success response',
  '2.4': '§2.4 Failure response',
  '4.1': '§4.1 POST /v1/screenshot',
  '4.2': '§4.2 MCP server',
  '5': '§5 Authentication',
  '7': '§7 Errors',
  '8': '§8 Limits',
  '9': '§9 Versioning',
  D3: 'DESIGN §3 reference decisions',
  mcp: 'DESIGN: the MCP server',
  T: 'threat model',
};

/** The section of a case: the section of the first rule it cites (the clause it checks). */
export function sectionOf(rules: readonly string[]): string {
  const s = (rules[0] ?? '').split('/')[0] ?? '';
  return SECTIONS[s] ?? s;
}
