// In-page DOM clean-up (spec §4.1 rule 3 steps 2-3 and the revert guard of rule 4). Runs once in
// the top document's main world, right before capture. Plain JavaScript on purpose: read as text
// and serialised into the page (../page-scripts.ts; scan.js and find.js come before it, and
// find.js says what to hide), so the TypeScript loader never touches it.
//
//   1. user hideSelectors and, with blockAds, ad slots: always hidden (never reverted: asked for);
//   2. automatic hiding: curated CMP containers; generic banner names whose text reads as a consent
//      notice; fixed layers and dialogs that read as a consent notice or a newsletter/promotion
//      modal (scDomFind); then the empty dimming layers they leave;
//   3. scroll unlock on html/body (overflow, position, lock classes, blur on the page wrapper);
//   4. revert guard: if step 2-3 leave the page near-empty, undo them and keep the original page.
// html and body are never hidden. Styles go through constructed stylesheets and CSSOM inline styles,
// which a page's Content-Security-Policy does not block (a <style> element would be).
// eslint-disable-next-line no-unused-vars
function scDomCleanup(cfg, req) {
  // a banner still arriving: the caller waits and asks again (settle.js)
  if (req.settle && req.banners && scLayersMoving()) return { moving: true };
  const result = { autoHidden: 0, userHidden: 0, unlocked: false, reverted: false, invalid: [], hidden: [], rejected: [], before: -1, after: -1 };
  if (!document.documentElement || !document.body) return result;
  const kit = scDomKit(cfg);
  const { doc, root, body, vw, vh, qsa, visible, area, position, isRootish, rendered } = kit;
  const HIDDEN_ATTR = 'data-sc-cleanup-hidden';
  const shared = scShared();
  const tokens = shared.tokens();
  const validSelector = (sel) => {
    try {
      doc.querySelector(sel);
      return typeof sel === 'string' && sel.trim() !== '';
    } catch (e) {
      return false;
    }
  };
  // ---- 1. user selectors and ads (kept even when the automatic part is reverted)
  const userSheet = new CSSStyleSheet();
  const userSelectors = [];
  for (const sel of req.user || []) {
    if (validSelector(sel)) userSelectors.push(sel);
    else result.invalid.push(sel);
  }
  const adSelectors = req.ads ? cfg.ads.map((n) => n.sel) : [];
  const adCandidates = new Set(req.ads ? tokens.candidates(cfg.ads) : []);
  const counted = new Set();
  for (const sel of userSelectors.concat(adSelectors)) {
    const count = userSelectors.includes(sel) || adCandidates.has(sel);
    if (count) for (const el of qsa(sel)) if (!isRootish(el) && !counted.has(el) && rendered(el)) counted.add(el);
    try {
      userSheet.insertRule(`:is(${sel}):not(html):not(body){display:none !important}`, userSheet.cssRules.length);
    } catch (e) {
      result.invalid.push(sel);
    }
  }
  result.userHidden = counted.size;
  if (userSheet.cssRules.length) doc.adoptedStyleSheets = doc.adoptedStyleSheets.concat([userSheet]);

  if (!req.banners) return result;

  // ---- 2. automatic candidates
  const found = scDomFind(cfg, kit, shared);
  const picks = found.map((f) => f.el);
  result.hidden = found.map((f) => f.why);
  // a banner found by what it is: its reject control is clicked (the page's own handler records
  // the refusal), then the box is hidden as the others whatever the page does with it
  if (req.scripts !== false) {
    for (const f of found) {
      if (!f.reject) continue;
      try {
        f.reject.click();
        result.rejected.push((f.reject.innerText || f.reject.value || '').trim().slice(0, 60));
      } catch (e) {
        /* the control went away: the box is hidden all the same */
      }
    }
  }
  const layers = shared.layers();
  const cmpSelectors = cfg.cmp.map((n) => n.sel);

  if (picks.length === 0 && !req.acted) return result;

  // ---- content measure for the revert guard (only paid when something will change)
  const contentScore = (limit) => {
    let score = 0;
    const seen = new Map();
    const vis = (el) => {
      let v = seen.get(el);
      if (v === undefined) {
        v = visible(el);
        seen.set(el, v);
      }
      return v;
    };
    const MEDIA = new Set(['IMG', 'SVG', 'VIDEO', 'CANVAS', 'IFRAME', 'PICTURE', 'OBJECT', 'EMBED']);
    const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD']);
    const scopes = [body];
    // A walker without a filter callback: a page rendered without its scripts (javaScriptEnabled
    // false) refuses to call back into JavaScript from the DOM, and this must work there too.
    const pastSubtree = (w) => {
      for (;;) {
        const next = w.nextSibling();
        if (next) return next;
        if (!w.parentNode()) return null;
      }
    };
    while (scopes.length && score < limit) {
      const scope = scopes.pop();
      const w = doc.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      let n = w.nextNode();
      while (n && score < limit) {
        if (n.nodeType === 3) {
          const len = n.data.trim().length;
          if (len && n.parentElement && vis(n.parentElement)) score += len;
        } else {
          const tag = n.tagName.toUpperCase();
          if (SKIP.has(tag) || n.hasAttribute(HIDDEN_ATTR)) {
            n = pastSubtree(w);
            continue;
          }
          if (n.shadowRoot) scopes.push(n.shadowRoot);
          if (MEDIA.has(tag) && vis(n)) {
            const r = n.getBoundingClientRect();
            if (r.width >= 64 && r.height >= 64) score += 100;
          }
        }
        n = w.nextNode();
      }
    }
    return score;
  };
  const LIMIT = 600;
  result.before = contentScore(LIMIT);

  // ---- apply automatic hiding
  const undo = [];
  const setInline = (el, prop, value) => {
    const old = el.style.getPropertyValue(prop);
    const prio = el.style.getPropertyPriority(prop);
    el.style.setProperty(prop, value, 'important');
    undo.push(() => (old ? el.style.setProperty(prop, old, prio) : el.style.removeProperty(prop)));
  };
  const hideEl = (el) => {
    el.setAttribute(HIDDEN_ATTR, '');
    undo.push(() => el.removeAttribute(HIDDEN_ATTR));
    setInline(el, 'display', 'none');
  };
  const autoSheet = new CSSStyleSheet();
  for (const sel of cmpSelectors) {
    try {
      autoSheet.insertRule(`:is(${sel}):not(html):not(body){display:none !important}`, autoSheet.cssRules.length);
    } catch (e) {
      /* validated by the unit test of hide-list.json */
    }
  }
  doc.adoptedStyleSheets = doc.adoptedStyleSheets.concat([autoSheet]);
  undo.push(() => (doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== autoSheet)));
  for (const el of picks) hideEl(el);
  result.autoHidden = picks.length;

  // dimming layers the hidden banner or modal leaves behind
  if (picks.length) {
    const seenLayer = new Set();
    const backdropSel = tokens.candidates(cfg.backdrop);
    const backdrops = layers.concat(backdropSel.length ? qsa(backdropSel.join(',')) : []);
    for (const el of backdrops) {
      if (seenLayer.has(el) || isRootish(el) || el.closest('[' + HIDDEN_ATTR + ']')) continue;
      seenLayer.add(el);
      if (!visible(el) || position(el) !== 'fixed') continue;
      if (area(el.getBoundingClientRect()) < 0.8 * vw * vh) continue;
      if ((el.innerText || '').trim().length > 3 || qsa('img, video, canvas, iframe, svg', el).length) continue;
      const cs = getComputedStyle(el);
      if (cs.zIndex !== 'auto' && parseInt(cs.zIndex, 10) < 0) continue;
      const bg = cs.backgroundColor.match(/rgba?\(([^)]+)\)/);
      const alpha = bg ? (bg[1].split(/[ ,/]+/).length > 3 ? parseFloat(bg[1].split(/[ ,/]+/)[3]) : 1) : 0;
      const paints = alpha > 0 || cs.backdropFilter !== 'none' || cs.backgroundImage !== 'none';
      if (!paints) continue;
      hideEl(el);
      result.hidden.push('backdrop');
      result.autoHidden++;
    }
  }

  // ---- 3. scroll unlock (only once the clean-up acted: a page's own overflow:hidden shell is kept)
  if (result.autoHidden > 0 || req.acted) {
    for (const el of [root, body]) {
      for (const cls of cfg.scrollLockClasses) {
        if (el.classList.contains(cls)) {
          el.classList.remove(cls);
          undo.push(() => el.classList.add(cls));
          result.unlocked = true;
        }
      }
    }
    for (const el of [root, body]) {
      const cs = getComputedStyle(el);
      if (cs.overflowY === 'hidden' || cs.overflowY === 'clip') {
        setInline(el, 'overflow-y', 'visible');
        result.unlocked = true;
      }
      if (el === body && cs.position === 'fixed') {
        setInline(el, 'position', 'static');
        setInline(el, 'top', 'auto');
        result.unlocked = true;
      }
      if (cs.filter && cs.filter.includes('blur')) {
        setInline(el, 'filter', 'none');
        result.unlocked = true;
      }
    }
    for (const el of Array.from(body.children)) {
      if (el.hasAttribute(HIDDEN_ATTR)) continue;
      const f = getComputedStyle(el).filter;
      if (f && f.includes('blur')) {
        setInline(el, 'filter', 'none');
        result.unlocked = true;
      }
    }
  }

  // ---- 4. revert guard
  result.after = contentScore(LIMIT);
  const nearEmpty = result.after < 100 && result.after < result.before * 0.25;
  if (nearEmpty && result.autoHidden > 0) {
    for (let i = undo.length - 1; i >= 0; i--) undo[i]();
    const ac = doc.getElementById('autoconsent-css-rules');
    if (ac) ac.remove();
    result.reverted = true;
    result.unlocked = false;
  }
  return result;
}
