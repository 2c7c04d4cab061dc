// The last look (spec §4.1 rule 3: banners are removed "before capturing"): a banner that a page
// adds after the clean-up ran and before the picture is taken (a CMP on a timer, a banner shown
// when the clean-up hid another one, one that a deterministic render's timers bring in while they
// are drained) must not be in the picture. When the clean-up starts it installs a watch in the top
// document (page/late-watch.js: a MutationObserver that only sets a flag), which its DOM pass
// resets when it is done; just before the capture one tiny evaluate asks whether anything was
// added or revealed since. Nothing: the capture goes ahead (the usual case, measured ~1 ms). Something:
// the automatic DOM pass runs once more (hideSelectors and blockAds need no second pass: they are
// style sheets, which hold for late elements too). The page's scripts still run while the picture
// is taken (a banner arriving then was in a fresh CI run's picture, the last look a moment too
// early): so the last look right before the capture keeps the watch, and once the picture is taken
// it is asked again (arrivedDuringCapture); a banner found then is hidden and the picture taken
// once more. Limits: a late banner inside a cross-origin frame or a shadow root that existed
// before is not seen.
import type { Frame } from 'puppeteer-core';
import { runDomCleanup, SETTLE_MS, type DomResult } from './dom.ts';
import { pageScript } from './page-scripts.ts';
import { withTimeout } from './time-limit.ts';

const source = pageScript('late-watch.js');

/** Installs the watch in the document (idempotent); what the page does from now on is recorded. */
export async function watchLateChanges(frame: Frame, end: number): Promise<void> {
  const install = frame.evaluate(`(() => {\n${source}\nscLateWatchInstall();\n})()`).catch(() => undefined);
  await withTimeout(install, end - Date.now(), undefined);
}

/**
 * Whether the document changed since the watch was installed or last marked (true when there is
 * no watch: a new document); marks it, so that the last look counts from now. Bounded by `end`:
 * past it, true (the caller then looks in full).
 */
export async function changedSinceMark(frame: Frame, end: number): Promise<boolean> {
  const ask = frame.evaluate(`(() => {\n${source}\nconst changed = scLateWatchChanged(false);\nscLateWatchMark();\nreturn changed;\n})()`) as Promise<boolean>;
  return (await withTimeout(
    ask.catch(() => true),
    end - Date.now(),
    true,
  )) as boolean;
}

/**
 * Whether the document changed since the watch was installed or last marked (true when there is
 * no watch, or past `end`), and ends the watch: the question of lookAgain without its DOM pass.
 */
export async function changedSinceSurvey(frame: Frame, end: number, keepWatching = false): Promise<boolean> {
  const ask = frame.evaluate(
    `(() => {\n${source}\nconst changed = scLateWatchChanged(${!keepWatching});\nscLateWatchMark();\nreturn changed;\n})()`,
  ) as Promise<boolean>;
  return (await withTimeout(
    ask.catch(() => true),
    end - Date.now(),
    true,
  )) as boolean;
}

/**
 * Ends the watch, or with `keepWatching` marks it (what the pass below hides is not a change).
 * When the page added or revealed something since the clean-up looked, or the document is a new
 * one, runs the automatic DOM pass again and returns its result; otherwise null. Bounded by `end`
 * (epoch ms): past it the page is captured as it is.
 */
export async function lookAgain(frame: Frame, end: number, keepWatching = false): Promise<DomResult | null> {
  const ask = frame.evaluate(`(() => {\n${source}\nreturn scLateWatchChanged(${!keepWatching});\n})()`) as Promise<boolean>;
  if (
    !(await withTimeout(
      ask.catch(() => false),
      end - Date.now(),
      false,
    ))
  )
    return null;
  const late = await withTimeout(
    runDomCleanup(frame, { banners: true, user: [], ads: false, acted: false }, Math.min(end - 200, Date.now() + SETTLE_MS)).catch(() => null),
    end - Date.now(),
    null,
  );
  if (keepWatching)
    await withTimeout(
      frame.evaluate(`(() => {\n${source}\nscLateWatchMark();\n})()`).catch(() => undefined),
      end - Date.now(),
      undefined,
    );
  return late;
}

/** Whether a late pass took a banner away (hid or rejected something, and kept it so). */
export const removedSomething = (late: DomResult | null): late is DomResult =>
  late !== null && !late.reverted && (late.autoHidden > 0 || late.rejected.length > 0);
