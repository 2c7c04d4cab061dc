// Node side of the in-page DOM clean-up (page/find.js, page/dom-cleanup.js): hide list, scroll
// unlock, revert guard (spec §4.1 rules 3-4). One evaluate in the top document.
import type { Frame } from 'puppeteer-core';
import { genericWords } from './generic-words.ts';
import { hideList } from './hide-list.ts';
import { pageScript } from './page-scripts.ts';
import { needsOf } from './selectors.ts';

const source = pageScript('scan.js', 'generic.js', 'find.js', 'settle.js', 'dom-cleanup.js', 'late-watch.js');
// selector groups travel with their needs (selectors.ts): the page runs only those that can match
export const pageConfig = JSON.stringify({
  cmp: needsOf(hideList.cmp),
  banner: needsOf(hideList.banner),
  overlay: needsOf(hideList.overlay),
  backdrop: needsOf(hideList.backdrop),
  ads: needsOf(hideList.ads),
  scrollLockClasses: hideList.scrollLockClasses,
  consentText: hideList.consentText,
  overlayText: hideList.overlayText,
  generic: genericWords,
  acceptLabel: hideList.acceptLabel.pattern,
  notAcceptLabel: hideList.notAcceptLabel.pattern,
});

export interface DomRequest {
  /** Run the automatic banner/overlay part (blockCookieBanners). */
  banners: boolean;
  /** The caller's hideSelectors. */
  user: string[];
  /** blockAds. */
  ads: boolean;
  /** A CMP was rejected: unlock scroll even if nothing is left to hide. */
  acted: boolean;
  /** The page runs its scripts: a banner's reject control is clicked (else it is only hidden). Absent: on. */
  scripts?: boolean;
}

export interface DomResult {
  autoHidden: number;
  userHidden: number;
  unlocked: boolean;
  reverted: boolean;
  /** hideSelectors entries the browser could not parse (skipped). */
  invalid: string[];
  /** Why each automatic element was hidden (selector or heuristic name), for logs. */
  hidden: string[];
  /** Labels of the reject controls the generic detector clicked (page/generic.js). */
  rejected: string[];
  /** Content measure before / after the automatic part (-1 when not measured). */
  before: number;
  after: number;
}

/** How long the clean-up waits at most for a banner still arriving (page/settle.js). */
export const SETTLE_MS = 1500;
/** How often it asks again meanwhile. */
const SETTLE_POLL_MS = 50;

/**
 * Runs the DOM clean-up; the last look's watch (last-look.ts) then counts only what the page does
 * after it. Until `settleUntil` (epoch ms), while a layer over the page is still animating in or
 * out, it waits and asks again: the box is judged (and hidden) where it ends, never half-way. The
 * wait is on this side's clock, which a deterministic render's virtual time does not stop.
 */
export async function runDomCleanup(frame: Frame, req: DomRequest, settleUntil = 0): Promise<DomResult> {
  for (;;) {
    const settle = req.banners && Date.now() + SETTLE_POLL_MS < settleUntil;
    const expr = `(() => {\n${source}\nconst result = scDomCleanup(${pageConfig}, ${JSON.stringify({ ...req, settle })});\nif (!result.moving) scLateWatchMark();\nreturn result;\n})()`;
    const r = (await frame.evaluate(expr)) as DomResult | { moving: true };
    if (!('moving' in r)) return r;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}
