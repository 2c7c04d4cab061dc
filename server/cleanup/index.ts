// Consent-banner and overlay clean-up (spec §4.1 rules 3 and 4). PLACEHOLDER: the cleanup issue
// replaces this with the real pipeline; the interface below is what server/render uses.
import type { Page } from 'puppeteer-core';

export interface CleanupOptions {
  blockCookieBanners: boolean;
  hideSelectors: string[];
  blockAds: boolean;
}

/** What the clean-up did, sent as `x-banner-action`: "none", "hidden", "reverted", "rejected:<cmp>". */
export type BannerAction = string;

export interface CleanupSession {
  /** Called after content is loaded and waits are done; must finish before `deadline` (epoch ms). */
  finish(deadline: number): Promise<BannerAction>;
}

/**
 * Called on the prepared page BEFORE navigation (url mode) or before setContent (html mode), so
 * that CMP scripts can be injected into every frame as it is created.
 */
export async function attachCleanup(_page: Page, opts: CleanupOptions): Promise<CleanupSession> {
  return {
    async finish() {
      if (!opts.blockCookieBanners && opts.hideSelectors.length === 0 && !opts.blockAds) return 'none';
      return 'none';
    },
  };
}
