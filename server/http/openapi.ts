// GET /openapi.json, generated from the one request schema (server/request/schema.ts) and the one
// error catalogue (server/errors.ts): a new request field or error code appears here without an
// edit. Checked by test/api/openapi.test.ts: clean under Redocly's `recommended` rules, and a
// client generated from it with openapi-typescript + openapi-fetch compiles and runs.
//
// Choices that are not obvious:
// - The request body is a named *request body* component (components.requestBodies), not a
//   schema component. openapi-typescript (default options) makes every property that has a
//   `default` required unless the schema sits under a request body; under components.schemas a
//   body of just {html} would not type-check in the generated client.
// - Images are `type: string, format: binary` with `contentMediaType` (OpenAPI 3.1 / JSON Schema
//   2020-12), so generators type them as bytes, not as unknown JSON.
// - Each operation lists only the statuses that operation sends: 404 and 405 belong to other
//   routes or methods, and `client_closed` (499) never reaches a client (it names a caller that
//   has gone, for logs and metrics).
// - `servers` is the relative URL "/": the document describes whichever host serves it, and no
//   host name from the request is echoed into it.
import { DEVICES_PATH, devicesPathItem } from '../emulation/route.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.ts';
import { linkQueryParameters } from '../links/openapi.ts';
import { publicSchema } from '../request/schema.ts';
import { REASON_WORDS, TRUNCATION_REASONS } from '../tall-pages/truncation.ts';
import { WAIT_STEPS } from '../wait-timeout/index.ts';

/** Codes that are not about a capture request at all (the catalogue lists them for other routes). */
const NOT_FROM_REQUESTS: Partial<Record<ErrorCode, string>> = {
  not_found: 'unknown routes only',
  method_not_allowed: 'other methods on a known route',
  client_closed: 'never sent: the caller has gone (logs and metrics only)',
};

/** Codes POST /v1/screenshot never sends. */
const NOT_FROM_CAPTURE: Partial<Record<ErrorCode, string>> = {
  ...NOT_FROM_REQUESTS,
  link_signature_invalid: 'signed links (GET) only',
  link_key_invalid: 'signed links (GET) only',
  link_expired: 'signed links (GET) only',
};

/** Codes a signed link (GET /v1/screenshot) never gets. */
const NOT_FROM_LINKS: Partial<Record<ErrorCode, string>> = {
  ...NOT_FROM_REQUESTS,
  unauthorized: 'no Authorization header: the signature stands for the key',
  unsupported_media_type: 'no body',
  payload_too_large: 'a URL cannot hold that much',
};

/** Codes no client ever receives. */
const NEVER_SENT: readonly ErrorCode[] = ['client_closed'];

/** Response headers (DESIGN §3, docs/api.md "The response"), shared by reference. */
const HEADERS = {
  RequestId: { description: 'Identifies this request in the server logs; on every response, errors included.', schema: { type: 'string', format: 'uuid' } },
  ContentDisposition: { description: '`inline` with a filename: `screenshot.png`, `screenshot.jpg` or `screenshot.webp` (spec §2.3).', schema: { type: 'string', examples: ['inline; filename="screenshot.png"'] } },
  CreditsCharged: { description: 'Credits this request cost: 1 for a rendered capture, 0 for a cached result (spec §1 billing).', schema: { type: 'integer', enum: [0, 1] } },
  CreditsRemaining: { description: 'Spendable credits of the API key after this request.', schema: { type: 'integer', minimum: 0 } },
  Cache: { description: '`hit` when a cached result of the same url-mode request was returned (free), else `miss`. `Cache-Control: no-cache` forces a fresh render.', schema: { type: 'string', enum: ['hit', 'miss'] } },
  BannerAction: {
    description: 'What the cookie-banner clean-up did: `none`, `hidden`, `hidden:<cmp>`, `reverted` (hiding would have emptied the page), or `rejected:<cmp>` (a reject-all control was clicked). Consent is never given.',
    schema: { type: 'string', pattern: '^(none|hidden|reverted|rejected)(:[a-z0-9.-]+)?$', examples: ['none', 'rejected:onetrust'] },
  },
  TargetStatus: { description: 'url mode: the HTTP status the page answered with (an error page is still captured).', schema: { type: 'integer', minimum: 100, maximum: 599 } },
  CaptureTruncated: {
    description:
      'fullPage, selector or clip captures only, when the image is shorter than what was asked for: `<full CSS height>; reason=<reason>`. The value ' +
      `starts with the full height as an integer; the reasons: ${TRUNCATION_REASONS.map((r) => `\`${r}\` (${REASON_WORDS[r]})`).join(', ')}.`,
    schema: { type: 'string', pattern: `^[1-9][0-9]*; reason=(${TRUNCATION_REASONS.join('|')})$`, examples: ['65697; reason=time'] },
  },
  WaitTimedOut: {
    description:
      'Only with `captureOnTimeout: true`, when the page did not settle within the render budget: the waits that did not finish, in order, ' +
      `by their step names (${WAIT_STEPS.map((w) => `\`${w}\``).join(', ')}): the one cut short and those skipped after it. ` +
      'The image shows the page as it was then; it is billed, and never stored in the result cache.',
    schema: { type: 'string', pattern: `^(${WAIT_STEPS.join('|')})(, (${WAIT_STEPS.join('|')}))*$`, examples: ['idle', 'load, idle'] },
  },
  BlockedRequests: { description: 'Only when blockResourceTypes or blockUrls refused something: how many requests (websockets included) the page was refused.', schema: { type: 'integer', minimum: 1 } },
  ServerTiming: { description: 'Duration of each render step, in order (W3C Server Timing): `name;dur=<ms>;desc="<step>"`. Absent on cached results.', schema: { type: 'string' } },
  WwwAuthenticate: { description: 'The Bearer challenge (RFC 6750), with `error="invalid_token"` when a key was sent but is not valid.', schema: { type: 'string', examples: ['Bearer realm="screenshot", error="invalid_token"'] } },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  ETag: { description: 'Strong validator: the SHA-256 of the image bytes (base64url, quoted). Send it back in If-None-Match for a 304.', schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{43}"$' } },
  CacheControlPrivate: { description: '`no-store`: a POST answer belongs to its key.', schema: { type: 'string', enum: ['no-store'] } },
  CacheControlPublic: {
    description: '`public, max-age=<cacheTtl, at most until the link expires>, immutable`, or `public, no-cache` when cacheTtl is 0: CDNs may keep the image.',
    schema: { type: 'string', examples: ['public, max-age=300, immutable'] },
  },
} as const;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const header = (name: keyof typeof HEADERS) => ref('headers', name);

/** Extra headers an error status carries (server/http/auth.ts, Overloaded, the rate limiter). */
const ERROR_HEADERS: Partial<Record<number, Record<string, unknown>>> = {
  401: { 'WWW-Authenticate': header('WwwAuthenticate') },
  429: { 'Retry-After': header('RetryAfter') },
  503: { 'Retry-After': header('RetryAfter') },
};

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an image you have: 304 Not Modified with no body when the capture is the same (free when it came from the cache).',
  schema: { type: 'string' },
};

/** The image answer; `cacheControl` names the Cache-Control header component; `balance` whether x-credits-remaining is sent. */
function imageResponses(cacheControl: keyof typeof HEADERS, balance: boolean) {
  const common = {
    'x-request-id': header('RequestId'),
    ETag: header('ETag'),
    'Cache-Control': header(cacheControl),
    'x-credits-charged': header('CreditsCharged'),
    ...(balance ? { 'x-credits-remaining': header('CreditsRemaining') } : {}),
    'x-cache': header('Cache'),
  };
  return {
    '200': {
      description: 'The image, in the requested format.',
      headers: {
        'Content-Disposition': header('ContentDisposition'),
        ...common,
        'x-banner-action': header('BannerAction'),
        'x-target-status': header('TargetStatus'),
        'x-capture-truncated': header('CaptureTruncated'),
        'x-wait-timed-out': header('WaitTimedOut'),
        'x-blocked-requests': header('BlockedRequests'),
        'Server-Timing': header('ServerTiming'),
      },
      content: Object.fromEntries(IMAGE_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary', contentMediaType: t } }])),
    },
    '304': { description: 'Not Modified: If-None-Match has this image\'s ETag. No body.', headers: common },
  };
}

function errorResponses(exclude: Partial<Record<ErrorCode, string>>) {
  const byStatus = new Map<number, string[]>();
  for (const [code, { status, when }] of Object.entries(ERROR_CATALOGUE)) {
    if (code in exclude) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), `\`${code}\`: ${when}`]);
  }
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, lines]) => [
      String(status),
      {
        description: lines.join('. '),
        headers: { 'x-request-id': header('RequestId'), ...ERROR_HEADERS[status] },
        content: { 'application/json': { schema: ref('schemas', 'Error') } },
      },
    ]),
  );
}

export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Screenshot rendering service',
      version: '1.0.0',
      summary: 'Render a web page or supplied HTML in a managed browser and get the image back.',
      description:
        'One endpoint, `POST /v1/screenshot`: send a `url` or an `html` string and receive the PNG, JPEG or WebP bytes in the same ' +
        'response. Cookie banners are removed without giving consent; private, loopback, link-local and metadata targets are refused. ' +
        'A successful capture costs one credit; failures and cached results cost nothing. The same capture is an MCP tool at `/mcp`. ' +
        'The README (`/README.md`) has the details; a playground is at `/`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The server that serves this document.' }],
    tags: [{ name: 'capture', description: 'Screenshots of pages and markup.' }],
    security: [{ bearer: [] }],
    paths: {
      '/v1/screenshot': {
        get: {
          operationId: 'getSignedScreenshot',
          tags: ['capture'],
          summary: 'A signed render link: the options in the query, no API key',
          description:
            'For `og:image` tags, link previews and CDNs (docs/signed-links.md): the options of the JSON body flattened into the query ' +
            '(`viewport.width=1200`, arrays as repeated names), plus `keyId`, `expires` and `signature`. The signing key is billed; failures ' +
            'and cached captures are free. Answers are public (`Cache-Control: public, max-age=..., immutable`) and carry no balance.',
          security: [],
          parameters: [...linkQueryParameters(), IF_NONE_MATCH],
          responses: { ...imageResponses('CacheControlPublic', false), ...errorResponses(NOT_FROM_LINKS) },
        },
        post: {
          operationId: 'takeScreenshot',
          tags: ['capture'],
          summary: 'Render a page (url) or markup (html) and return the image',
          description:
            'Synchronous (spec §4.1): the response body is the image itself. Every malformed field is named in one 400 message. ' +
            'Failed requests are never billed.',
          parameters: [
            {
              name: 'Cache-Control',
              in: 'header',
              required: false,
              description: 'url mode: `no-cache` (or `max-age=0`) renders afresh and stores the result; `no-store` renders afresh and stores nothing.',
              schema: { type: 'string', examples: ['no-cache'] },
            },
            IF_NONE_MATCH,
          ],
          requestBody: ref('requestBodies', 'ScreenshotRequest'),
          responses: { ...imageResponses('CacheControlPrivate', true), ...errorResponses(NOT_FROM_CAPTURE) },
        },
      },
      [DEVICES_PATH]: devicesPathItem(header('RequestId')),
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'The API key: `Authorization: Bearer <API_KEY>` (spec §5).' },
      },
      requestBodies: {
        ScreenshotRequest: {
          required: true,
          description: 'What to capture and how. Exactly one of `url` and `html`; every other field is optional and has the default shown.',
          content: { 'application/json': { schema: publicSchema() } },
        },
      },
      headers: HEADERS,
      schemas: {
        Error: {
          type: 'object',
          description: 'Every failure (spec §2.4, §7). `message` names the field at fault and never quotes the request.',
          required: ['error', 'message'],
          properties: {
            error: { type: 'string', enum: Object.keys(ERROR_CATALOGUE).filter((c) => !NEVER_SENT.includes(c as ErrorCode)), description: 'Machine-readable code (docs/api.md "Errors").' },
            message: { type: 'string', description: 'What went wrong, for a person.' },
          },
        },
      },
    },
  };
}
