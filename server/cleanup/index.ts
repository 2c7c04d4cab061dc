// Consent-banner and overlay clean-up (spec §1, §2.1 blockCookieBanners/hideSelectors/blockAds,
// §4.1 rules 3 and 4; DESIGN §3 "never accept consent"). The pipeline, in the spec's order:
//   1. reject on consent-management platforms: @duckduckgo/autoconsent, opt-out only, in every frame
//      (shadow DOM and cross-origin iframes included), injected when the clean-up runs (autoconsent.ts);
//   2. hide the curated list (hide-list.json) + hideSelectors (+ ad slots with blockAds), and the
//      banners found by what they are (page/generic.js: a layer with consent words and a decision
//      control, in shadow roots and frames too), whose reject control is clicked first;
//   3. lift the scroll lock;
//   4. revert 2-3 if they leave the page near-empty (page/dom-cleanup.js);
//   then, right before the capture, a last look for banners added since (last-look.ts).
// The clean-up has its own budget (CLEANUP_BUDGET_MS) inside the render budget. A pre-check in
// every frame (sniff.ts) decides where autoconsent is injected and whether there is anything to
// hide: a page without a banner pays one small evaluate per frame (measured ~15 ms median). That
// evaluate runs early, when the top document has loaded (while the render waits for the network
// to go quiet), with the last look's watch installed by it: at finish(), a page with no other
// frame that has not changed since then pays one tiny evaluate (the early look), and none when the
// last look follows at once (finish's confirmAtLastLook): the last look's own evaluate then asks
// whether the page changed since the survey, and if it did the whole clean-up runs there.
import type { Frame, Page } from 'puppeteer-core';
import { injectAndPass, REPORT_BINDING, stopDriver, type FrameConsentState, type OptOutEvent } from './autoconsent.ts';
import { pageConfig, runDomCleanup, SETTLE_MS, type DomResult } from './dom.ts';
import { findRejection, lateAction, nameAction } from './action.ts';
import { earlyLookHolds, subframes, unconfirmedEarlyLook, type EarlyLook } from './early-look.ts';
import { changedSinceSurvey, lookAgain, removedSomething, watchLateChanges } from './last-look.ts';
import { survey } from './sniff.ts';
import { withTimeout } from './time-limit.ts';

export { cmpName } from './action.ts';
export type { BannerAction, CleanupOptions, CleanupReport, CleanupSession, FinishOptions, LastLookOptions } from './session.ts';
import type { CleanupOptions, CleanupReport, CleanupSession, FinishOptions, LastLookOptions } from './session.ts';

/** Upper bound of the clean-up's own time (the CMP opt-out included), inside the render budget. */
export const CLEANUP_BUDGET_MS = 2000;
/** Kept free before the caller's deadline. */
const DEADLINE_MARGIN_MS = 100;

/** At most this many frames get the CMP driver (the top document first, then in document order). */
const MAX_FRAMES = 20;

/**
 * Called on the prepared page before navigation (url mode) or setContent (html mode). It registers
 * nothing on the page: the CMP driver is injected into every frame, cross-origin ones included,
 * when finish() runs (measured: injecting into each new document instead costs ~50 ms per load,
 * most pages have no banner, and setContent would bypass it anyway). finish() is the whole
 * clean-up; the session removes what it added to the page before it returns.
 */
export async function attachCleanup(page: Page, opts: CleanupOptions): Promise<CleanupSession> {
  let report: CleanupReport | null = null;
  let bound = false;
  const optOuts: OptOutEvent[] = [];
  // The early look: the top document surveyed (and the watch installed) as soon as it has loaded.
  let early: EarlyLook | undefined;
  // finish() answered from the early look without asking the page; the last look asks (below)
  let unconfirmed = false;
  // the last look left its watch on the page, for arrivedDuringCapture
  let watching = false;
  const onLoad = () => {
    const main = page.mainFrame();
    early = { url: main.url(), survey: survey(main, true, pageConfig, true) };
  };
  const looksEarly = opts.blockCookieBanners && opts.javaScriptEnabled !== false;
  if (looksEarly) page.on('load', onLoad);
  const dispose = async () => {
    if (looksEarly) page.off('load', onLoad);
    if (!bound) return;
    bound = false;
    await page.removeExposedFunction(REPORT_BINDING).catch(() => undefined);
  };
  const bind = async () => {
    try {
      await page.exposeFunction(REPORT_BINDING, (json: unknown) => {
        try {
          const e = JSON.parse(String(json)) as Record<string, unknown>;
          if (e && e.type === 'optOutResult' && optOuts.length < 100) {
            optOuts.push({
              type: 'optOutResult',
              top: e.top === true,
              url: String(e.url ?? '').slice(0, 500),
              cmp: String(e.cmp ?? '').slice(0, 120),
              result: e.result === true,
              actions: Number(e.actions) || 0,
            });
          }
        } catch {
          /* ignore malformed reports (a page could call the binding) */
        }
      });
      bound = true;
    } catch {
      /* already bound or page gone: the per-frame state answers still carry the results */
    }
  };
  return {
    get report() {
      return report;
    },
    dispose,
    async finish(deadline: number, finishOpts: FinishOptions = {}) {
      const t0 = Date.now();
      try {
        if (looksEarly) page.off('load', onLoad);
        // hideSelectors and blockAds are style sheets the DOM pass adds: that pass always runs
        if (finishOpts.confirmAtLastLook && early && opts.hideSelectors.length === 0 && !opts.blockAds) {
          report = await unconfirmedEarlyLook(page, early, Math.min(deadline - DEADLINE_MARGIN_MS, t0 + CLEANUP_BUDGET_MS), t0);
          if (report) {
            unconfirmed = true;
            return report.action;
          }
        }
        report = await runFinish(page, opts, deadline, t0, optOuts, bind, early);
      } catch (e) {
        // the clean-up never fails a render: the page is captured as it is
        report = {
          action: 'none',
          cmp: null,
          frames: [],
          optOuts: [],
          dom: null,
          blockedClicks: [],
          durationMs: Date.now() - t0,
          error: String(e).slice(0, 200),
        };
      } finally {
        await dispose();
      }
      return report.action;
    },
    async lastLook(deadline: number, lookOpts: LastLookOptions = {}) {
      if (!report || !opts.blockCookieBanners || opts.javaScriptEnabled === false) return report?.action ?? 'none';
      const keep = lookOpts.keepWatching === true;
      if (unconfirmed) {
        // the early look was taken at finish() unasked: this look confirms it, or the page changed
        // since it was surveyed and the whole clean-up runs now, followed by the usual last look
        unconfirmed = false;
        if (!(await changedSinceSurvey(page.mainFrame(), deadline - DEADLINE_MARGIN_MS, keep))) {
          watching = keep;
          return report.action;
        }
        try {
          report = await runFinish(page, opts, deadline, Date.now(), optOuts, bind, undefined);
        } catch (e) {
          report = { ...report, error: String(e).slice(0, 200) };
        } finally {
          await dispose();
        }
      }
      report.late = await lookAgain(page.mainFrame(), deadline - DEADLINE_MARGIN_MS, keep);
      if (report.late && report.action === 'none') report.action = lateAction(report.late);
      watching = keep;
      return report.action;
    },
    async arrivedDuringCapture(deadline: number) {
      if (!watching || !report) return false;
      watching = false;
      const late = await lookAgain(page.mainFrame(), deadline - DEADLINE_MARGIN_MS);
      if (!removedSomething(late)) return false;
      report.late = late;
      report.duringCapture = true;
      if (report.action === 'none') report.action = lateAction(late);
      return true;
    },
  };
}

async function runFinish(
  page: Page,
  opts: CleanupOptions,
  deadline: number,
  t0: number,
  optOuts: OptOutEvent[],
  bind: () => Promise<void>,
  early: EarlyLook | undefined,
): Promise<CleanupReport> {
  const hardEnd = deadline - DEADLINE_MARGIN_MS;
  const budgetEnd = Math.min(hardEnd, t0 + CLEANUP_BUDGET_MS);
  let frames: FrameConsentState[] = [];
  let domWork = opts.hideSelectors.length > 0 || opts.blockAds;
  let heldEarly = false;
  if (hardEnd - Date.now() < 50) {
    // no time left: capture the page as it is rather than overrun the render budget
    return {
      action: 'none',
      cmp: null,
      frames,
      optOuts: [],
      dom: null,
      blockedClicks: [],
      durationMs: Date.now() - t0,
      error: 'no time left for the clean-up',
    };
  }
  if (opts.blockCookieBanners) {
    // from here on the page's changes are recorded, until the DOM pass has looked (last-look.ts);
    // a page without its scripts cannot change itself
    const held = early && opts.javaScriptEnabled !== false ? await earlyLookHolds(page, early, budgetEnd) : null;
    if (opts.javaScriptEnabled !== false && !held) await watchLateChanges(page.mainFrame(), budgetEnd);
    heldEarly = held !== null;
    const pass = held ?? (await rejectPass(page, budgetEnd, hardEnd, bind, opts.javaScriptEnabled !== false));
    frames = pass.frames;
    domWork ||= pass.domWork;
  }

  const rejected = findRejection(optOuts, frames);
  const acted = rejected !== null && rejected.actions > 0;
  let dom: DomResult | null = null;
  if (domWork) {
    const req = { banners: opts.blockCookieBanners, user: opts.hideSelectors, ads: opts.blockAds, acted, scripts: opts.javaScriptEnabled !== false };
    // a banner still arriving is waited for (dom.ts), within the clean-up's budget
    const settleUntil = opts.javaScriptEnabled !== false ? Math.min(budgetEnd, Date.now() + SETTLE_MS) : 0;
    dom = await withTimeout(domPass(page, req, settleUntil), Math.max(0, hardEnd - Date.now()), null);
  }

  const detected = frames.flatMap((f) => f.popups.concat(f.detected))[0] ?? null;
  const { action, cmp } = opts.blockCookieBanners ? nameAction(rejected, acted, detected, dom) : { action: 'none', cmp: null };
  return {
    action,
    cmp,
    frames,
    optOuts: optOuts.slice(),
    dom,
    blockedClicks: frames.flatMap((f) => f.blocked),
    ...(heldEarly ? { early: true } : {}),
    durationMs: Date.now() - t0,
  };
}

/**
 * Step 1. A pre-check in every frame (sniff.ts) decides where autoconsent could act; only there
 * is the driver injected and one bounded pass run (in parallel); then every driver is stopped. If
 * an opt-out navigates the top document, wait (within the budget) for the new document to load.
 * `domWork` is false when no frame needs autoconsent and the top document has nothing to hide.
 */
async function rejectPass(
  page: Page,
  budgetEnd: number,
  hardEnd: number,
  bind: () => Promise<void>,
  scripts: boolean,
): Promise<{ frames: FrameConsentState[]; domWork: boolean }> {
  const main = page.mainFrame();
  let navigated = false;
  const onNav = (f: Frame) => {
    if (f === main) navigated = true;
  };
  page.on('framenavigated', onNav);
  try {
    const frames = [main, ...subframes(page)].slice(0, MAX_FRAMES);
    const budget = () => Math.max(0, budgetEnd - Date.now());
    const surveys = await withTimeout(Promise.all(frames.map((f) => survey(f, f === main, f === main ? pageConfig : null))), budget(), null);
    if (surveys === null) return { frames: [], domWork: true };
    const driven = scripts ? frames.filter((_, i) => surveys[i]!.reason !== null) : [];
    if (driven.length === 0) return { frames: [], domWork: surveys[0]!.candidates !== 0 };
    await bind();
    await withTimeout(Promise.all(driven.map((f) => injectAndPass(f, f === main, budget()))), budget() + 250, null);
    const stopped = await withTimeout(Promise.all(driven.map((f) => stopDriver(f))), Math.max(20, hardEnd - Date.now()), [] as (FrameConsentState | null)[]);
    if (navigated) {
      await main
        .waitForFunction(() => document.readyState === 'complete', { timeout: Math.max(1, budgetEnd - Date.now()), polling: 50 })
        .catch(() => undefined);
    }
    return { frames: stopped.filter((s): s is FrameConsentState => s !== null), domWork: true };
  } finally {
    page.off('framenavigated', onNav);
  }
}

async function domPass(page: Page, req: Parameters<typeof runDomCleanup>[1], settleUntil: number): Promise<DomResult | null> {
  try {
    return await runDomCleanup(page.mainFrame(), req, settleUntil);
  } catch {
    // a reject click may have reloaded the page: give it a moment and try once more
    await new Promise((r) => setTimeout(r, 300));
    return runDomCleanup(page.mainFrame(), req).catch(() => null);
  }
}
