// A render as spans, when it is traced (server/telemetry/): a `render` span under the request's (or
// the batch item's) span, and under it one span per step, named as in Server-Timing (the step
// labels of server/toolkit/step-names.ts, the Deadline's timings), with the facts that step found as
// attributes: what the clean-up did, the picture's size and any truncation, the blocked requests,
// the target's status, a wait cut by captureOnTimeout. Never what the page holds. The spans are
// written from the recorded timings once the render has ended, so the steps themselves do nothing
// for tracing, and an untraced render (tracing off, or not sampled) pays one test.
import { context, trace, type Attributes } from '@opentelemetry/api';
import type { ScreenshotRequest } from '../kinds/request.ts';
import { ATTR, SPAN } from '../telemetry/attributes.ts';
import { failSpan, pastSpan, recordingSpan, tracer } from '../telemetry/spans.ts';
import type { Deadline } from '../toolkit/deadline.ts';
import type { RenderResult } from './pipeline.ts';

export async function traceRender(req: ScreenshotRequest, deadline: Deadline, background: boolean, work: () => Promise<RenderResult>): Promise<RenderResult> {
  const parent = recordingSpan();
  if (!parent) return work();
  const started = performance.now();
  let result: RenderResult | undefined;
  let failed: unknown;
  try {
    return (result = await work());
  } catch (e) {
    failed = e;
    throw e;
  } finally {
    const attributes: Attributes = { [ATTR.format]: req.format, [ATTR.mode]: req.url ? 'url' : 'html', [ATTR.background]: background };
    const timings = deadline.timings;
    // The pool's steps (a browser started, a page opened) can be timed before this wrapper is
    // entered: the render span begins with its first step, so that every step lies within it.
    const first = Math.min(started, ...timings.map((t) => t.at ?? started));
    const render = tracer().startSpan(
      SPAN.render,
      { startTime: wall(first), attributes: { ...attributes, ...(result ? renderFacts(result) : {}) } },
      trace.setSpan(context.active(), parent),
    );
    timings.forEach((t, i) => {
      if (t.at === undefined) return;
      const last = i === timings.length - 1;
      pastSpan(
        t.step,
        render,
        wall(t.at),
        wall(t.at + t.ms),
        { [ATTR.stepDescription]: t.stage, ...(result ? stepFacts(t.step, result) : {}) },
        last ? failed : undefined,
      );
    });
    if (failed !== undefined) failSpan(render, failed);
    render.end(wall(performance.now()));
  }
}

/**
 * A performance.now() reading as epoch milliseconds. Given performance readings, the SDK shifts
 * each span by its own offset between the two clocks, read from Date.now() (whole milliseconds)
 * when the span is made: a step that began within a millisecond of the render could then start
 * before it (a fresh CI run: "browser lies within the render"). Epoch times are taken as they are.
 */
const wall = (t: number) => performance.timeOrigin + t;

/** What the whole render found. */
function renderFacts(r: RenderResult): Attributes {
  return {
    [ATTR.bytes]: r.body.length,
    [ATTR.width]: r.width,
    [ATTR.height]: r.height,
    [ATTR.bannerAction]: r.bannerAction,
    [ATTR.blockedRequests]: r.blockedRequests,
    ...(r.targetStatus !== undefined ? { [ATTR.targetStatus]: r.targetStatus } : {}),
    ...truncation(r),
    ...(r.waitTimedOut.length ? { [ATTR.waitTimedOut]: r.waitTimedOut } : {}),
  };
}

/** What one step found (the render's facts, on the step that found each). */
function stepFacts(step: string, r: RenderResult): Attributes {
  const cut = (r.waitTimedOut as readonly string[]).includes(step) ? { [ATTR.waitTimedOut]: true } : {};
  switch (step) {
    case 'banners':
    case 'last-look':
      return { [ATTR.bannerAction]: r.bannerAction };
    case 'capture':
      return { [ATTR.bytes]: r.body.length, [ATTR.width]: r.width, [ATTR.height]: r.height, ...truncation(r) };
    case 'blocking':
      return { [ATTR.blockedRequests]: r.blockedRequests };
    case 'load':
      return { ...cut, ...(r.targetStatus !== undefined ? { [ATTR.targetStatus]: r.targetStatus } : {}) };
    case 'boxes':
      return { [ATTR.boxes]: r.boxes?.length ?? 0 };
    default:
      return cut;
  }
}

const truncation = (r: RenderResult): Attributes => (r.truncated ? { [ATTR.truncated]: r.truncated.reason, [ATTR.truncatedFrom]: r.truncated.fromHeight } : {});
