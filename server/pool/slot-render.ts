// One render in a slot: a browser in service, a prepared context (or one made now), the render
// pipeline raced against the page's crash, then the context's disposal. Browser-level failures
// become render_failed (DESIGN §3); a browser that cannot close a context is hung and replaced.
import { RenderFailed, RenderTimeout, ServiceError } from '../errors.ts';
import type { Deadline } from '../toolkit/deadline.ts';
import { BROWSER_STEP } from '../toolkit/browser.ts';
import { runPipeline, type PipelineDeps, type RenderResult } from '../render/pipeline.ts';
import { PAGE_STEP, prepareSlot, type Slot } from '../toolkit/slot.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';
import type { BrowserSupervisor, Generation } from './supervisor.ts';

const DISPOSE_TIMEOUT_MS = 5000; // a context that cannot be closed in this time means a hung browser

/**
 * Renders `req` in a slot of the browser in service. `onFinish` is given the promise of the
 * slot's disposal when the page may still be busy (a timeout, a render cut short, a caller gone):
 * the caller holds its render permit until then.
 */
export async function renderInSlot(
  browsers: BrowserSupervisor,
  req: ScreenshotRequest,
  deps: PipelineDeps,
  deadline: Deadline,
  onFinish: (done: Promise<void>) => void,
): Promise<RenderResult> {
  const browser = () =>
    deadline.step(BROWSER_STEP, browsers.current()).catch((e) => {
      throw e instanceof ServiceError ? e : new RenderFailed(`the browser could not be started: ${String(e).split('\n')[0]}`);
    });
  let g = await browser();
  while (!browsers.claim(g)) g = await browser(); // retired while we waited: its replacement is current
  let slot: Slot;
  try {
    slot = browsers.takeSlot(g) ?? (await deadline.step(PAGE_STEP, prepareSlot(g.launched.browser)));
  } catch (e) {
    browsers.unclaim(g);
    throw toServiceError(e, g);
  }
  let abandoned = false; // timed out, cut short (captureOnTimeout), or the caller went away: the page may still be busy
  try {
    const crashed = slot.crashed.then((e) => {
      throw new RenderFailed(`the page crashed: ${e.message}`);
    });
    const r = await Promise.race([runPipeline(slot, req, deadline, deps), crashed]);
    // captureOnTimeout: a page captured before it settled may still be busy, as after a timeout.
    abandoned = r.waitTimedOut.length > 0;
    return r;
  } catch (e) {
    abandoned = e instanceof RenderTimeout || (e instanceof ServiceError && e.code === 'client_closed');
    throw toServiceError(e, g);
  } finally {
    // A finished render's context closes in the background: the caller has its image and the
    // next render its permit ~10 ms sooner. After a timeout or a lost caller the page may be
    // busy (a script loop): then the permit (not the answer) is held until the context is
    // really gone, so that runaway pages can never outnumber the permits.
    const done = finishSlot(browsers, slot, g, abandoned);
    if (abandoned) onFinish(done);
  }
}

async function finishSlot(browsers: BrowserSupervisor, slot: Slot, g: Generation, afterTimeout: boolean): Promise<void> {
  await disposeSlot(browsers, slot, g, afterTimeout);
  browsers.finished(g);
}

/** Closes the request's context; if the browser cannot even do that, it is hung: replace it. */
async function disposeSlot(browsers: BrowserSupervisor, slot: Slot, g: Generation, afterTimeout: boolean): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), DISPOSE_TIMEOUT_MS)));
  const outcome = await Promise.race([slot.dispose().then(() => 'closed' as const), hung]);
  clearTimeout(timer);
  if (outcome === 'hung') browsers.hung(g, afterTimeout);
}

/** Browser-level failures (closed targets, lost sessions) become render_failed. */
function toServiceError(e: unknown, g: Generation): ServiceError {
  if (e instanceof ServiceError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  if (g.dead) return new RenderFailed('the browser crashed during the render');
  return new RenderFailed(`rendering failed: ${msg.split('\n')[0]}`);
}
