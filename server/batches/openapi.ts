// The batch routes in GET /openapi.json: the batch body from the schema that validates it
// (./schema.ts: the capture request's fields, defaults and rules per item), the answers' shapes,
// and the picture route with a capture's response headers (passed in by server/http/openapi.ts,
// which owns them).
import { publicSchema } from '../request/schema.ts';
import { publicBatchSchema } from './schema.ts';
import { BATCHES_PATH, WEBHOOK_SECRET_PATH } from './validate.ts';

type Json = Record<string, unknown>;

/** One attempt to deliver a webhook event: a row of webhook_deliveries (server/batches/sql.ts, deliveriesOf), as the batch lists it. */
const DELIVERY_SCHEMA = {
  type: 'object',
  required: ['event_id', 'type', 'attempt', 'outcome', 'at'],
  properties: {
    event_id: { type: 'string', description: "The event's `webhook-id`, the same on every attempt: receivers drop duplicates by it." },
    type: { type: 'string', enum: ['capture.succeeded', 'capture.failed', 'batch.completed'] },
    idx: { type: ['integer', 'null'], minimum: 0, description: 'The item the event is about; null for batch.completed.' },
    attempt: { type: 'integer', minimum: 1 },
    status: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when there was no answer (refused, timed out, blocked)." },
    outcome: {
      type: 'string',
      enum: ['delivered', 'failed', 'gave_up', 'blocked'],
      description:
        '`failed`: this attempt failed, and another follows after a backoff while retries remain; `gave_up`: the last retry failed; `blocked`: the URL failed the egress guard (not retried).',
    },
    error: { type: ['string', 'null'] },
    at: { type: 'string', format: 'date-time' },
  },
} as const;

const BATCH_SCHEMA = {
  type: 'object',
  description: 'A batch (docs/batches.md): its state, counts, items and webhook attempts.',
  required: ['id', 'state', 'counts', 'items'],
  properties: {
    id: { type: 'string' },
    state: { type: 'string', enum: ['queued', 'running', 'done', 'cancelled'] },
    counts: {
      type: 'object',
      properties: Object.fromEntries(['total', 'succeeded', 'failed', 'cancelled', 'pending'].map((k) => [k, { type: 'integer', minimum: 0 }])),
    },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'state'],
        properties: {
          index: { type: 'integer', minimum: 0 },
          state: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] },
          status: { type: 'integer', description: 'The HTTP status the synchronous call would have answered.' },
          error: { type: 'string' },
          message: { type: 'string' },
          facts: {
            type: 'object',
            description: "The capture's facts as JSON members (what the synchronous answer's headers say: credits, cache, bannerAction, targetStatus...).",
          },
          credits: { type: 'integer', minimum: 0, maximum: 1 },
          runs: { type: 'integer', minimum: 0 },
          link: { type: 'string', description: 'GET it for the picture.' },
          expiresAt: { type: 'string', format: 'date-time' },
        },
      },
    },
    createdAt: { type: 'string', format: 'date-time' },
    completedAt: { type: 'string', format: 'date-time', description: 'When no item was left pending (done, or cancelled and the running ones finished).' },
    webhook: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        deliveries: { type: 'array', description: 'Every attempt to deliver an event, oldest first.', items: DELIVERY_SCHEMA },
      },
    },
  },
} as const;

/** The path items of the batch routes; `errors` are the error answers of an authenticated JSON route (`itemErrors` with 410), `picture` the capture's 200. */
export function batchPathItems(errors: Json, itemErrors: Json, picture: Json): Json {
  const json = (description: string, schema: Json) => ({ description, content: { 'application/json': { schema } } });
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  return {
    [BATCHES_PATH]: {
      post: {
        operationId: 'submitBatch',
        tags: ['batches'],
        summary: 'Queue 1 to 1,000 captures; their pictures wait in storage, a signed webhook says when each is done',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: publicBatchSchema(publicSchema(undefined, { groups: true })),
            },
          },
        },
        responses: {
          '202': json('Accepted: the batch is queued (`Location` names it).', {
            type: 'object',
            properties: { id: { type: 'string' }, state: { const: 'queued' }, total: { type: 'integer' }, link: { type: 'string' } },
          }),
          ...errors,
        },
      },
    },
    [`${BATCHES_PATH}/{id}`]: {
      get: {
        operationId: 'getBatch',
        tags: ['batches'],
        summary: 'A batch: state, counts, items',
        parameters: [id],
        responses: { '200': json('The batch.', BATCH_SCHEMA), ...errors },
      },
      delete: {
        operationId: 'cancelBatch',
        tags: ['batches'],
        summary: 'Cancel the items not started (never billed)',
        parameters: [id],
        responses: { '200': json('The batch after the cancel.', BATCH_SCHEMA), ...errors },
      },
    },
    [`${BATCHES_PATH}/{id}/items/{index}`]: {
      get: {
        operationId: 'getBatchItem',
        tags: ['batches'],
        summary: "An item's picture, with a synchronous capture's headers (410 after its retention)",
        parameters: [id, { name: 'index', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } }],
        responses: { ...picture, ...itemErrors },
      },
    },
    [WEBHOOK_SECRET_PATH]: {
      get: {
        operationId: 'getWebhookSecret',
        tags: ['batches'],
        summary: "The secret that signs the calling key's webhooks (each key its own; verify deliveries with it)",
        responses: {
          '200': json("The calling key's secret, never another key's (`Cache-Control: no-store`).", {
            type: 'object',
            required: ['keyId', 'secret'],
            properties: {
              keyId: { type: 'string', description: 'The id of the key that called (as `npm run keys list` shows it).' },
              secret: { type: 'string', pattern: '^whsec_', description: 'A Standard Webhooks secret: `whsec_` + base64.' },
            },
          }),
          ...errors,
        },
      },
    },
  };
}
