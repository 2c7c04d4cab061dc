// In-page pre-check (see ../sniff.ts): can autoconsent find anything in this document? Answers
// with the first reason found, or null. Cheap (one combined querySelector, a few globals, one walk
// over fixed layers), so that a page without a banner does not pay for injecting the autoconsent
// bundle (~30 ms). Plain JavaScript, serialised into the page like driver.js.
// eslint-disable-next-line no-unused-vars
function scConsentSniff(spec) {
  const doc = document;
  if (!doc.documentElement) return null;
  // 1. a CMP rule's necessary element exists (the selectors come from the rules themselves)
  try {
    if (spec.selector && doc.querySelector(spec.selector)) return 'selector';
  } catch (e) {
    for (const s of spec.selectors) {
      try {
        if (doc.querySelector(s)) return 'selector:' + s;
      } catch (e2) {
        /* a selector this engine does not parse */
      }
    }
  }
  // 2. a CMP's JavaScript API is present
  for (const g of spec.globals) {
    try {
      if (typeof window[g] !== 'undefined') return 'global:' + g;
    } catch (e) {
      /* getter threw */
    }
  }
  // 3. a URL the rules single out (Sourcepoint message frames)
  for (const p of spec.urlPatterns) {
    try {
      if (new RegExp(p).test(location.href)) return 'url';
    } catch (e) {
      /* bad pattern */
    }
  }
  if (!spec.layers || !doc.body) return null;
  // 4. what autoconsent's heuristic looks at: a fixed layer or a dialog (also inside open shadow
  //    roots) whose text reads as a consent notice
  const textRe = new RegExp(spec.layerText, 'i');
  const dialogLike = (el) => (el.tagName === 'DIALOG' && el.hasAttribute('open')) || el.getAttribute('role') === 'dialog' || el.getAttribute('aria-modal') === 'true';
  let found = null;
  const consider = (el) => {
    const t = el.textContent || '';
    if (t.length > 20000) return;
    if (textRe.test(t.replace(/\s+/g, ' '))) found = 'layer';
  };
  const walk = (scope) => {
    const w = doc.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT, {
      acceptNode(el) {
        if (found) return NodeFilter.FILTER_REJECT;
        if (el.shadowRoot) walk(el.shadowRoot);
        if (el.offsetParent !== null || el === doc.body || el === doc.documentElement) return dialogLike(el) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
        const cs = getComputedStyle(el);
        if (cs.display === 'none') return NodeFilter.FILTER_REJECT;
        return cs.position === 'fixed' ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
      },
    });
    for (let n = w.nextNode(); n && !found; n = w.nextNode()) consider(n);
  };
  walk(doc.body);
  return found;
}
