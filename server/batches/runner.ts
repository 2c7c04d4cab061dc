// Running batch work: one item (a capture through the capture service, as a synchronous request
// would make it, in the background), its picture into the results storage, its bill, its event;
// and one webhook delivery. Every step may run again after a crash and does no harm twice:
//   the item    is claimed while not settled, and its credit reserved in the same statement
//               (sql.ts claimItem), under the item's own id, which the ledger commits at most once
//               ever (server/accounts/ledger.ts): a run after a crash finds it billed and reserves
//               nothing (billed 0), or keeps the reservation a run that died left
//   the picture is written under the item's key (a second write replaces it)
//   the bill, the settlement, the event (and batch.completed after the last item) are one
//               transaction: settled once (a settled item is not settled again: the transaction
//               rolls back, its commit with it), the event queued under an id made from the item's
//               (queue.ts): queued once, and every redelivery carries the same webhook-id
//   the job     is completed by pg-boss when the handler returns, after that transaction: its
//               worker completes a job only then (its `transactional` mode would hold a transaction
//               open across the whole render). A crash in between runs the job again, which finds
//               the item settled and does nothing.
import type { PgBoss } from 'pg-boss';
import type { Reservation } from '../accounts/index.ts';
import type { SqlLedger } from '../accounts/ledger.ts';
import type { PinnedUrl } from '../egress/index.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { CaptureFacts } from '../response/facts.ts';
import type { ResultStore } from '../results/store.ts';
import type { CaptureOutcome, CaptureService } from '../service.ts';
import type { Db, Queryable } from '../store/index.ts';
import { post, signedEvent, type WebhookEvent } from '../webhooks/deliver.ts';
import { webhookSecretFor } from '../webhooks/secrets.ts';
import { SpanKind } from '@opentelemetry/api';
import { ATTR, SPAN } from '../telemetry/attributes.ts';
import { contextOf, currentCarrier, type TraceCarrier } from '../telemetry/carrier.ts';
import { inSpan, recordingSpan } from '../telemetry/spans.ts';
import type { BatchMetrics } from './metrics.ts';
import { inTx, jobIdOf, WEBHOOK_QUEUE } from './queue.ts';
import { claimItem, completeIfDone, isCancelled, itemCounts, lockBatch, recordDelivery, settleItem, webhookOf, type Claimed, type Settlement } from './sql.ts';

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

type Webhook = { url: string | null; keyId: string | null };

export interface EventJob {
  batchId: string;
  event: WebhookEvent;
  /** The batch's webhook when the event was queued: where it goes, whose secret signs it. */
  webhook?: Webhook;
  /** The trace context of the item (or request) that queued the event. */
  trace?: TraceCarrier;
}

/** The reservation id that bills an item: one per item, ever. */
export const reservationIdOf = (batchId: string, idx: number) => `bitem_${batchId}_${idx}`;
export const resultKeyOf = (batchId: string, idx: number) => `batches/${batchId}/${idx}`;

/** Errors after which the item is tried again (on this replica or another), not settled as failed. */
const TRANSIENT = new Set(['overloaded', 'client_closed', 'internal_error']);

/** Thrown inside a settling transaction to roll it back: another run settled the item first. */
class SettledElsewhere extends Error {}

export function createRunner(deps: RunnerDeps, hooks: { eventsQueued?: () => void } = {}) {
  const { db } = deps;

  /** One run of an item; `lastAttempt`: a transient error settles it as failed instead of trying again. */
  async function runItem({ batchId, idx, trace }: ItemJob, lastAttempt = false): Promise<void> {
    const attributes = { [ATTR.batchId]: batchId, [ATTR.batchItem]: idx, [ATTR.batchAttempt]: lastAttempt };
    await inSpan(SPAN.batchItem, { parent: contextOf(trace), kind: SpanKind.CONSUMER, attributes }, async () => {
      const reservationId = reservationIdOf(batchId, idx);
      deps.accounts.renewing(reservationId);
      let claimed: Claimed | undefined;
      try {
        claimed = await claimItem(db, batchId, idx, reservationId, deps.accounts.leaseSeconds);
      } finally {
        if (claimed?.credit !== 'held') deps.accounts.forget(reservationId);
      }
      if (!claimed) return; // settled, or cancelled before it started
      deps.metrics.running.inc();
      try {
        await runClaimed(batchId, idx, claimed, lastAttempt);
      } finally {
        deps.metrics.running.dec();
      }
    });
  }

  async function runClaimed(batchId: string, idx: number, claimed: Claimed, lastAttempt: boolean): Promise<void> {
    deps.metrics.itemWait.observe((Date.now() - new Date(claimed.queuedAt).getTime()) / 1000);
    const started = performance.now();
    const account = { id: claimed.accountId, keyId: claimed.keyId ?? undefined };
    const reservation: Reservation = { id: reservationIdOf(batchId, idx), accountId: account.id };
    // The credit the claim took; without one (none to spend at the claim) the capture reserves
    // under the same id itself, and refuses as a request would.
    const reserved = claimed.credit === 'paid' ? ('paid' as const) : claimed.credit === 'held' ? reservation : undefined;
    let held: Reservation | undefined; // rendered: the credit to commit
    const bill = {
      hold(r: Reservation) {
        held = r;
        return { charged: 1 as const, remaining: Number.NaN };
      },
    };
    let outcome: { ok: true; out: CaptureOutcome; key: string } | { ok: false; err: ServiceError };
    try {
      const out = await deps.capture(account, claimed.request, { bill, reservationId: reservation.id, reserved, rateLimit: false, background: true });
      const key = resultKeyOf(batchId, idx);
      await deps.results.put(key, { body: out.body, contentType: out.contentType });
      outcome = { ok: true, out, key };
    } catch (e) {
      if (!lastAttempt && (!(e instanceof ServiceError) || TRANSIENT.has(e.code))) {
        await deps.accounts.release(reservation); // pg-boss runs it again, which reserves again
        throw e;
      }
      outcome = { ok: false, err: e instanceof ServiceError ? e : new ServiceError('internal_error', 'the item could not be run') };
    }
    // Billed, settled, its event (and batch.completed after the last item) queued, in one
    // transaction: a crash leaves all of it undone (the item runs again) or all of it done.
    let settled: { state: Settlement['state']; events: boolean };
    try {
      settled = await db.tx(async (q) => {
        const batch = await lockBatch(q, batchId);
        let settlement: Settlement;
        if (outcome.ok) {
          const { out, key } = outcome;
          // A commit charges 0 when the reservation is gone (swept after a stall); an item whose
          // earlier run was billed shows that credit.
          const credits = held ? await deps.accounts.commit(held, q) : { charged: claimed.credit === 'paid' ? 1 : 0, remaining: out.facts.credits.remaining };
          if (!held && reserved === reservation) await deps.accounts.release(reservation, q); // not rendered (a cache hit): nothing to bill
          const facts: CaptureFacts = { ...out.facts, credits };
          settlement = {
            state: 'succeeded',
            status: 200,
            facts,
            result: key,
            contentType: out.contentType,
            charged: credits.charged,
            retentionSeconds: deps.retentionSeconds,
          };
        } else {
          const { err } = outcome;
          await deps.accounts.release(reservation, q); // a no-op when the capture gave it back
          settlement = { state: 'failed', status: err.status, error: err.code, message: err.message, charged: 0, retentionSeconds: deps.retentionSeconds };
        }
        const s = await settleItem(q, batchId, idx, settlement);
        if (!s) throw new SettledElsewhere();
        await send(q, batchId, batch, {
          id: `evt_${batchId}_${idx}`,
          type: settlement.state === 'succeeded' ? 'capture.succeeded' : 'capture.failed',
          data: {
            batchId,
            index: idx,
            status: settlement.status,
            ...(settlement.error ? { error: settlement.error, message: settlement.message } : {}),
          },
        });
        // The batch's row is locked: an item settled before this one is seen settled here.
        if (!s.others) await finishIn(q, batchId, batch);
        return { state: settlement.state, events: !!batch?.url };
      });
    } catch (e) {
      if (!(e instanceof SettledElsewhere)) throw e;
      await deps.accounts.release(reservation); // its commit was rolled back with the rest
      return;
    }
    if (settled.events) hooks.eventsQueued?.();
    deps.metrics.itemRun.observe({ outcome: settled.state }, (performance.now() - started) / 1000);
  }

  /** batch.completed, once, when no item is pending (after a cancel: DELETE /v1/batches/{id}). */
  async function finishIfDone(batchId: string): Promise<void> {
    const queued = await db.tx(async (q) => {
      const batch = await lockBatch(q, batchId);
      return (await finishIn(q, batchId, batch)) && !!batch?.url;
    });
    if (queued) hooks.eventsQueued?.();
  }

  /** In the caller's transaction, which holds the batch's row: marks it complete when no item is pending, and queues batch.completed; true if it did. */
  async function finishIn(q: Queryable, batchId: string, batch: Webhook | undefined): Promise<boolean> {
    if (!(await completeIfDone(q, batchId))) return false;
    const n = await itemCounts(q, batchId);
    const cancelled = await isCancelled(q, batchId);
    await send(q, batchId, batch, {
      id: `evt_${batchId}_completed`,
      type: 'batch.completed',
      data: { batchId, state: cancelled ? 'cancelled' : 'done', succeeded: n('succeeded'), failed: n('failed'), cancelled: n('cancelled') },
    });
    return true;
  }

  /**
   * Queues an event for delivery when the batch has a webhook, in the caller's transaction (with
   * what it reports), once: its job id is made from its id. Where it goes and whose secret signs
   * it travel with it (a delivery need not read the batch again).
   */
  async function send(q: Queryable, batchId: string, batch: Webhook | undefined, event: WebhookEvent): Promise<void> {
    if (!batch?.url) return;
    const job: EventJob = { batchId, event, webhook: { url: batch.url, keyId: batch.keyId }, trace: currentCarrier() };
    await deps.boss.send(WEBHOOK_QUEUE, job, { id: jobIdOf(event.id), db: inTx(q) });
  }

  /** One delivery attempt; throws to have pg-boss try again later (its retry schedule). */
  async function deliver(job: EventJob, attempt: number, lastAttempt: boolean): Promise<void> {
    const attributes = { [ATTR.batchId]: job.batchId, [ATTR.eventType]: job.event.type, [ATTR.deliveryAttempt]: attempt };
    await inSpan(SPAN.webhook, { parent: contextOf(job.trace), kind: SpanKind.CLIENT, attributes }, () => deliverOnce(job, attempt, lastAttempt));
  }

  async function deliverOnce({ batchId, event, webhook }: EventJob, attempt: number, lastAttempt: boolean): Promise<void> {
    const b = webhook ?? (await webhookOf(db, batchId)); // an event queued before events carried it
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
