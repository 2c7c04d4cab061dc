// The clean-up's steps of the render (server/render/pipeline.ts): the session is prepared before
// the page loads, the banners are removed after the waits, and the last look for a banner the page
// added since comes right before the capture, or, when the caller has actions or js, before those:
// what the caller's own steps make the page show is theirs to keep (an opened menu is not a late
// banner). The order, and why: server/prepare/index.ts.
import type { ScreenshotRequest } from '../kinds/request.ts';
import { firstToTouch, traitedStep, type PageContext } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';
import { attachCleanup, type BannerAction, type CleanupSession } from './index.ts';

/** The part of the render's context this room reads and writes. */
export type CleanupContext = PageContext & { cleanup?: CleanupSession; bannerAction?: BannerAction };

const PREP: StepLabel = { name: 'cleanup-prep', description: 'preparing banner clean-up' };
const BANNERS: StepLabel = { name: 'banners', description: 'removing cookie banners' };
const LAST_LOOK: StepLabel = { name: 'last-look', description: 'looking for banners added since the clean-up' };
/** Read by the pipeline's step after the capture, which owns the label. */
export const CAPTURE_LOOK: StepLabel = { name: 'capture-look', description: 'looking for a banner that arrived during the capture' };

/** Before the page loads. */
export const prepareCleanup = traitedStep<CleanupContext>({ times: [PREP] }, async (ctx) => {
  ctx.cleanup = await ctx.deadline.step(PREP, attachCleanup(ctx.page, ctx.req));
});

const ownSteps = (req: ScreenshotRequest) => (req.actions?.length ?? 0) > 0 || req.js !== undefined;

/**
 * After the waits, before the lazy content: the clean-up itself, until the waits' clean-up end. Whether
 * the last look follows it with nothing of the request between is read from the steps to come (the
 * STEPS of pipeline.ts): a step placed between that may touch the page counts by itself (the
 * lazy-content scroll with fullPage: the clean-up must then be done before it, not left to the
 * last look after it).
 */
export const removeBanners = traitedStep<CleanupContext>({ times: [BANNERS] }, async ({ cleanup, deadline, hops, waits, req }, later) => {
  const lastLookNext = firstToTouch(later, req)?.lastLook === true;
  await deadline.step(BANNERS, hops.guard(cleanup!.finish(waits.cleanupEnd(), { confirmAtLastLook: lastLookNext })));
});

async function look(ctx: CleanupContext, keepWatching: boolean): Promise<void> {
  if (ctx.bannerAction !== undefined) return;
  const { cleanup, deadline, hops, waits } = ctx;
  ctx.bannerAction = await deadline.step(LAST_LOOK, hops.guard(cleanup!.lastLook(waits.cleanupEnd(), { keepWatching })));
}

/** Right before the caller's actions and js, when there are any. */
export const lastLookBeforeOwnSteps = traitedStep<CleanupContext>({ times: [LAST_LOOK], lastLook: true, touchesPage: ownSteps }, async (ctx) => {
  if (ownSteps(ctx.req)) await look(ctx, false);
});

/**
 * Right before the capture, unless it was taken before the caller's own steps: then the page is
 * watched through the capture too (bannerArrivedDuringCapture).
 */
export const lastLook = traitedStep<CleanupContext>({ times: [LAST_LOOK], lastLook: true, touchesPage: () => true }, (ctx) => look(ctx, true));

/**
 * After the capture: whether a banner arrived while the picture was being taken (one tiny
 * evaluate when nothing changed); if one did, it is hidden now and the answer is true, for the
 * caller to take the picture again. The action reported is then the late pass's.
 */
export async function bannerArrivedDuringCapture(ctx: CleanupContext): Promise<boolean> {
  const { cleanup, deadline, hops, waits } = ctx;
  if (!cleanup) return false;
  const arrived = await deadline.step(CAPTURE_LOOK, hops.guard(cleanup.arrivedDuringCapture(waits.cleanupEnd())));
  if (arrived) ctx.bannerAction = cleanup.report?.action ?? ctx.bannerAction;
  return arrived;
}
