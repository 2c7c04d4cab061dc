// What the clean-up is asked (CleanupOptions) and what it answers (BannerAction, CleanupReport),
// and the session a render holds between its steps (./steps.ts).
import type { FrameConsentState, OptOutEvent } from './autoconsent.ts';
import type { DomResult } from './dom.ts';

export interface CleanupOptions {
  blockCookieBanners: boolean;
  hideSelectors: string[];
  blockAds: boolean;
  /**
   * false: the page renders without its scripts (server/emulation/). The CMP driver is skipped
   * then: it waits on timers, which do not fire in such a page, and a consent platform needs its
   * scripts to show a banner or to take a rejection at all; what the markup itself shows is hidden
   * by the DOM clean-up, which needs no timers. Absent: on.
   */
  javaScriptEnabled?: boolean;
}

/**
 * What the clean-up did, sent as `x-banner-action`: `none`, `hidden`, `hidden:<cmp>`, `reverted`,
 * `rejected:<cmp>`. The token before ':' is the action; the CMP name (autoconsent's rule name,
 * lower-case, [a-z0-9.-]) follows where known; `rejected:generic` / `hidden:generic` are the
 * generic detector's click / hide.
 */
export type BannerAction = string;

export interface CleanupReport {
  action: BannerAction;
  /** CMP that was rejected or detected, if any. */
  cmp: string | null;
  /** Per-frame autoconsent state (frames where the driver ran and that still exist). */
  frames: FrameConsentState[];
  /** Opt-out results reported by any frame, including frames removed since. */
  optOuts: OptOutEvent[];
  dom: DomResult | null;
  /** The last look's DOM pass, when the page added or revealed something after the clean-up. */
  late?: DomResult | null;
  /** That pass ran after the capture: the banner arrived while the picture was taken (taken again). */
  duringCapture?: boolean;
  /** Labels of clicks the guard refused (should stay empty). */
  blockedClicks: string[];
  /** The early look held: the page was surveyed when it loaded and had not changed since. */
  early?: boolean;
  durationMs: number;
  /** Set when the clean-up failed unexpectedly (the page is then captured as it is). */
  error?: string;
}

export interface FinishOptions {
  /**
   * The last look comes right after finish(), nothing of the request between (no actions, js,
   * delay or freeze before it): a page found empty of banners when it loaded, and still at that
   * document, is then asked once, by the last look, whether it changed since, instead of twice
   * (index.ts). A change found then runs the whole clean-up there.
   */
  confirmAtLastLook?: boolean;
}

export interface LastLookOptions {
  /** The capture follows at once: keep watching the page through it (arrivedDuringCapture). */
  keepWatching?: boolean;
}

export interface CleanupSession {
  /** Called after content is loaded and waits are done; must finish before `deadline` (epoch ms). */
  finish(deadline: number, opts?: FinishOptions): Promise<BannerAction>;
  /**
   * Called after finish(), right before the capture: hides a banner the page added since the
   * clean-up looked (last-look.ts) and returns the action to report. Must finish before `deadline`.
   */
  lastLook(deadline: number, opts?: LastLookOptions): Promise<BannerAction>;
  /**
   * After the capture, when the last look kept watching: whether the page added a banner while
   * the picture was being taken. If so it is hidden now (the report's action updated) and the
   * answer is true: the picture must be taken again. Ends the watch. Must finish before `deadline`.
   */
  arrivedDuringCapture(deadline: number): Promise<boolean>;
  /** Details of the last finish() (for logs and tests). */
  readonly report: CleanupReport | null;
  /**
   * Removes what the session registered on the page (the report binding; finish() does this
   * itself). For error paths where finish() is never called. Idempotent.
   */
  dispose(): Promise<void>;
}
