// The compare request's JSON Schema, derived from the capture request's (server/request/schema.ts,
// the one source): every capture field and cross-field rule as they are, plus `baseline` (a
// previous picture, or a second capture request with that same schema) and the comparison's
// fields (./fields.ts). Validation (./validate.ts), GET /openapi.json, the MCP tool and the
// playground's form derive from it.
import type { FromSchema } from 'json-schema-to-ts';
import { inGroup } from '../request/groups.ts';
import { publicSchema, screenshotRequestSchema } from '../request/schema.ts';
import { baselineImageField, comparisonFields } from './fields.ts';

const captureSchema = { type: 'object', properties: screenshotRequestSchema.properties, allOf: screenshotRequestSchema.allOf } as const;

const baselineField = {
  type: 'object',
  description:
    "What the capture is compared with: `image`, a previous picture, or `request`, a second capture request (the same fields as this one's), rendered now.",
  'x-rule': 'an object with image or request',
  properties: {
    image: baselineImageField,
    request: {
      ...captureSchema,
      title: 'capture request',
      description: 'A capture request rendered now as the baseline (staging against production, before against after). Billed as a capture.',
      'x-rule': 'an object: a capture request',
    },
  },
  allOf: [
    { anyOf: [{ required: ['image'] }, { required: ['request'] }], 'x-message': 'one of image and request is required' },
    { not: { required: ['image', 'request'] }, 'x-message': 'give one of image and request, not both' },
  ],
} as const;

const properties = { ...screenshotRequestSchema.properties, ...inGroup('comparison', { baseline: baselineField, ...comparisonFields }) } as const;

export const compareRequestSchema = {
  $id: 'CompareRequest',
  title: 'CompareRequest',
  description: 'A capture request (every field of POST /v1/screenshot) plus the baseline to compare its picture with, and how to compare.',
  type: 'object',
  properties,
  allOf: [...screenshotRequestSchema.allOf, { required: ['baseline'], 'x-message': 'baseline is required: {"image": "<base64>"} or {"request": {...}}' }],
} as const;

/** The fields a compare request has besides a capture request's. */
export const COMPARE_FIELDS: readonly string[] = ['baseline', ...Object.keys(comparisonFields)];

const shape = { type: 'object', properties: comparisonFields } as const;
/** The comparison's options after defaults. */
export type ComparisonOptions = FromSchema<typeof shape>;

/** The cross-field rules in words (tool schemas cannot carry allOf). */
export const COMPARE_RULES: readonly string[] = [
  ...compareRequestSchema.allOf.map((r) => r['x-message']),
  ...baselineField.allOf.map((r) => `baseline: ${r['x-message']}`),
  'baseline.request: the same rules as the capture request',
];

/** The schema as clients see it (annotations stripped, as publicSchema does for captures). */
export function publicCompareSchema(options: { groups?: boolean } = {}): Record<string, unknown> {
  return publicSchema(compareRequestSchema, options);
}
