// The MCP tools of batches (server/batches/, docs/batches.md): `submit_batch` (POST /v1/batches)
// and `get_batch` (GET /v1/batches/{id}, or one item of it with its picture's link). The same batch
// service as REST (validation by position, the credits check, the egress guard of webhook.url, the
// owner alone sees a batch), and the input schema of submit_batch is the REST body's
// (server/batches/schema.ts) around take_screenshot's input schema. The answers: one text block
// for the model, the REST answer's JSON as data in `_meta["screenshot-service/batch"]`. Failure:
// as take_screenshot's, "<error code>: <message>".
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Account } from '../accounts/index.ts';
import type { BatchJson, BatchService } from '../batches/service.ts';
import { BATCH_MAX_ITEMS, publicBatchSchema } from '../batches/schema.ts';
import { ServiceError } from '../errors.ts';
import { failure, toolInputSchema, type CallContext } from './tool.ts';

export const SUBMIT_BATCH_TOOL = 'submit_batch';
export const GET_BATCH_TOOL = 'get_batch';
export const BATCH_META_KEY = 'screenshot-service/batch';

export function batchToolDefinitions(): Tool[] {
  return [
    {
      name: SUBMIT_BATCH_TOOL,
      title: 'Queue many screenshots',
      description:
        `Queue 1 to ${BATCH_MAX_ITEMS.toLocaleString('en-US')} captures, each one take_screenshot's arguments, to be rendered in the background. ` +
        'Returns the batch id at once; read its progress and its pictures with get_batch. The whole batch is accepted or refused ' +
        '(a bad field is named by position: requests[3].viewport.width). Each item that succeeds costs one credit, a cached one ' +
        'nothing, a failed or cancelled one nothing; a batch needing more credits than the key has is refused.',
      inputSchema: { ...publicBatchSchema(toolInputSchema()), description: 'The arguments are the JSON body of POST /v1/batches.' },
      annotations: { title: 'Queue many screenshots', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    {
      name: GET_BATCH_TOOL,
      title: 'Read a batch of screenshots',
      description:
        "A batch's state (queued, running, done, cancelled), its counts and each item's state, HTTP status and error; with `index`, " +
        'that item alone and the link of its picture (GET it with the same key; it answers as POST /v1/screenshot would).',
      inputSchema: {
        type: 'object',
        required: ['id'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', description: 'The id submit_batch answered (bat_...).' },
          index: { type: 'integer', minimum: 0, maximum: BATCH_MAX_ITEMS - 1, description: 'One item (0-based, the position in requests).' },
        },
      },
      annotations: { title: 'Read a batch of screenshots', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
  ];
}

export interface BatchCallContext extends CallContext {
  batches: BatchService;
}

export async function callBatchTool(name: string, args: Record<string, unknown> | undefined, ctx: BatchCallContext): Promise<CallToolResult> {
  try {
    if (name === SUBMIT_BATCH_TOOL) {
      const accepted = await ctx.batches.submit(ctx.account as Account, args ?? {});
      return {
        content: [
          {
            type: 'text',
            text: `Batch ${accepted.id} queued: ${accepted.total} capture(s). Call ${GET_BATCH_TOOL} with id ${JSON.stringify(accepted.id)} for its progress and pictures.`,
          },
        ],
        _meta: { [BATCH_META_KEY]: accepted },
      };
    }
    const { id, index } = args ?? {};
    if (typeof id !== 'string') throw new ServiceError('bad_request', 'id must be the string submit_batch answered');
    if (index !== undefined && (typeof index !== 'number' || !Number.isInteger(index) || index < 0))
      throw new ServiceError('bad_request', 'index must be an integer of at least 0');
    const batch = await ctx.batches.read(ctx.account as Account, id);
    if (index === undefined) return { content: [{ type: 'text', text: describeBatch(batch) }], _meta: { [BATCH_META_KEY]: batch } };
    const item = batch.items.find((i) => i.index === index);
    if (!item) throw new ServiceError('not_found', `the batch has no item ${index} (items are 0 to ${batch.counts.total - 1})`);
    return { content: [{ type: 'text', text: describeItem(item) }], _meta: { [BATCH_META_KEY]: { id: batch.id, state: batch.state, item } } };
  } catch (e) {
    return failure(e, ctx, name === SUBMIT_BATCH_TOOL ? 'Nothing was queued or charged.' : 'Nothing was charged.');
  }
}

type ItemJson = BatchJson['items'][number];

function describeItem(i: ItemJson): string {
  const what = `Item ${i.index}: ${i.state}`;
  if (i.state === 'succeeded')
    return `${what} (HTTP ${i.status}, ${i.credits} credit). Picture: GET ${i.link} with the same key, until ${new Date(i.expiresAt!).toISOString()}.`;
  if (i.state === 'failed') return `${what}: ${i.error}: ${i.message} (HTTP ${i.status}; not charged).`;
  return `${what}.`;
}

function describeBatch(b: BatchJson): string {
  const c = b.counts;
  const failed = b.items.filter((i) => i.state === 'failed');
  return [
    `Batch ${b.id}: ${b.state}. ${c.total} item(s): ${c.succeeded} succeeded, ${c.failed} failed, ${c.cancelled} cancelled, ${c.pending} pending.`,
    ...failed.slice(0, 10).map((i) => `Item ${i.index} failed: ${i.error}: ${i.message}`),
    failed.length > 10 ? `(${failed.length - 10} more failed; see _meta.)` : '',
    c.succeeded > 0 ? `Pictures: ${GET_BATCH_TOOL} with an index gives an item's link.` : '',
  ]
    .filter(Boolean)
    .join('\n');
}
