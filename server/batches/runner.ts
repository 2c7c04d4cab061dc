// Running batch work: one item (a capture through the capture service, as a synchronous request
// would make it, in the background), its picture into the results storage, its bill, its event;
// and one webhook delivery. Every step may run again after a crash and does no harm twice:
//   the item    is claimed while not settled, settled once (sql.ts)
//   the credit  is reserved under the item's own id, which the ledger commits at most once ever
//               (server/accounts/ledger.ts), so a run after a crash is billed 0 if one was billed
//   the picture is written under the item's key (a second write replaces it)
//   the event   is queued under an id made from the item's (queue.ts): queued once, and every
//               redelivery carries the same webhook-id
import type { PgBoss } from 'pg-boss';
import type { Reservation } from '../accounts/index.ts';
import type { SqlLedger } from '../accounts/ledger.ts';
import type { PinnedUrl } from '../egress/index.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { CaptureFacts } from '../response/facts.ts';
import type { ResultStore } from '../results/store.ts';
import type { CaptureService } from '../service.ts';
import type { Db, Queryable } from '../store/index.ts';
import { post, signedEvent, type WebhookEvent } from '../webhooks/deliver.ts';
import { webhookSecretFor } from '../webhooks/secrets.ts';
import { SpanKind } from '@opentelemetry/api';
import { ATTR, SPAN } from '../telemetry/attributes.ts';
import { contextOf, currentCarrier, type TraceCarrier } from '../telemetry/carrier.ts';
import { inSpan, recordingSpan } from '../telemetry/spans.ts';
import type { BatchMetrics } from './metrics.ts';
import { inTx, jobIdOf, WEBHOOK_QUEUE } from './queue.ts';
import { claimItem, completeIfDone, isCancelled, itemCounts, recordDelivery, settleItem, webhookOf, type Settlement } from './sql.ts';

export interface RunnerDeps {
  db: Db;
  accounts: SqlLedger;
  capture: CaptureService;
  results: ResultStore;
  boss: PgBoss;
  pinUrl(url: string): Promise<PinnedUrl>;
  retentionSeconds: number;
  webhookSecret: string | null;
  metrics: BatchMetrics;
  log: Logger;
}

export interface ItemJob {
  batchId: string;
  idx: number;
  /** The submitting request's trace context (server/telemetry/carrier.ts), when it was traced. */
  trace?: TraceCarrier;
}

export interface EventJob {
  batchId: string;
  event: WebhookEvent;
  /** The trace context of the item (or request) that queued the event. */
  trace?: TraceCarrier;
}

/** The reservation id that bills an item: one per item, ever. */
export const reservationIdOf = (batchId: string, idx: number) => `bitem_${batchId}_${idx}`;
export const resultKeyOf = (batchId: string, idx: number) => `batches/${batchId}/${idx}`;

/** Errors after which the item is tried again (on this replica or another), not settled as failed. */
const TRANSIENT = new Set(['overloaded', 'client_closed', 'internal_error']);

export function createRunner(deps: RunnerDeps) {
  const { db } = deps;

  /** One run of an item; `lastAttempt`: a transient error settles it as failed instead of trying again. */
  async function runItem({ batchId, idx, trace }: ItemJob, lastAttempt = false): Promise<void> {
    const attributes = { [ATTR.batchId]: batchId, [ATTR.batchItem]: idx, [ATTR.batchAttempt]: lastAttempt };
    await inSpan(SPAN.batchItem, { parent: contextOf(trace), kind: SpanKind.CONSUMER, attributes }, async () => {
      const claimed = await claimItem(db, batchId, idx);
      if (!claimed) return; // settled, or cancelled before it started
      deps.metrics.running.inc();
      try {
        await runClaimed(batchId, idx, claimed, lastAttempt);
      } finally {
        deps.metrics.running.dec();
      }
    });
  }

  async function runClaimed(batchId: string, idx: number, claimed: NonNullable<Awaited<ReturnType<typeof claimItem>>>, lastAttempt: boolean): Promise<void> {
    deps.metrics.itemWait.observe((Date.now() - new Date(claimed.queuedAt).getTime()) / 1000);
    const started = performance.now();
    const account = { id: claimed.accountId, keyId: claimed.keyId ?? undefined };
    const reservationId = reservationIdOf(batchId, idx);
    // A reservation left by a run that died is given back before this run reserves again.
    await deps.accounts.release({ id: reservationId, accountId: account.id });
    let held: Reservation | undefined;
    const bill = {
      hold(r: Reservation) {
        held = r;
        return { charged: 1 as const, remaining: Number.NaN };
      },
    };
    let settlement: Settlement;
    try {
      const out = await deps.capture(account, claimed.request, { bill, reservationId, rateLimit: false, background: true });
      const key = resultKeyOf(batchId, idx);
      await deps.results.put(key, { body: out.body, contentType: out.contentType });
      if (held) await deps.accounts.commit(held); // charges 0 when an earlier run of this item was billed
      const charged = held && (await deps.accounts.spent(reservationId)) ? 1 : 0;
      const facts: CaptureFacts = { ...out.facts, credits: { charged, remaining: await deps.accounts.balance(account) } };
      settlement = { state: 'succeeded', status: 200, facts, result: key, contentType: out.contentType, charged, retentionSeconds: deps.retentionSeconds };
    } catch (e) {
      if (held) await deps.accounts.release(held);
      if (!lastAttempt && (!(e instanceof ServiceError) || TRANSIENT.has(e.code))) throw e; // pg-boss runs it again
      const err = e instanceof ServiceError ? e : new ServiceError('internal_error', 'the item could not be run');
      settlement = { state: 'failed', status: err.status, error: err.code, message: err.message, charged: 0, retentionSeconds: deps.retentionSeconds };
    } finally {
      if (held) await deps.accounts.release(held); // a no-op once committed
    }
    // The item is settled and its event queued together: a crash between them would lose the event.
    const settled = await db.tx(async (q) => {
      if (!(await settleItem(q, batchId, idx, settlement))) return false; // settled by another run
      await send(q, batchId, {
        id: `evt_${batchId}_${idx}`,
        type: settlement.state === 'succeeded' ? 'capture.succeeded' : 'capture.failed',
        data: {
          batchId,
          index: idx,
          status: settlement.status,
          ...(settlement.error ? { error: settlement.error, message: settlement.message } : {}),
        },
      });
      return true;
    });
    if (!settled) return;
    deps.metrics.itemRun.observe({ outcome: settlement.state }, (performance.now() - started) / 1000);
    await finishIfDone(batchId);
  }

  /** batch.completed, once, when no item is pending (after the last item, or a cancel). */
  async function finishIfDone(batchId: string): Promise<void> {
    await db.tx(async (q) => {
      if (!(await completeIfDone(q, batchId))) return;
      const n = await itemCounts(q, batchId);
      const cancelled = await isCancelled(q, batchId);
      await send(q, batchId, {
        id: `evt_${batchId}_completed`,
        type: 'batch.completed',
        data: { batchId, state: cancelled ? 'cancelled' : 'done', succeeded: n('succeeded'), failed: n('failed'), cancelled: n('cancelled') },
      });
    });
  }

  /**
   * Queues an event for delivery when the batch has a webhook, in the caller's transaction (with
   * what it reports), once: its job id is made from its id.
   */
  async function send(q: Queryable, batchId: string, event: WebhookEvent): Promise<void> {
    if (!(await webhookOf(q, batchId))?.url) return;
    await deps.boss.send(WEBHOOK_QUEUE, { batchId, event, trace: currentCarrier() } satisfies EventJob, { id: jobIdOf(event.id), db: inTx(q) });
  }

  /** One delivery attempt; throws to have pg-boss try again later (its retry schedule). */
  async function deliver(job: EventJob, attempt: number, lastAttempt: boolean): Promise<void> {
    const attributes = { [ATTR.batchId]: job.batchId, [ATTR.eventType]: job.event.type, [ATTR.deliveryAttempt]: attempt };
    await inSpan(SPAN.webhook, { parent: contextOf(job.trace), kind: SpanKind.CLIENT, attributes }, () => deliverOnce(job, attempt, lastAttempt));
  }

  async function deliverOnce({ batchId, event }: EventJob, attempt: number, lastAttempt: boolean): Promise<void> {
    const b = await webhookOf(db, batchId);
    if (!b?.url || !b.keyId) return;
    const record = (outcome: string, status: number | null, error: string | null) =>
      recordDelivery(db, {
        batchId,
        eventId: event.id,
        type: event.type,
        idx: typeof event.data.index === 'number' ? event.data.index : null,
        attempt,
        status,
        outcome,
        error,
      });
    // The guard again at every attempt: the name may resolve elsewhere by now.
    let pinned: PinnedUrl;
    try {
      pinned = await deps.pinUrl(b.url);
    } catch (e) {
      const blocked = e instanceof ServiceError && e.code === 'bad_request';
      await record(blocked ? 'blocked' : 'failed', null, e instanceof Error ? e.message : String(e));
      deps.metrics.deliveries.inc({ outcome: blocked ? 'blocked' : 'failed' });
      if (blocked) return; // never delivered to a forbidden address, and not tried again
      throw e;
    }
    const secret = await webhookSecretFor(db, b.keyId, deps.webhookSecret);
    const { body, headers } = signedEvent(event, secret);
    // The receiver joins the trace: traceparent (and tracestate) of this delivery's span.
    const r = await post(pinned, body, { ...headers, ...currentCarrier() });
    if (r.status !== undefined) recordingSpan()?.setAttribute(ATTR.status, r.status);
    const outcome = r.ok ? 'delivered' : lastAttempt ? 'gave_up' : 'failed';
    await record(outcome, r.status ?? null, r.error ?? (r.ok ? null : `the receiver answered ${r.status}`));
    deps.metrics.deliveries.inc({ outcome });
    if (!r.ok) throw new Error(`webhook delivery failed: ${r.error ?? `HTTP ${r.status}`}`);
  }

  return { runItem, deliver, finishIfDone };
}

export type Runner = ReturnType<typeof createRunner>;
