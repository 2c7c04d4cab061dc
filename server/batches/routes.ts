// The batch routes (mounted by server/start.ts before the catch-all 404):
//   POST   /v1/batches                       202 + Location, or one 400 naming every bad field
//   GET    /v1/batches/{id}                  the batch: state, counts, items, webhook attempts
//   GET    /v1/batches/{id}/items/{index}    an item's picture, with a synchronous capture's headers
//   DELETE /v1/batches/{id}                  cancels the items not started (never billed)
// Only the key's account that made a batch sees it: any other gets 404, as for a batch that does
// not exist. Credits: a batch is refused up front (402) when the key's spendable credits cannot
// cover every item; an item that finds them spent meanwhile fails with insufficient_credits.
import { randomBytes } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { PgBoss } from 'pg-boss';
import type { SqlLedger } from '../accounts/ledger.ts';
import { badRequest, ServiceError } from '../errors.ts';
import { sendCapture } from '../edge/send-capture.ts';
import { REQUEST_HEADER } from '../request/headers.ts';
import { mcpFacts } from '../response/write.ts';
import type { ResultStore } from '../results/index.ts';
import type { Db } from '../store/index.ts';
import { inTx, ITEM_QUEUE, jobIdOf } from './queue.ts';
import type { Runner } from './runner.ts';
import { batchOf, cancelBatch, deliveriesOf, insertBatch, itemOf, itemsOf, stateOf, type BatchRow, type ItemRow } from './sql.ts';
import { BATCHES_PATH, validateBatch } from './validate.ts';
import { createHash } from 'node:crypto';

export interface RoutesDeps {
  /** The Bearer authentication of every route (server/http/auth.ts), and the JSON body limit. */
  auth: RequestHandler;
  bodyLimitBytes: number;
  db: Db;
  accounts: SqlLedger;
  /** The queue and its workers, started on first use (index.ts). */
  queue(): Promise<{ boss: PgBoss; runner: Runner }>;
  results: ResultStore;
  checkUrl(url: string): Promise<string>;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function requireJson(req: Request, _res: Response, next: NextFunction) {
  if (!/^application\/json\s*(;|$)/i.test(req.get(REQUEST_HEADER.contentType) ?? ''))
    throw new ServiceError('unsupported_media_type', 'Content-Type must be application/json');
  next();
}

function itemJson(batchId: string, i: ItemRow) {
  return {
    index: i.idx,
    state: i.state,
    ...(i.status !== null ? { status: i.status } : {}),
    ...(i.error ? { error: i.error, message: i.message } : {}),
    ...(i.facts ? { facts: mcpFacts(i.facts) } : {}),
    credits: i.charged,
    runs: i.runs,
    ...(i.state === 'succeeded' ? { link: `${BATCHES_PATH}/${batchId}/items/${i.idx}`, expiresAt: i.expires_at } : {}),
  };
}

async function batchJson(db: Db, b: BatchRow) {
  const items = await itemsOf(db, b.id);
  const count = (...s: string[]) => items.filter((i) => s.includes(i.state)).length;
  const deliveries = b.webhook_url ? await deliveriesOf(db, b.id) : [];
  return {
    id: b.id,
    state: stateOf(b, items),
    createdAt: b.created_at,
    ...(b.completed_at ? { completedAt: b.completed_at } : {}),
    counts: { total: b.total, succeeded: count('succeeded'), failed: count('failed'), cancelled: count('cancelled'), pending: count('queued', 'running') },
    items: items.map((i) => itemJson(b.id, i)),
    ...(b.webhook_url ? { webhook: { url: b.webhook_url, deliveries } } : {}),
  };
}

export function batchRoutes(deps: RoutesDeps): Router {
  const r = Router();
  const auth = deps.auth;
  const owned = async (req: Request, res: Response): Promise<BatchRow> => {
    const b = /^bat_[A-Za-z0-9_-]{1,64}$/.test(String(req.params.id)) ? await batchOf(deps.db, String(req.params.id), res.locals.account.id) : undefined;
    if (!b) throw new ServiceError('not_found', 'no such batch for this key');
    return b;
  };

  r.post(BATCHES_PATH, auth, requireJson, express.json({ limit: deps.bodyLimitBytes, strict: false, type: () => true }), async (req, res) => {
    const account = res.locals.account;
    const body = validateBatch(req.body);
    if (body.webhook) {
      // The same guard as a capture's target, now; and again at every delivery (runner.ts).
      await deps.checkUrl(body.webhook.url).catch((e: unknown) => {
        throw e instanceof ServiceError ? badRequest(`webhook.url is not allowed: ${e.message}`) : e;
      });
    }
    await deps.accounts.checkRateLimit(account); // a batch counts as one request
    const spendable = await deps.accounts.balance(account);
    if (spendable < body.requests.length)
      throw new ServiceError('insufficient_credits', `this batch needs up to ${body.requests.length} credits and the key has ${spendable} to spend`);
    const id = `bat_${randomBytes(12).toString('base64url')}`;
    const { boss } = await deps.queue();
    await deps.db.tx(async (q) => {
      await insertBatch(q, { id, accountId: account.id, keyId: account.keyId ?? null, webhookUrl: body.webhook?.url ?? null, requests: body.requests });
      const jobs = body.requests.map((_, idx) => ({ id: jobIdOf(`item_${id}_${idx}`, sha), data: { batchId: id, idx }, priority: -idx }));
      await boss.insert(ITEM_QUEUE, jobs, { db: inTx(q) });
    });
    const location = `${BATCHES_PATH}/${id}`;
    res.status(202).location(location).json({ id, state: 'queued', total: body.requests.length, link: location });
  });
  r.all(BATCHES_PATH, () => {
    throw new ServiceError('method_not_allowed', 'this route accepts POST only', { allow: 'POST' });
  });

  r.get(`${BATCHES_PATH}/:id`, auth, async (req, res) => void res.json(await batchJson(deps.db, await owned(req, res))));
  r.delete(`${BATCHES_PATH}/:id`, auth, async (req, res) => {
    const b = await owned(req, res);
    if (!b.cancelled_at && !b.completed_at) await cancelBatch(deps.db, b.id);
    await (await deps.queue()).runner.finishIfDone(b.id);
    res.json(await batchJson(deps.db, (await batchOf(deps.db, b.id, b.account_id))!));
  });
  r.get(`${BATCHES_PATH}/:id/items/:index`, auth, async (req, res) => {
    const b = await owned(req, res);
    const idx = /^\d{1,4}$/.test(String(req.params.index)) ? Number(req.params.index) : -1;
    const item = idx >= 0 ? await itemOf(deps.db, b.id, idx) : undefined;
    if (!item) throw new ServiceError('not_found', `the batch has no item ${String(req.params.index).slice(0, 8)} (items are 0 to ${b.total - 1})`);
    if (item.state !== 'succeeded' || !item.facts) throw new ServiceError('not_found', `item ${idx} has no picture: it is ${item.state}`);
    if (item.expires_at && item.expires_at.getTime() < Date.now())
      throw new ServiceError('result_expired', `item ${idx}'s picture was kept until ${item.expires_at.toISOString()}`);
    const stored = item.result ? await deps.results.get(item.result) : undefined;
    if (!stored) throw new ServiceError('result_expired', `item ${idx}'s picture is no longer kept`);
    sendCapture(req, res, { body: stored.body, contentType: stored.contentType, facts: item.facts }, { kind: 'private' });
  });
  r.all(`${BATCHES_PATH}/:id`, () => {
    throw new ServiceError('method_not_allowed', 'this route accepts GET and DELETE only', { allow: 'GET, DELETE' });
  });
  return r;
}
