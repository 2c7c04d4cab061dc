// The early look (index.ts): the top document surveyed as soon as it has loaded (sniff.ts), and
// when that answer may stand in for the clean-up's own first look.
import type { Page } from 'puppeteer-core';
import type { CleanupReport } from './session.ts';
import type { FrameConsentState } from './autoconsent.ts';
import { changedSinceMark } from './last-look.ts';
import type { Survey } from './sniff.ts';
import { withTimeout } from './time-limit.ts';

export interface EarlyLook {
  /** The top document's URL when it was surveyed (autoconsent's rules depend on it). */
  url: string;
  survey: Promise<Survey>;
}

/** Frames the CMP driver may be injected into besides the top document. */
export const subframes = (page: Page) => page.frames().filter((f) => f !== page.mainFrame() && !f.detached && /^(https?:|about:)/.test(f.url()));

/**
 * Step 1 from the early look, when it still holds: the page has no other frame, the top document
 * is the one surveyed, at the same URL, and nothing was added or revealed in it since (its watch
 * says so, and is marked: the last look counts from here). Then autoconsent had no reason to run
 * and the DOM clean-up has as much to do as then. Otherwise null: the full pass looks again.
 */
export async function earlyLookHolds(page: Page, early: EarlyLook, end: number): Promise<{ frames: FrameConsentState[]; domWork: boolean } | null> {
  const main = page.mainFrame();
  if (subframes(page).length > 0 || main.url() !== early.url) return null;
  const s = await withTimeout(early.survey, end - Date.now(), null);
  if (!s || s.reason !== null) return null;
  if (await changedSinceMark(main, end)) return null;
  return { frames: [], domWork: s.candidates !== 0 };
}

/**
 * finish() with `confirmAtLastLook`: when the early look found nothing at all (no reason for
 * autoconsent, nothing to hide) in a page that has no other frame and is still at the surveyed
 * URL, its answer is taken as it is, unasked: the last look, which comes right after (nothing of
 * the request runs between), asks the page once whether anything was added or revealed since the
 * survey, instead of two asks back to back. Otherwise null: finish() runs as always.
 */
export async function unconfirmedEarlyLook(page: Page, early: EarlyLook, end: number, t0: number): Promise<CleanupReport | null> {
  const main = page.mainFrame();
  if (subframes(page).length > 0 || main.url() !== early.url) return null;
  const s = await withTimeout(early.survey, end - Date.now(), null);
  if (!s || s.reason !== null || s.candidates !== 0) return null;
  return { action: 'none', cmp: null, frames: [], optOuts: [], dom: null, blockedClicks: [], early: true, durationMs: Date.now() - t0 };
}
