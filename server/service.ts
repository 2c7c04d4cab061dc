// The capture service: what REST and MCP share. Validate -> rate limit -> cache lookup (url mode)
// -> reserve one credit -> render -> commit, or release on any failure (spec §1 billing: failed
// requests and cached results are never billed). Knows nothing of HTTP.
import type { Account, Accounts } from './accounts/index.ts';
import type { ResultCache } from './cache/index.ts';
import { cacheKey } from './cache/index.ts';
import { checkClipSize } from './clip/index.ts';
import { RenderTimeout, ServiceError } from './errors.ts';
import { etagOf } from './http-caching/conditional.ts';
import { pictureOf } from './http-caching/picture.ts';
import type { Metrics } from './metrics.ts';
import type { BrowserPool } from './pool/index.ts';
import { checkViewportSize } from './render/capture.ts';
import type { StepTiming } from './render/steps.ts';
import type { ScreenshotRequest } from './request/schema.ts';
import { validateRequest } from './request/validate.ts';
import { formatTruncation, TRUNCATED_HEADER } from './tall-pages/truncation.ts';
import { WAIT_TIMED_OUT_HEADER } from './wait-timeout/index.ts';

export const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
const EXTENSIONS = { png: 'png', jpeg: 'jpg', webp: 'webp' } as const;

export interface CaptureOutcome {
  body: Buffer;
  request: ScreenshotRequest;
  contentType: string;
  /** Response headers (DESIGN §3): content-disposition, x-credits-*, x-cache, x-banner-action, x-target-status, x-wait-timed-out, x-blocked-requests. */
  headers: Record<string, string>;
  width: number;
  height: number;
  /** How long this capture may be reused (the request's cacheTtl, else the server's default; 0 for a capture cut short): Cache-Control of signed links. */
  cacheTtl?: number;
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
}

export function createCaptureService(deps: ServiceDeps) {
  async function captureScreenshot(account: Account, body: unknown, opts: CaptureOptions = {}): Promise<CaptureOutcome> {
    // The render budget counts from here: a wait for an identical render (single flight) and for
    // a render slot are part of it (issue 15), so that no answer comes later than budget + slack.
    const arrivedAt = Date.now();
    const req = validateRequest(body);
    checkViewportSize(req, deps.maxOutputPixels);
    checkClipSize(req, deps.maxOutputPixels);
    await deps.accounts.checkRateLimit(account).catch(countRefusal);

    const cacheTtl = req.cacheTtl ?? deps.defaultCacheTtl; // issue 12: the entry's TTL and the oldest capture reused
    // html results are never cached (DESIGN §3); the key is the picture (server/http-caching/picture.ts)
    const key = req.url && deps.cache.enabled && cacheTtl > 0 ? cacheKey(account.id, pictureOf(req), deps.browserVersion()) : undefined;
    // Single flight (server/cache/shared.ts): a hit, an identical render's result, or the lead.
    let lead: { end(): Promise<void> } | undefined;
    if (key && (opts.cache?.lookup ?? true)) {
      const budgetMs = deps.pool.renderBudgetMs;
      const deadline = { at: arrivedAt + budgetMs, expired: () => new RenderTimeout('waiting for an identical capture', budgetMs) };
      const got = await deps.cache.acquire(key, { maxAgeSeconds: cacheTtl, signal: opts.signal, deadline });
      if (got.hit) {
        deps.metrics.cache.inc({ result: got.joined ? 'joined' : 'hit' });
        const { storedAt: _, ...hit } = got.hit;
        const remaining = await deps.accounts.balance(account);
        return { ...hit, request: req, cacheTtl, headers: { ...hit.headers, 'x-cache': 'hit', 'x-credits-charged': '0', 'x-credits-remaining': String(remaining) } };
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

  async function renderAndBill(account: Account, req: ScreenshotRequest, key: string | undefined, cacheTtl: number, opts: CaptureOptions, arrivedAt: number): Promise<CaptureOutcome> {
    const reservation = await deps.accounts.reserve(account).catch(countRefusal);
    const started = process.hrtime.bigint();
    let committed = false;
    try {
      const r = await deps.pool.render(req, { checkUrl: deps.checkUrl, maxOutputPixels: deps.maxOutputPixels }, opts.signal, arrivedAt);
      // A capture cut short by captureOnTimeout is a success for the caller, not a settled render.
      deps.metrics.renderSeconds.observe({ outcome: r.waitTimedOut.length > 0 ? 'wait_timed_out' : 'ok' }, Number(process.hrtime.bigint() - started) / 1e9);
      deps.metrics.observeSteps(r.timings);
      const { charged, remaining } = await deps.accounts.commit(reservation);
      committed = true;
      const headers: Record<string, string> = {
        'content-disposition': `inline; filename="screenshot.${EXTENSIONS[req.format]}"`,
        etag: etagOf(r.body),
        'x-banner-action': r.bannerAction,
        ...(r.targetStatus !== undefined ? { 'x-target-status': String(r.targetStatus) } : {}),
        ...(r.truncated ? { [TRUNCATED_HEADER]: formatTruncation(r.truncated) } : {}),
        ...(r.waitTimedOut.length > 0 ? { [WAIT_TIMED_OUT_HEADER]: r.waitTimedOut.join(', ') } : {}),
        ...(r.blockedRequests > 0 ? { 'x-blocked-requests': String(r.blockedRequests) } : {}),
      };
      const timing = serverTiming(r.timings);
      const outcome = { body: r.body, contentType: CONTENT_TYPES[req.format], headers, width: r.width, height: r.height };
      // captureOnTimeout: a capture cut short shows one moment of an unsettled page, not the
      // picture the request asks for; it is not stored (the next identical request renders
      // afresh and may get the settled page) and may not be reused (a signed link answers
      // `public, no-cache`). Billed all the same: the render was done (server/wait-timeout/).
      // So is a capture cut for time: how much of the page fits depends on the load of the
      // moment (server/tall-pages/).
      const partial = r.waitTimedOut.length > 0 || r.truncated?.reason === 'time';
      if (key && !partial && (opts.cache?.store ?? true)) await deps.cache.set(key, outcome, { ttlSeconds: cacheTtl });
      return { ...outcome, request: req, cacheTtl: partial ? 0 : cacheTtl, headers: { ...headers, 'server-timing': timing, 'x-cache': 'miss', 'x-credits-charged': String(charged), 'x-credits-remaining': String(remaining) } };
    } catch (e) {
      if (e instanceof ServiceError) deps.metrics.renderSeconds.observe({ outcome: e.code }, Number(process.hrtime.bigint() - started) / 1e9);
      throw e;
    } finally {
      if (!committed) await deps.accounts.release(reservation);
    }
  }

  return captureScreenshot;
}

/** Server-Timing: one metric per render step, named as in server/render/steps.ts (unique per render). */
export function serverTiming(timings: readonly StepTiming[]): string {
  return timings.map(({ step, stage, ms }) => `${step};dur=${ms.toFixed(1)};desc="${stage.replace(/["\\]/g, '')}"`).join(', ');
}

export type CaptureService = ReturnType<typeof createCaptureService>;
