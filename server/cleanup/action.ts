// What the clean-up reports as `x-banner-action` (session.ts BannerAction): the path that acted,
// autoconsent's rule by name, or the generic detector (page/generic.js) as `generic`, whether it
// rejected or only hid (`hidden:generic`: a box found by what it is, every automatic hide its
// doing). What the hide list's selectors hid is plain `hidden`.
import type { FrameConsentState, OptOutEvent } from './autoconsent.ts';
import type { DomResult } from './dom.ts';
import type { BannerAction } from './session.ts';

/** The generic detector's name in `x-banner-action`. */
export const GENERIC = 'generic';

/**
 * The action of one clean-up: `reverted`; `rejected:<cmp>` when autoconsent rejected by a click or
 * an API call, `rejected:generic` when the generic detector clicked a reject control;
 * `hidden:<cmp>` (`hidden:generic` for the generic detector's boxes) / `hidden` when something was
 * hidden; else `none`.
 */
export function nameAction(
  rejected: { cmp: string; actions: number } | null,
  acted: boolean,
  detected: string | null,
  dom: DomResult | null,
): { action: BannerAction; cmp: string | null } {
  if (dom?.reverted) return { action: 'reverted', cmp: null };
  if (acted) {
    const cmp = cmpName(rejected!.cmp);
    return { action: `rejected:${cmp}`, cmp };
  }
  if (dom && dom.rejected.length > 0) return { action: `rejected:${GENERIC}`, cmp: GENERIC };
  if ((dom && dom.autoHidden > 0) || rejected) {
    const cmp = rejected ? cmpName(rejected.cmp) : detected ? cmpName(detected) : dom && onlyGeneric(dom) ? GENERIC : null;
    return { action: cmp ? `hidden:${cmp}` : 'hidden', cmp };
  }
  return { action: 'none', cmp: null };
}

/** Whether every box the automatic pass hid was found by the generic detector (the dimming layers it leaves aside). */
function onlyGeneric(dom: DomResult): boolean {
  const boxes = dom.hidden.filter((why) => why !== 'backdrop');
  return boxes.length > 0 && boxes.every((why) => why === GENERIC || why.startsWith(`${GENERIC}:`));
}

/** The last look's action, when the clean-up before it did nothing. */
export function lateAction(late: DomResult): BannerAction {
  if (late.reverted) return 'none';
  return nameAction(null, false, null, late).action;
}

/**
 * The successful opt-out to report: one that clicked or called the CMP's API (a real rejection)
 * wins over one that only hid the popup (autoconsent's cosmetic rules and hide steps).
 */
export function findRejection(events: OptOutEvent[], frames: FrameConsentState[]): { cmp: string; actions: number } | null {
  const all = events.concat(frames.flatMap((f) => f.results.map((r) => ({ type: 'optOutResult' as const, top: f.top, url: f.url, ...r }))));
  const ok = all.filter((r) => r.result);
  return ok.find((r) => r.actions > 0) ?? ok[0] ?? null;
}

/** Header-safe CMP name: autoconsent's rule name, lower-case; the heuristic is just "heuristic". */
export function cmpName(raw: string): string {
  const name = String(raw);
  if (/^heuristic/i.test(name)) return 'heuristic';
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'unknown'
  );
}
