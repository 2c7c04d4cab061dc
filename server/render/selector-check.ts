// Whether the page can parse a selector (waitForSelector: a bad one is a 400 naming the field),
// asked in the page because only the browser's own parser decides. The question goes to the
// document of the moment: a page that navigates on its own (a client-side redirect right after
// load) can replace that document while it is asked, which is no answer about the selector, so it
// is asked again in the next document instead of failing the render.
import type { Page } from 'puppeteer-core';

/** A document that went away while it was asked (puppeteer's and the protocol's wordings). */
export const isDocumentGone = (e: unknown) =>
  /context was destroyed|Cannot find context|Execution context is not available|frame got detached|navigating frame was detached/i.test(
    e instanceof Error ? e.message : String(e),
  );

/** Asked again at most this many times (a page that keeps navigating is bounded by the render's deadline too). */
const MAX_ASKS = 20;

export async function selectorParses(page: Pick<Page, 'evaluate'>, selector: string): Promise<boolean> {
  // Source text, not a function: the TS loader would inject helpers that do not exist in the page.
  const expression = `(() => { try { document.createDocumentFragment().querySelector(${JSON.stringify(selector)}); return true; } catch { return false; } })()`;
  for (let ask = 1; ; ask++) {
    try {
      return (await page.evaluate(expression)) === true;
    } catch (e) {
      if (ask >= MAX_ASKS || !isDocumentGone(e)) throw e;
    }
  }
}
