// A slot: one fresh incognito browser context with one page, prepared ahead of demand so that a
// request never waits for context or page creation. Used by exactly one render, then disposed
// (DESIGN §4: nothing is shared between requests: cookies, storage, cache, service workers).
import type { Browser, BrowserContext, CDPSession, Page, Target } from 'puppeteer-core';
import { DEFAULT_VIEWPORT, type Viewport } from '../kinds/request.ts';
import type { StepLabel } from './step-names.ts';

export interface Slot {
  context: BrowserContext;
  page: Page;
  client: CDPSession;
  /** The viewport the page has now (prepared at the default, so most renders skip setViewport). */
  viewport: Viewport;
  /** Set when the page's renderer crashed; the render fails with render_failed. */
  crashed: Promise<Error>;
  dispose(): Promise<void>;
}

/** The named step of a render that opens its page when no warm one is ready (prepareSlot). */
export const PAGE_STEP: StepLabel = { name: 'page', description: 'opening a page' };

export async function prepareSlot(browser: Browser): Promise<Slot> {
  const context = await browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } });
  try {
    const page = await context.newPage();
    const client = await page.createCDPSession();
    await page.setViewport(DEFAULT_VIEWPORT); // spec §2.2 default: most renders skip setViewport
    // alert/confirm/prompt are dismissed; beforeunload is accepted (dismissing it means "stay",
    // which would pin the page and end the render in a timeout).
    page.on('dialog', (d) => void (d.type() === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => {}));
    // Popups (window.open, target=_blank) are closed as soon as they appear.
    const closePopup = (t: Target) => {
      if (t.type() === 'page' && t.opener())
        void t
          .page()
          .then((p) => p?.close())
          .catch(() => {});
    };
    context.on('targetcreated', closePopup);
    const crashed = new Promise<Error>((resolve) => page.once('error', (e: Error) => resolve(e)));
    let disposed: Promise<void> | undefined;
    return {
      context,
      page,
      client,
      viewport: { ...DEFAULT_VIEWPORT },
      crashed,
      dispose: () => (disposed ??= context.close().catch(() => {})),
    };
  } catch (e) {
    await context.close().catch(() => {});
    throw e;
  }
}
