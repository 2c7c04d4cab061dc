// `css`: a stylesheet the caller adds to the page. It goes in as a constructed stylesheet adopted by
// the top document, which no Content-Security-Policy blocks (style-src governs <style> elements,
// style attributes and loaded sheets; the banner clean-up relies on the same), and which the page's
// DOM does not show. Constructed stylesheets ignore @import (no extra load). Applied once the
// document has loaded (./index.ts says why then); the text is never logged.
import { traitedStep } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';
import { evaluateInPage } from './evaluate.ts';

/** The source that adopts `css` (a JSON string literal: the text cannot close the expression). */
export function adoptStylesheet(css: string): string {
  return `(() => { const s = new CSSStyleSheet(); s.replaceSync(${JSON.stringify(css)}); document.adoptedStyleSheets = [...document.adoptedStyleSheets, s]; })()`;
}

const CSS: StepLabel = { name: 'css', description: 'applying css' };

export const applyCss = traitedStep({ times: [CSS] }, async ({ client, req, deadline }) => {
  if (req.css === undefined || req.css === '') return;
  const css = req.css;
  await deadline.step(CSS, () => evaluateInPage(client, adoptStylesheet(css), 'css'));
});
