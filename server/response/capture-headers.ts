// The headers of a capture answer, each written from the capture's facts (./facts.ts): the part of
// the registry a new response fact is added to. Order matters: the playground lists its headers,
// and OpenAPI its members, in this order.
import { ERROR_CACHE_CONTROL, linkCacheControl, PRIVATE_CACHE_CONTROL } from '../http-caching/cache-control.ts';
import { STEP_LABELS } from '../render/pipeline.ts';
import { formatTruncation, REASON_WORDS, TRUNCATION_REASONS } from '../tall-pages/truncation.ts';
import { WAIT_STEPS } from '../toolkit/waits.ts';
import type { ResponseHeader } from './header.ts';
import { serverTiming } from './server-timing.ts';

const IMAGE = ['image', 'not-modified'] as const;
const EXTENSIONS = { png: 'png', jpeg: 'jpg', webp: 'webp' } as const;
/** A header line clients read without trouble (Node's clients refuse all headers past 16 KiB together). */
const FINAL_URL_HEADER_MAX = 2000;
const ifSet = (v: number | undefined) => (v === undefined ? undefined : String(v));

export const CAPTURE_HEADERS = {
  creditsCharged: {
    name: 'x-credits-charged',
    description:
      'Credits this request cost: 1 for a rendered capture, 0 for a cached result (spec §1 billing); on /v1/compare, 1 per capture rendered (0 to 2).',
    schema: { type: 'integer', minimum: 0, maximum: 2 },
    sent: [...IMAGE, 'diff'],
    expose: true,
    playground: true,
    fromFacts: (f) => String(f.credits.charged),
    fromCompare: (f) => String(f.credits.charged),
    json: (f) => ({ credits: f.credits }),
  },
  creditsRemaining: {
    name: 'x-credits-remaining',
    description: 'Spendable credits of the API key after this request. Not on signed links: whoever holds one would read the balance.',
    schema: { type: 'integer', minimum: 0 },
    sent: [...IMAGE, 'diff'],
    expose: true,
    playground: true,
    privateOnly: true,
    fromFacts: (f) => String(f.credits.remaining),
    fromCompare: (f) => String(f.credits.remaining),
    json: (f) => ({ credits: f.credits }),
  },
  cache: {
    name: 'x-cache',
    description: '`hit` when a cached result of the same url-mode request was returned (free), else `miss`. `Cache-Control: no-cache` forces a fresh render.',
    schema: { type: 'string', enum: ['hit', 'miss'] },
    sent: IMAGE,
    expose: true,
    playground: true,
    fromFacts: (f) => f.cache,
    json: (f) => ({ cache: f.cache }),
  },
  bannerAction: {
    name: 'x-banner-action',
    description:
      'What the cookie-banner clean-up did: `none`, `hidden`, `hidden:<cmp>`, `reverted` (hiding would have emptied the page), or `rejected:<cmp>` ' +
      '(a reject-all control was clicked). `generic` names the generic detector, which found a banner no rule names by what it is: `rejected:generic` when it clicked a reject control, `hidden:generic` when it had none to click. Consent is never given.',
    schema: { type: 'string', pattern: '^(none|hidden|reverted|rejected)(:[a-z0-9.-]+)?$', examples: ['none', 'rejected:onetrust'] },
    sent: IMAGE,
    expose: true,
    playground: true,
    fromFacts: (f) => f.bannerAction,
    json: (f) => ({ bannerAction: f.bannerAction }),
  },
  targetStatus: {
    name: 'x-target-status',
    description:
      'url mode: the HTTP status the page answered with (an error page is still captured; with `failOnTargetError`, a 4xx/5xx page is a 424 `target_error` carrying this header).',
    schema: { type: 'integer', minimum: 100, maximum: 599 },
    sent: [...IMAGE, 'error'],
    expose: true,
    playground: true,
    fromFacts: (f) => ifSet(f.targetStatus),
    fromError: { codes: ['target_error'], write: (f) => ifSet(f.targetStatus) },
    json: (f) => ({ targetStatus: f.targetStatus }),
  },
  finalUrl: {
    name: 'x-final-url',
    description:
      'url mode, when the page that was captured is not at the requested address: where it was then (after redirects, and any navigation ' +
      `the page or the actions made), as the browser serialised it. Left out when longer than ${FINAL_URL_HEADER_MAX} characters (MCP's \`_meta\` still has it).`,
    schema: { type: 'string', format: 'uri', maxLength: FINAL_URL_HEADER_MAX },
    sent: IMAGE,
    expose: true,
    playground: true,
    fromFacts: (f) => (f.finalUrl !== undefined && f.finalUrl.length <= FINAL_URL_HEADER_MAX ? f.finalUrl : undefined),
    json: (f) => ({ finalUrl: f.finalUrl }),
  },
  captureTruncated: {
    name: 'x-capture-truncated',
    description:
      'fullPage, selector or clip captures only, when the image is shorter than what was asked for: ' +
      "`<full CSS height>; reason=<reason>`, the full height being the page's (or the element's) when it was captured. The value starts " +
      `with it as an integer, as it did before it had a reason. The reasons: ${TRUNCATION_REASONS.map((r) => `\`${r}\`, ${REASON_WORDS[r]}`).join('; ')}.`,
    schema: { type: 'string', pattern: `^[1-9][0-9]*; reason=(${TRUNCATION_REASONS.join('|')})$`, examples: ['65697; reason=time'] },
    sent: IMAGE,
    expose: true,
    playground: true,
    fromFacts: (f) => (f.truncated ? formatTruncation(f.truncated) : undefined),
    json: (f) => ({ truncatedFromHeight: f.truncated?.fromHeight, truncationReason: f.truncated?.reason }),
  },
  waitTimedOut: {
    name: 'x-wait-timed-out',
    description:
      'Only with `captureOnTimeout: true`, when the page did not settle within the render budget: the waits that did not finish, in order, ' +
      `by their step names (${WAIT_STEPS.map((w) => `\`${w}\``).join(', ')}): the one cut short and those skipped after it. ` +
      'The image shows the page as it was then; it is billed, and never stored in the result cache.',
    schema: { type: 'string', pattern: `^(${WAIT_STEPS.join('|')})(, (${WAIT_STEPS.join('|')}))*$`, examples: ['idle', 'load, idle'] },
    sent: IMAGE,
    expose: true,
    playground: true,
    fromFacts: (f) => (f.waitTimedOut.length > 0 ? f.waitTimedOut.join(', ') : undefined),
    json: (f) => ({ waitTimedOut: f.waitTimedOut.length > 0 ? [...f.waitTimedOut] : undefined }),
  },
  blockedRequests: {
    name: 'x-blocked-requests',
    description: 'Only when `blockResourceTypes` or `blockUrls` refused something: how many requests of the page were refused before they left the browser.',
    schema: { type: 'integer', minimum: 1 },
    sent: IMAGE,
    expose: true,
    playground: true,
    fromFacts: (f) => (f.blockedRequests > 0 ? String(f.blockedRequests) : undefined),
    json: (f) => ({ blockedRequests: f.blockedRequests > 0 ? f.blockedRequests : undefined }),
  },
  serverTiming: {
    name: 'Server-Timing',
    description:
      'Duration of each render step, in order (W3C Server Timing): `<name>;dur=<ms>;desc="<what it did>"`. Each step has one name, never ' +
      `repeated in a response, the same as the \`step\` label of screenshot_step_seconds: ${STEP_LABELS.map((s) => `\`${s.name}\``).join(', ')}. ` +
      'Absent on cached results.',
    schema: { type: 'string' },
    sent: IMAGE,
    expose: true,
    fromFacts: (f) => (f.timings ? serverTiming(f.timings) : undefined),
  },
  contentType: {
    name: 'Content-Type',
    description: "The image's type (`image/png`, `image/jpeg`, `image/webp`); `application/json` on errors and JSON answers.",
    schema: { type: 'string' },
    sent: ['image', 'diff', 'error', 'static'],
    expose: false,
    safelisted: true,
    playground: true,
    notInOpenApi: true,
  },
  contentDisposition: {
    name: 'Content-Disposition',
    description: "`inline` with a filename: `screenshot.png`, `screenshot.jpg` or `screenshot.webp` (spec §2.3); `diff.png` for a comparison's picture.",
    schema: { type: 'string', examples: ['inline; filename="screenshot.png"'] },
    sent: ['image', 'diff'],
    expose: true,
    fromFacts: (f) => `inline; filename="screenshot.${EXTENSIONS[f.format]}"`,
    fromCompare: () => 'inline; filename="diff.png"',
  },
  etag: {
    name: 'ETag',
    description: 'Strong validator: the SHA-256 of the image bytes (base64url, quoted). Send it back in If-None-Match for a 304.',
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{43}"$' },
    sent: [...IMAGE, 'static'],
    expose: true,
    playground: true,
    fromFacts: (f) => f.etag,
  },
  cacheControl: {
    name: 'Cache-Control',
    description:
      '`no-store` on POST answers and on every error; on signed links `public, max-age=<cacheTtl, at most until the link expires>, immutable` ' +
      "(`public, no-cache` when cacheTtl is 0); `no-cache` on the playground's files.",
    schema: { type: 'string' },
    sent: [...IMAGE, 'diff', 'error', 'static'],
    expose: false,
    safelisted: true,
    fromFacts: (f, to) => (to.kind === 'public' ? linkCacheControl(f.cacheTtl, to.expires, Math.floor(Date.now() / 1000)) : PRIVATE_CACHE_CONTROL),
    fromCompare: (f, to) => (to.kind === 'public' ? linkCacheControl(f.cacheTtl, to.expires, Math.floor(Date.now() / 1000)) : PRIVATE_CACHE_CONTROL),
    fromError: { write: () => ERROR_CACHE_CONTROL },
    audiences: {
      private: { description: `\`${PRIVATE_CACHE_CONTROL}\`: a POST answer belongs to its key.`, schema: { type: 'string', enum: [PRIVATE_CACHE_CONTROL] } },
      public: {
        description:
          '`public, max-age=<cacheTtl, at most until the link expires>, immutable`, or `public, no-cache` when cacheTtl is 0: CDNs may keep the image.',
        schema: { type: 'string', examples: ['public, max-age=300, immutable'] },
      },
    },
  },
  requestId: {
    name: 'x-request-id',
    description: 'Identifies this request in the server logs; on every response, errors included.',
    schema: { type: 'string', format: 'uuid' },
    sent: ['every'],
    expose: true,
    playground: true,
  },
} as const satisfies Record<string, ResponseHeader>;
