// The batch request's JSON Schema, `{requests: [...], webhook?: {url}}`, built around the capture
// request's (server/request/schema.ts, the one source): each item is a capture request with every
// field and cross-field rule as they are. Validation (./validate.ts, by ajv) and what clients see
// (GET /openapi.json by ./openapi.ts, the MCP tool submit_batch) derive from this one object, so
// the bounds a client reads are the bounds the endpoint enforces.
import { publicSchema, screenshotRequestSchema } from '../request/schema.ts';

export const BATCH_MAX_ITEMS = 1000;
/** A webhook URL's length in characters: stored with the batch and signed into every event. */
export const WEBHOOK_URL_MAX_CHARS = 2048;

const captureRequest = {
  type: 'object',
  properties: screenshotRequestSchema.properties,
  allOf: screenshotRequestSchema.allOf,
  'x-rule': 'an object: a capture request',
} as const;

export const batchRequestSchema = {
  $id: 'BatchRequest',
  type: 'object',
  required: ['requests'],
  additionalProperties: false,
  'x-rule': 'an object of requests and, optionally, webhook (a batch has no other field)',
  properties: {
    requests: {
      type: 'array',
      minItems: 1,
      maxItems: BATCH_MAX_ITEMS,
      items: captureRequest,
      description: 'The capture requests, each a body of POST /v1/screenshot.',
      'x-rule': `an array of 1 to ${BATCH_MAX_ITEMS} capture requests`,
    },
    webhook: {
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      description: 'Where signed events (Standard Webhooks) are posted: capture.succeeded or capture.failed per item, batch.completed once.',
      'x-rule': 'an object with url alone',
      properties: {
        // `format: uri` is what the service's ajv reads as an absolute http(s) URL with a host.
        url: {
          type: 'string',
          format: 'uri',
          maxLength: WEBHOOK_URL_MAX_CHARS,
          'x-rule': `an absolute http(s) URL of at most ${WEBHOOK_URL_MAX_CHARS} characters`,
        },
      },
    },
  },
} as const;

type Json = Record<string, unknown>;

/**
 * The batch body as a client sees it (annotations stripped), each item shown as the caller shows
 * a capture request: OpenAPI's (with its groups for forms) or the MCP tool's (cross-field rules in
 * words, as tool schemas cannot carry allOf). The envelope, bounds and webhook, is the schema's.
 */
export function publicBatchSchema(item: Json): { type: 'object'; required: string[]; additionalProperties: false; properties: Record<string, Json> } {
  const envelope = publicSchema(batchRequestSchema) as { type: 'object'; required: string[]; additionalProperties: false; properties: { requests: Json } };
  return {
    ...envelope,
    properties: { ...envelope.properties, requests: { ...envelope.properties.requests, items: item } },
  };
}
