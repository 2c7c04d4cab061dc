// /v1/compare in GET /openapi.json: POST with the compare request (./schema.ts), GET as a signed
// link whose parameters are the capture's, the comparison's and the baseline request's under
// `baseline.request.` (./link.ts). The answer: the diff picture or its JSON (./route.ts).
import { fieldParameters, linkParameters } from '../links/openapi.ts';
import { publicSchema } from '../request/schema.ts';
import type { Audience } from '../response/facts.ts';
import type { openApiHeaders } from '../response/openapi.ts';
import { comparisonFields } from './fields.ts';
import { COMPARE_PATH } from './link.ts';
import { publicCompareSchema } from './schema.ts';

type Headers = ReturnType<typeof openApiHeaders>;
type Json = Record<string, any>;

const size = { type: 'object', required: ['width', 'height'], properties: { width: { type: 'integer', minimum: 1 }, height: { type: 'integer', minimum: 1 } } };
const rect = {
  type: 'object',
  required: ['x', 'y', 'width', 'height'],
  properties: { x: { type: 'integer' }, y: { type: 'integer' }, width: { type: 'integer' }, height: { type: 'integer' } },
};
const picture = (what: string) => ({
  type: 'object',
  description: what,
  required: ['mimeType', 'data'],
  properties: { mimeType: { type: 'string' }, data: { type: 'string', contentEncoding: 'base64' } },
});

/** The JSON answer (Accept: application/json): the figures of the headers, and the pictures. */
export const COMPARISON_SCHEMA = {
  type: 'object',
  description: "The comparison's figures (the same as the x-diff-* headers) with the diff picture and the current capture in base64.",
  required: ['diffPixels', 'ratio', 'regions', 'regionCount', 'width', 'height', 'current', 'baseline', 'masks', 'credits', 'diff', 'capture'],
  properties: {
    diffPixels: { type: 'integer', minimum: 0, description: 'Differing pixels outside the masks.' },
    ratio: { type: 'number', minimum: 0, maximum: 1, description: 'diffPixels over the compared area.' },
    regions: { type: 'array', items: rect, description: 'The changed regions (at most 50, the largest), in reading order.' },
    regionCount: { type: 'integer', minimum: 0, description: 'How many changed regions there were.' },
    width: { type: 'integer', description: 'The compared area (and diff picture): the larger width of the two pictures.' },
    height: { type: 'integer', description: 'The larger height of the two pictures.' },
    current: {
      ...size,
      description: 'The current capture: its size, whether it came from the cache, its format.',
      properties: { ...size.properties, cache: { type: 'string', enum: ['hit', 'miss'] }, format: { type: 'string' } },
    },
    baseline: {
      ...size,
      description: "The baseline: its size; `image: true` for a picture sent, else its capture's cache and format.",
      properties: { ...size.properties, image: { type: 'boolean' }, cache: { type: 'string', enum: ['hit', 'miss'] }, format: { type: 'string' } },
    },
    masks: { type: 'integer', minimum: 0, description: 'Rectangles masked: ignoreRegions and the boxes ignoreSelectors matched.' },
    cacheTtl: { type: 'integer', minimum: 0 },
    credits: {
      type: 'object',
      properties: { charged: { type: 'integer', minimum: 0, maximum: 2 }, remaining: { type: 'integer', minimum: 0, description: 'Not on signed links.' } },
      required: ['charged'],
    },
    diff: picture('The diff picture, PNG.'),
    capture: picture('The current capture, in its format: keep it as the next baseline.'),
  },
} as const;

/** The request body component. */
export function compareRequestBody() {
  return {
    required: true,
    description: "A capture request plus `baseline` (a picture, or a second capture request) and the comparison's options.",
    content: { 'application/json': { schema: publicCompareSchema({ groups: true }) } },
  };
}

/** The path item; `errors` are the error responses of a POST and of a link, as the capture's. */
export function comparePathItem(headers: Headers, errors: { post: Json; get: Json }) {
  const ok = (audience: Audience['kind']) => ({
    description:
      'The diff picture (PNG: the current capture in grey, changed pixels red, masks blue, regions outlined), or on `Accept: application/json` the figures and the pictures.',
    headers: headers.compare(audience),
    content: {
      'image/png': { schema: { type: 'string', format: 'binary', contentMediaType: 'image/png' } },
      'application/json': { schema: COMPARISON_SCHEMA },
    },
  });
  const fields = publicSchema().properties as Json;
  const own = publicSchema({ type: 'object', properties: comparisonFields }).properties as Json;
  return {
    [COMPARE_PATH]: {
      post: {
        operationId: 'compareScreenshot',
        tags: ['compare'],
        summary: 'Capture a page and compare it with a baseline',
        description:
          'Visual monitoring (docs/compare.md): the capture of POST /v1/screenshot compared with `baseline.image` (a previous picture) or ' +
          '`baseline.request` (a second capture, rendered now). Each capture rendered costs one credit, a cached one nothing; the comparison ' +
          'is free; a failure, of either capture or of the comparison, costs nothing.',
        requestBody: { $ref: '#/components/requestBodies/CompareRequest' },
        responses: { '200': ok('private'), ...errors.post },
      },
      get: {
        operationId: 'getSignedComparison',
        tags: ['compare'],
        summary: 'A signed comparison link: the options in the query, no API key',
        description:
          "For dashboards that embed the diff picture: the capture's and the comparison's options in the query as for capture links, the " +
          'baseline as a second request under `baseline.request.` (a picture cannot travel in a link), plus `keyId`, `expires` and ' +
          `\`signature\`, signed over \`${COMPARE_PATH}?\`. Answers are public and carry no balance.`,
        security: [],
        parameters: [...fieldParameters({ ...fields, ...own }), ...fieldParameters(fields, 'baseline.request.'), ...linkParameters(COMPARE_PATH)],
        responses: { '200': ok('public'), ...errors.get },
      },
    },
  };
}
