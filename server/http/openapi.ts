// GET /openapi.json, generated from the one request schema (server/request/schema.ts), the one
// error catalogue (server/errors.ts) and the response registry (server/response/): a new request
// field, error code or response header appears here without an edit. Checked by
// test/api/openapi.test.ts: clean under Redocly's `recommended` rules, and a client generated from
// it with openapi-typescript + openapi-fetch compiles and runs.
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
// - A 304 lists the headers it carries, which are those of the 200 but Content-Disposition: the
//   capture's facts describe the same picture, whether sent with it or not.
import { batchPathItems } from '../batches/openapi.ts';
import { comparePathItem, compareRequestBody } from '../compare/openapi.ts';
import { DEVICES_PATH, devicesPathItem } from '../emulation/route.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.ts';
import { linkQueryParameters } from '../links/openapi.ts';
import { REQUEST_HEADERS } from '../kinds/headers.ts';
import { publicSchema } from '../request/schema.ts';
import type { Audience } from '../response/facts.ts';
import { openApiHeaders } from '../response/openapi.ts';
import { CONTENT_TYPES } from '../kinds/image.ts';

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
  result_expired: 'batch item pictures only',
};

/** Codes a signed link (GET /v1/screenshot) never gets. */
const NOT_FROM_LINKS: Partial<Record<ErrorCode, string>> = {
  ...NOT_FROM_REQUESTS,
  unauthorized: 'no Authorization header: the signature stands for the key',
  unsupported_media_type: 'no body',
  payload_too_large: 'a URL cannot hold that much',
  result_expired: 'batch item pictures only',
};

/** Codes no client ever receives. */
const NEVER_SENT: readonly ErrorCode[] = ['client_closed'];

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const IMAGE_TYPES = Object.values(CONTENT_TYPES);

const param = (h: { name: string; description: string }, examples?: string[]) => ({
  name: h.name,
  in: 'header',
  required: false,
  description: h.description,
  schema: { type: 'string', ...(examples ? { examples } : {}) },
});

type Headers = ReturnType<typeof openApiHeaders>;

/** The image answer and its 304, with the headers the registry sends to this audience. */
function imageResponses(headers: Headers, audience: Audience['kind']) {
  return {
    '200': {
      description: 'The image, in the requested format.',
      headers: headers.capture(audience, 'image'),
      content: Object.fromEntries(IMAGE_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary', contentMediaType: t } }])),
    },
    '304': { description: "Not Modified: If-None-Match has this image's ETag. No body.", headers: headers.capture(audience, 'not-modified') },
  };
}

function errorResponses(headers: Headers, exclude: Partial<Record<ErrorCode, string>>) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [code, { status }] of Object.entries(ERROR_CATALOGUE) as [ErrorCode, { status: number }][]) {
    if (code in exclude) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: codes.map((c) => `\`${c}\`: ${ERROR_CATALOGUE[c].when}`).join('. '),
          headers: headers.error(codes),
          content: { 'application/json': { schema: ref('schemas', 'Error') } },
        },
      ]),
  );
}

export function openApiDocument() {
  const headers = openApiHeaders();
  const paths = {
    '/v1/screenshot': {
      get: {
        operationId: 'getSignedScreenshot',
        tags: ['capture'],
        summary: 'A signed render link: the options in the query, no API key',
        description:
          'For `og:image` tags, link previews and CDNs (README "Signed links"): the options of the JSON body flattened into the query ' +
          '(`viewport.width=1200`, arrays as repeated names), plus `keyId`, `expires` and `signature`. The signing key is billed; failures ' +
          'and cached captures are free. Answers are public (`Cache-Control: public, max-age=..., immutable`) and carry no balance.',
        security: [],
        parameters: [...linkQueryParameters(), param(REQUEST_HEADERS.ifNoneMatch)],
        responses: { ...imageResponses(headers, 'public'), ...errorResponses(headers, NOT_FROM_LINKS) },
      },
      post: {
        operationId: 'takeScreenshot',
        tags: ['capture'],
        summary: 'Render a page (url) or markup (html) and return the image',
        description:
          'Synchronous (spec §4.1): the response body is the image itself. Every malformed field is named in one 400 message. ' +
          'Failed requests are never billed.',
        parameters: [param(REQUEST_HEADERS.cacheControl, ['no-cache']), param(REQUEST_HEADERS.ifNoneMatch)],
        requestBody: ref('requestBodies', 'ScreenshotRequest'),
        responses: { ...imageResponses(headers, 'private'), ...errorResponses(headers, NOT_FROM_CAPTURE) },
      },
    },
    ...comparePathItem(headers, { post: errorResponses(headers, NOT_FROM_CAPTURE), get: errorResponses(headers, NOT_FROM_LINKS) }),
    [DEVICES_PATH]: devicesPathItem(headers.other()),
    ...batchPathItems(
      errorResponses(headers, NOT_FROM_CAPTURE),
      errorResponses(headers, Object.fromEntries(Object.entries(NOT_FROM_CAPTURE).filter(([c]) => c !== 'result_expired'))),
      imageResponses(headers, 'private'),
    ),
  };
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
    tags: [
      { name: 'capture', description: 'Screenshots of pages and markup.' },
      { name: 'compare', description: 'A capture compared with a baseline (visual monitoring).' },
      { name: 'batches', description: 'Many captures as durable jobs, with signed webhooks (docs/batches.md).' },
    ],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'The API key: `Authorization: Bearer <API_KEY>` (spec §5).' },
      },
      requestBodies: {
        ScreenshotRequest: {
          required: true,
          description: 'What to capture and how. Exactly one of `url` and `html`; every other field is optional and has the default shown.',
          content: { 'application/json': { schema: publicSchema(undefined, { groups: true }) } },
        },
        CompareRequest: compareRequestBody(),
      },
      headers: headers.components(),
      schemas: {
        Error: {
          type: 'object',
          description: 'Every failure (spec §2.4, §7). `message` names the field at fault and never quotes the request.',
          required: ['error', 'message'],
          properties: {
            error: {
              type: 'string',
              enum: Object.keys(ERROR_CATALOGUE).filter((c) => !NEVER_SENT.includes(c as ErrorCode)),
              description: 'Machine-readable code (docs/api.md "Errors").',
            },
            message: { type: 'string', description: 'What went wrong, for a person.' },
          },
        },
      },
    },
  };
}
