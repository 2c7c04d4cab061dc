// waitForSelector's syntax check (selector-check.ts) in real Chromium, and when the page replaces
// its document while it is asked: a page that navigates on its own right after load (test/api/
// pool.test.ts "a beforeunload handler does not block a navigation the page makes") failed its
// render with 500 render_failed "Execution context was destroyed, most likely because of a
// navigation." once on a saturated machine. The moment of that navigation cannot be forced from
// outside, so the first ask here fails as puppeteer fails it (its own message), then the real page answers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'puppeteer-core';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';
import { isDocumentGone, selectorParses } from './selector-check.ts';

let chromium: LaunchedBrowser;
let page: Page;
before(async () => {
  chromium = await launchChromium();
  page = await chromium.browser.newPage();
  await page.setContent('<p id=x>x</p>');
});
after(async () => {
  await chromium?.close();
});

/** The page, except that the first `gone` asks meet a document that went away meanwhile (puppeteer's errors). */
function navigatingAway(gone: string[]): Pick<Page, 'evaluate'> & { asks: number } {
  let asks = 0;
  const evaluate = (expression: string): Promise<unknown> => {
    const message = gone[asks++];
    return message ? Promise.reject(new Error(message)) : page.evaluate(expression);
  };
  return {
    get asks() {
      return asks;
    },
    evaluate: evaluate as Page['evaluate'],
  };
}

test('the browser decides: a CSS selector parses, a broken one does not', async () => {
  assert.equal(await selectorParses(page, '#x > p:not(.a)'), true);
  assert.equal(await selectorParses(page, 'p['), false);
});

test('a document replaced while it is asked is asked again in the next one, not a failed render', async () => {
  const racing = navigatingAway(['Execution context was destroyed, most likely because of a navigation.', 'Cannot find context with specified id']);
  assert.equal(await selectorParses(racing, '#arrived'), true);
  assert.equal(racing.asks, 3);
  assert.equal(await selectorParses(navigatingAway(['Execution context was destroyed, most likely because of a navigation.']), 'p['), false);
});

test('any other failure (the page closed, a protocol error) still fails', async () => {
  await assert.rejects(selectorParses(navigatingAway(['Protocol error: Target closed']), '#x'), /Target closed/);
  assert.equal(isDocumentGone(new Error('Navigating frame was detached')), true);
  assert.equal(isDocumentGone(new Error('Session closed. Most likely the page has been closed.')), false);
});
