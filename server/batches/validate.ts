// A batch request: `{requests: [...], webhook?: {url}}`, checked in one pass against the batch
// schema (./schema.ts, built around the capture request's), so every bad field of every request
// is named by position (`requests[3].viewport.width must be ...`) in one 400. Then each request
// goes through the capture's own validation for what a schema cannot say (html's bytes).
import { badRequest, ServiceError } from '../errors.ts';
import { SCREENSHOT_FIELDS, compileBodyCheck, validateRequest } from '../request/validate.ts';
import { batchRequestSchema } from './schema.ts';

export const BATCHES_PATH = '/v1/batches';
/** The route table's paths of one batch and one item's picture (Express's `:name` parameters). */
export const BATCH_PATH = `${BATCHES_PATH}/:id`;
export const BATCH_ITEM_PATH = `${BATCHES_PATH}/:id/items/:index`;
/** The caller's own webhook signing secret (server/webhooks/secrets.ts). */
export const WEBHOOK_SECRET_PATH = '/v1/webhook-secret';
export const batchPath = (id: string) => `${BATCHES_PATH}/${id}`;
export const batchItemPath = (id: string, index: number) => `${batchPath(id)}/items/${index}`;

const check = compileBodyCheck(batchRequestSchema);

export interface BatchBody {
  /** The requests as sent: each is validated again, with its defaults, when its item runs. */
  requests: Record<string, unknown>[];
  webhook: { url: string } | null;
}

/** A message of the capture's validation, said of `requests[i]`. */
function named(i: number, message: string): string {
  const at = `requests[${i}]`;
  const first = /^[A-Za-z]+/.exec(message)?.[0];
  return first && SCREENSHOT_FIELDS.includes(first) ? `${at}.${message}` : `${at}: ${message}`;
}

export function validateBatch(body: unknown): BatchBody {
  check(body); // a copy with defaults: the requests are kept as sent (see BatchBody)
  const { requests, webhook } = body as { requests: Record<string, unknown>[]; webhook?: { url: string } };
  const errors: string[] = [];
  requests.forEach((r, i) => {
    try {
      validateRequest(r);
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      for (const m of e.message.split('; ')) errors.push(named(i, m));
    }
  });
  if (errors.length) throw badRequest(errors.join('; '));
  return { requests, webhook: webhook ? { url: webhook.url } : null };
}
