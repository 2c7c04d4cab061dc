// The clean-up's steps of the render (server/render/pipeline.ts): the session is prepared before
// the page loads, the banners are removed after the waits and before anything else the service
// does to the page (the lazy-content scroll: a page may read it as consent), and the last look for a banner the page
// added since comes right before the capture, or, when the caller has actions or js, before those:
// what the caller's own steps make the page show is theirs to keep (an opened menu is not a late
// banner). The order, and why: server/prepare/index.ts.
import type { ScreenshotRequest } from '../kinds/request.ts';
import type { PageContext, Step } from '../toolkit/step.ts';
import { attachCleanup, type BannerAction, type CleanupSession } from './index.ts';

/** The part of the render's context this room reads and writes. */
export type CleanupContext = PageContext & { cleanup?: CleanupSession; bannerAction?: BannerAction };

/** Before the page loads. */
export const prepareCleanup: Step<CleanupContext> = async (ctx) => {
  ctx.cleanup = await ctx.deadline.step('cleanup-prep', attachCleanup(ctx.page, ctx.req));
};

const ownSteps = (req: ScreenshotRequest) => (req.actions?.length ?? 0) > 0 || req.js !== undefined;

/**
 * Whether the last look follows the clean-up with nothing of the request between (see the STEPS of
 * pipeline.ts). Never with fullPage: the lazy-content scroll comes between, and the clean-up must
 * have run before it, not be left to the last look after it.
 */
const lastLookNext = (req: ScreenshotRequest) => !req.fullPage && (ownSteps(req) || (!req.delay && !req.deterministic));

/** After the waits, before the lazy content: the clean-up itself, until the waits' clean-up end. */
export const removeBanners: Step<CleanupContext> = async ({ cleanup, deadline, hops, waits, req }) => {
  await deadline.step('banners', hops.guard(cleanup!.finish(waits.cleanupEnd(), { confirmAtLastLook: lastLookNext(req) })));
};

/** Right before the caller's actions and js, when there are any. */
export const lastLookBeforeOwnSteps: Step<CleanupContext> = async (ctx) => {
  if (ownSteps(ctx.req)) await lastLook(ctx);
};

/** Right before the capture, unless it was taken before the caller's own steps. */
export const lastLook: Step<CleanupContext> = async (ctx) => {
  if (ctx.bannerAction !== undefined) return;
  const { cleanup, deadline, hops, waits } = ctx;
  ctx.bannerAction = await deadline.step('last-look', hops.guard(cleanup!.lastLook(waits.cleanupEnd())));
};
