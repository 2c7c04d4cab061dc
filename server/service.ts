// The capture service: what REST and MCP share. Validate -> rate limit -> cache lookup (url mode)
// -> reserve one credit -> render -> commit, or release on any failure (spec §1 billing: failed
// requests and cached results are never billed). Knows nothing of HTTP: it answers the image and
// its facts (server/response/facts.ts); the routes write them (server/response/).
import { CONTENT_TYPES } from './kinds/image.ts';
import type { Rect } from '../lib/visual-diff/diff.ts';
import type { Account, Accounts, Reservation } from './accounts/index.ts';
import type { JointBill } from './accounts/joint-bill.ts';
import type { ResultCache } from './cache/index.ts';
import { cacheKey } from './cache/index.ts';
import { checkClipSize } from './clip/index.ts';
import { RenderTimeout, ServiceError } from './errors.ts';
import { etagOf } from './http-caching/etag.ts';
import { pictureOf } from './http-caching/picture.ts';
import type { Metrics } from './metrics.ts';
import type { BrowserPool } from './pool/index.ts';
import { checkViewportSize } from './render/capture.ts';
import type { ScreenshotRequest } from './kinds/request.ts';
import { validateRequest } from './request/validate.ts';
import type { CaptureFacts } from './response/facts.ts';

export interface CaptureOutcome {
  body: Buffer;
  request: ScreenshotRequest;
  contentType: string;
  width: number;
  height: number;
  facts: CaptureFacts;
  /** With CaptureOptions.measure: the boxes of the elements they match, in picture pixels. */
  boxes?: Rect[];
}

export interface ServiceDeps {
  accounts: Accounts;
  pool: BrowserPool;
  cache: ResultCache;
  metrics: Metrics;
  checkUrl(url: string): Promise<string>;
  maxOutputPixels: number;
  /** CACHE_TTL_SECONDS: the cacheTtl of a request that gives none. */
  defaultCacheTtl: number;
  /** The browser's version: part of the cache key, so that a new Chromium renders afresh. */
  browserVersion(): string | undefined;
}

export interface CaptureOptions {
  cache?: { lookup: boolean; store: boolean };
  signal?: AbortSignal;
  /** Selectors whose elements' boxes the render measures (a comparison's ignoreSelectors): a cached picture has no layout, so it is rendered. */
  measure?: readonly string[];
  /** Bill later, with other captures: the reservation is held by this bill instead of committed (server/accounts/joint-bill.ts). */
  bill?: Pick<JointBill, 'hold'>;
  /** The reservation's id, committed at most once ever (a batch item's, run again after a crash). */
  reservationId?: string;
  /**
   * The credit is taken care of already (a batch item's, reserved in the statement that claims
   * it): its reservation, used instead of reserving one and released like one when nothing is
   * billed; or 'paid', an earlier run of the same work was billed, so nothing is reserved.
   */
  reserved?: Reservation | 'paid';
  /** False: not counted against the per-key rate (a batch's items: the batch was counted once). */
  rateLimit?: boolean;
  /** Background work (a batch item): takes a render slot only when no request waits for one. */
  background?: boolean;
}

export function createCaptureService(deps: ServiceDeps) {
  async function captureScreenshot(account: Account, body: unknown, opts: CaptureOptions = {}): Promise<CaptureOutcome> {
    // The render budget counts from here: a wait for an identical render (single flight) and for
    // a render slot are part of it, so that no answer comes later than budget + slack.
    const arrivedAt = Date.now();
    const req = validateRequest(body);
    checkViewportSize(req, deps.maxOutputPixels);
    checkClipSize(req, deps.maxOutputPixels);
    if (opts.rateLimit !== false) await deps.accounts.checkRateLimit(account).catch(countRefusal);

    // The entry's TTL and the oldest capture reused.
    const cacheTtl = req.cacheTtl ?? deps.defaultCacheTtl;
    // html results are never cached (DESIGN §3); the key is the picture (server/http-caching/picture.ts)
    const key = req.url && deps.cache.enabled && cacheTtl > 0 ? cacheKey(account.id, pictureOf(req), deps.browserVersion()) : undefined;
    // Single flight (server/cache/shared.ts): a hit, an identical render's result, or the lead.
    let lead: { end(): Promise<void> } | undefined;
    if (key && (opts.cache?.lookup ?? true) && !opts.measure?.length) {
      const budgetMs = deps.pool.renderBudgetMs;
      const deadline = { at: arrivedAt + budgetMs, expired: () => new RenderTimeout('waiting for an identical capture', budgetMs) };
      const got = await deps.cache.acquire(key, { maxAgeSeconds: cacheTtl, signal: opts.signal, deadline });
      if (got.hit) {
        deps.metrics.cache.inc({ result: got.joined ? 'joined' : 'hit' });
        const { body, contentType, width, height, picture } = got.hit;
        if (opts.reserved && opts.reserved !== 'paid') await deps.accounts.release(opts.reserved); // a hit costs nothing
        const remaining = await deps.accounts.balance(account);
        const facts: CaptureFacts = { ...picture, format: req.format, cache: 'hit', credits: { charged: 0, remaining }, cacheTtl };
        return { body, contentType, width, height, request: req, facts };
      }
      lead = got.lead;
      deps.metrics.cache.inc({ result: 'miss' });
    }
    try {
      return await renderAndBill(account, req, key, cacheTtl, opts, arrivedAt);
    } finally {
      await lead?.end(); // after the entry is stored: waiters find it
    }
  }

  function countRefusal(e: unknown): never {
    if (e instanceof ServiceError && (e.code === 'rate_limited' || e.code === 'insufficient_credits')) deps.metrics.rejections.inc({ reason: e.code });
    throw e;
  }

  async function renderAndBill(
    account: Account,
    req: ScreenshotRequest,
    key: string | undefined,
    cacheTtl: number,
    opts: CaptureOptions,
    arrivedAt: number,
  ): Promise<CaptureOutcome> {
    // The credit: taken already (a batch item's, by the statement that claimed it), paid by an
    // earlier run of the same work, or reserved here. The reservation is made while the render
    // runs when this process last saw the account with credits to spare (a store round trip off
    // the critical path); it is awaited before the commit, and a render it refuses is cut short.
    // Otherwise (an account not seen, work billed under an id of its own) it comes first.
    const ahead = opts.reserved === undefined && opts.reservationId === undefined && deps.accounts.reserveAlongside(account);
    const reserving: Promise<Reservation | undefined> =
      opts.reserved === 'paid'
        ? Promise.resolve(undefined)
        : opts.reserved
          ? Promise.resolve(opts.reserved)
          : deps.accounts.reserve(account, { id: opts.reservationId }).catch(countRefusal);
    if (!ahead) await reserving;
    const cut = ahead ? new AbortController() : undefined;
    if (cut) reserving.catch(() => cut.abort());
    const signal = cut ? (opts.signal ? AbortSignal.any([opts.signal, cut.signal]) : cut.signal) : opts.signal;
    const started = process.hrtime.bigint();
    let committed = false;
    try {
      const pipeline = { checkUrl: deps.checkUrl, maxOutputPixels: deps.maxOutputPixels, measure: opts.measure };
      const r = await deps.pool.render(req, pipeline, signal, arrivedAt, opts.background).catch(async (e: unknown) => {
        // A refused reservation is the answer (402), not the render it cut short.
        if (cut?.signal.aborted && !opts.signal?.aborted) await reserving;
        throw e;
      });
      const reservation = await reserving;
      // A capture cut short by captureOnTimeout is a success for the caller, not a settled render.
      deps.metrics.renderSeconds.observe({ outcome: r.waitTimedOut.length > 0 ? 'wait_timed_out' : 'ok' }, Number(process.hrtime.bigint() - started) / 1e9);
      deps.metrics.observeSteps(r.timings);
      const { charged, remaining } = !reservation
        ? { charged: 0, remaining: await deps.accounts.balance(account) }
        : opts.bill
          ? opts.bill.hold(reservation)
          : await deps.accounts.commit(reservation);
      committed = true;
      // Every other member of the render's result is a fact about the picture (response/facts.ts);
      // the measured boxes answer this request only.
      const { body, width, height, timings, boxes, ...found } = r;
      const picture = { ...found, etag: etagOf(body) };
      const image = { body, contentType: CONTENT_TYPES[req.format], width, height };
      // captureOnTimeout: a capture cut short shows one moment of an unsettled page, not the
      // picture the request asks for; it is not stored (the next identical request renders
      // afresh and may get the settled page) and may not be reused (a signed link answers
      // `public, no-cache`). Billed all the same: the render was done (server/wait-timeout/fields.ts, server/toolkit/waits.ts).
      // So is a capture cut for time: how much of the page fits depends on the load of the
      // moment (server/tall-pages/).
      const partial = r.waitTimedOut.length > 0 || r.truncated?.reason === 'time';
      if (key && !partial && (opts.cache?.store ?? true)) await deps.cache.set(key, { ...image, picture }, { ttlSeconds: cacheTtl });
      const facts: CaptureFacts = { ...picture, format: req.format, cache: 'miss', credits: { charged, remaining }, timings, cacheTtl: partial ? 0 : cacheTtl };
      return { ...image, request: req, facts, ...(boxes ? { boxes } : {}) };
    } catch (e) {
      if (e instanceof ServiceError) deps.metrics.renderSeconds.observe({ outcome: e.code }, Number(process.hrtime.bigint() - started) / 1e9);
      throw e;
    } finally {
      if (!committed) {
        const held = await reserving.catch(() => undefined);
        if (held) await deps.accounts.release(held);
      }
    }
  }

  return captureScreenshot;
}

export type CaptureService = ReturnType<typeof createCaptureService>;
