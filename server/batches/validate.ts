// A batch request: `{requests: [...], webhook?: {url}}`. Each request is checked by the one
// capture schema (server/request/validate.ts) with its own messages, named by position
// (`requests[3].viewport.width must be ...`); every bad field of every request in one 400.
import { badRequest, ServiceError } from '../errors.ts';
import { SCREENSHOT_FIELDS, validateRequest } from '../request/validate.ts';

export const BATCH_MAX_ITEMS = 1000;
export const BATCHES_PATH = '/v1/batches';
/** The route table's paths of one batch and one item's picture (Express's `:name` parameters). */
export const BATCH_PATH = `${BATCHES_PATH}/:id`;
export const BATCH_ITEM_PATH = `${BATCHES_PATH}/:id/items/:index`;
/** The caller's own webhook signing secret (server/webhooks/secrets.ts). */
export const WEBHOOK_SECRET_PATH = '/v1/webhook-secret';
export const batchPath = (id: string) => `${BATCHES_PATH}/${id}`;
export const batchItemPath = (id: string, index: number) => `${batchPath(id)}/items/${index}`;

export interface BatchBody {
  /** The requests as sent: each is validated again, with its defaults, when its item runs. */
  requests: Record<string, unknown>[];
  webhook: { url: string } | null;
}

/** A message of the capture schema, said of `requests[i]`. */
function named(i: number, message: string): string {
  const at = `requests[${i}]`;
  if (message.startsWith('body ')) return `${at} ${message.slice(5)}`;
  const first = /^[A-Za-z]+/.exec(message)?.[0];
  return first && SCREENSHOT_FIELDS.includes(first) ? `${at}.${message}` : `${at}: ${message}`;
}

export function validateBatch(body: unknown): BatchBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('body must be a JSON object');
  const { requests, webhook, ...rest } = body as Record<string, unknown>;
  const errors: string[] = Object.keys(rest).map((k) => `${k.length > 40 ? 'a field' : k} is not a field of a batch (requests, webhook)`);
  if (!Array.isArray(requests) || requests.length < 1 || requests.length > BATCH_MAX_ITEMS)
    errors.push(`requests must be an array of 1 to ${BATCH_MAX_ITEMS} capture requests`);
  else
    requests.forEach((r, i) => {
      try {
        validateRequest(r);
      } catch (e) {
        if (!(e instanceof ServiceError)) throw e;
        for (const m of e.message.split('; ')) errors.push(named(i, m));
      }
    });
  let hook: BatchBody['webhook'] = null;
  if (webhook !== undefined) {
    const url = (webhook as { url?: unknown } | null)?.url;
    const only = webhook !== null && typeof webhook === 'object' && !Array.isArray(webhook) && Object.keys(webhook).every((k) => k === 'url');
    if (!only || typeof url !== 'string' || url.length > 2048 || !/^https?:\/\//i.test(url) || !URL.canParse(url))
      errors.push('webhook.url must be an absolute http(s) URL of at most 2048 characters (webhook has no other field)');
    else hook = { url };
  }
  if (errors.length) throw badRequest(errors.join('; '));
  return { requests: requests as Record<string, unknown>[], webhook: hook };
}
