// The comparison service: what REST, signed links and MCP share for POST /v1/compare. Validate ->
// the current capture and the baseline's (a second capture, at the same time, or the picture sent)
// through the capture service with their reservations held together -> compare in a worker
// (lib/visual-diff/) -> commit both, or release both on any failure (../accounts/joint-bill.ts). Knows nothing of
// HTTP: it answers the diff picture and its facts.
import sharp from 'sharp';
import { UndecodablePicture, type DiffPool } from '../../lib/visual-diff/index.ts';
import type { Account, Accounts } from '../accounts/index.ts';
import { badRequest, ServiceError } from '../errors.ts';
import type { CaptureOptions, CaptureOutcome, CaptureService } from '../service.ts';
import { JointBill } from '../accounts/joint-bill.ts';
import type { CompareFacts } from '../response/facts.ts';
import { ATTR, SPAN } from '../telemetry/attributes.ts';
import { inSpan } from '../telemetry/spans.ts';
import { validateCompareRequest } from './validate.ts';

export interface CompareDeps {
  capture: CaptureService;
  accounts: Accounts;
  diff: DiffPool;
  maxOutputPixels: number;
}

export interface CompareOutcome {
  /** The diff picture, PNG. */
  png: Buffer;
  facts: CompareFacts;
  /** The current capture (its bytes for a JSON answer: the next baseline). */
  current: CaptureOutcome;
}

export function createCompareService(deps: CompareDeps) {
  // One span over both captures (each its render span) and the comparison, with its figures.
  return (account: Account, body: unknown, opts: Pick<CaptureOptions, 'cache' | 'signal'> = {}): Promise<CompareOutcome> =>
    inSpan(SPAN.compare, {}, async (span) => {
      const out = await compare(account, body, opts);
      const f = out.facts;
      span?.setAttributes({ [ATTR.diffPixels]: f.diffPixels, [ATTR.diffRatio]: f.ratio, [ATTR.diffRegions]: f.regionCount, [ATTR.masks]: f.masks });
      return out;
    });

  async function compare(account: Account, body: unknown, opts: Pick<CaptureOptions, 'cache' | 'signal'>): Promise<CompareOutcome> {
    const req = validateCompareRequest(body);
    if ('image' in req.baseline) await checkBaselineSize(req.baseline.image, deps.maxOutputPixels);
    const bill = new JointBill(deps.accounts);
    // One capture failing stops the other: the caller gets the error, and neither is billed.
    const stop = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
    const each: CaptureOptions = { cache: opts.cache, signal, measure: req.options.ignoreSelectors, bill };
    const captured = (work: Promise<CaptureOutcome>) =>
      work.catch((e: unknown) => {
        stop.abort();
        throw e;
      });
    try {
      const settled = await Promise.allSettled([
        captured(deps.capture(account, req.current, each)),
        'request' in req.baseline ? captured(deps.capture(account, req.baseline.request, each)) : Promise.resolve(undefined),
      ]);
      const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason as unknown);
      if (failures.length > 0) throw failures.find((e) => !isKnock(e, stop, opts.signal)) ?? failures[0];
      const current = (settled[0] as PromiseFulfilledResult<CaptureOutcome>).value;
      const second = (settled[1] as PromiseFulfilledResult<CaptureOutcome | undefined>).value;
      const baselineBytes = second ? second.body : (req.baseline as { image: Buffer }).image;
      const masks = [...req.options.ignoreRegions, ...(current.boxes ?? []), ...(second?.boxes ?? [])];
      const compared = await deps.diff
        .compare(current.body, baselineBytes, { threshold: req.options.threshold, includeAA: req.options.includeAA, masks })
        .catch((e: unknown) => {
          if (e instanceof UndecodablePicture && e.which === 'baseline') throw badRequest('baseline.image must be a base64 PNG, JPEG or WebP image');
          throw e;
        });
      const credits = await bill.commit();
      if (Number.isNaN(credits.remaining)) credits.remaining = await deps.accounts.balance(account);
      const { png, ...figures } = compared;
      const facts: CompareFacts = {
        ...figures,
        masks: masks.length,
        credits,
        current: { ...figures.current, cache: current.facts.cache, format: current.request.format },
        baseline: { ...figures.baseline, ...(second ? { cache: second.facts.cache, format: second.request.format } : { image: true as const }) },
        cacheTtl: Math.min(current.facts.cacheTtl, second?.facts.cacheTtl ?? Infinity),
      };
      return { png, facts, current };
    } finally {
      await bill.release(); // a no-op once committed
    }
  }
}

/** An error that is only the other capture's failure echoed (it was stopped), not a cause of its own. */
function isKnock(e: unknown, stop: AbortController, caller: AbortSignal | undefined): boolean {
  return stop.signal.aborted && !caller?.aborted && e instanceof ServiceError && e.code === 'client_closed';
}

/** A baseline picture may not be larger than a capture could be (its pixels are decoded). */
async function checkBaselineSize(bytes: Buffer, maxPixels: number): Promise<void> {
  const meta = await sharp(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => {
      throw badRequest('baseline.image must be a base64 PNG, JPEG or WebP image');
    });
  const w = meta.width ?? 0,
    h = meta.height ?? 0;
  if (w < 1 || h < 1) throw badRequest('baseline.image must be a base64 PNG, JPEG or WebP image');
  if (w * h > maxPixels) throw badRequest(`baseline.image is ${w}x${h} pixels; a picture is limited to ${maxPixels} pixels`);
}

export type CompareService = ReturnType<typeof createCompareService>;
