// In-page pre-check (see ../sniff.ts): can autoconsent find anything in this document? Answers
// with the first reason found, or null. Cheap (a token pass, a few querySelector calls, globals,
// hit tests over the viewport; scan.js and find.js come before this file), so that a page without
// a banner does not pay for injecting the autoconsent bundle (~30 ms). Plain JavaScript,
// serialised into the page like driver.js.
 
function scConsentSniff(spec, shared) {
  const doc = document;
  if (!doc.documentElement) return null;
  // 1. a CMP rule's necessary element exists (selectors from the rules themselves, see sniff.ts);
  //    only those whose ids/classes occur in the document are matched
  const candidates = shared.tokens().candidates(spec.needs);
  if (candidates.length) {
    try {
      if (doc.querySelector(candidates.join(','))) return 'selector';
    } catch (e) {
      for (const s of candidates) {
        try {
          if (doc.querySelector(s)) return 'selector:' + s;
        } catch (e2) {
          /* a selector this engine does not parse */
        }
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
  // 4. what autoconsent's heuristic looks at: a layer over the page whose text reads as a consent
  //    notice or offers a reject control
  const textRe = new RegExp(spec.layerText, 'i');
  for (const el of shared.layers()) {
    const t = el.textContent || '';
    if (t.length <= 20000 && textRe.test(t.replace(/\s+/g, ' '))) return 'layer';
  }
  return null;
}

/**
 * The pre-check of one frame: why autoconsent could act here (or null) and, when that is null
 * and `cfg` (the hide list, top document only) is given, how many elements the clean-up would
 * hide. Nothing and nothing: the clean-up has nothing to do in this frame.
 */
// eslint-disable-next-line no-unused-vars
function scSurvey(spec, cfg) {
  const shared = scShared();
  const reason = scConsentSniff(spec, shared);
  if (reason || !cfg || !document.body) return { reason, candidates: -1 };
  // a layer still moving (settle.js) may be a banner on its way in: the clean-up looks again then
  return { reason: null, candidates: scLayersMoving() ? -1 : scDomFind(cfg, scDomKit(cfg), shared).length };
}
