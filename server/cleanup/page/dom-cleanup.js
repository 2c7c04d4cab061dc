// In-page DOM clean-up (spec §4.1 rule 3 steps 2-3 and the revert guard of rule 4). Runs once in
// the top document's main world, right before capture. Plain JavaScript on purpose: read as text
// and serialised into the page (see ../dom.ts; scan.js is concatenated before it), so the
// TypeScript loader never touches it. Selector groups arrive with their needs (../selectors.ts)
// so that only selectors that can match are run; fixed layers come from hit tests (scLayers).
// scDomFind() only looks (the pre-check uses it: nothing found, nothing to do); scDomCleanup()
// looks again and acts.
//
//   1. user hideSelectors and, with blockAds, ad slots: always hidden (never reverted: asked for);
//   2. automatic hiding: curated CMP containers; generic banner names whose text reads as a consent
//      notice; fixed layers and dialogs that read as a consent notice or a newsletter/promotion
//      modal; then the empty dimming layers they leave;
//   3. scroll unlock on html/body (overflow, position, lock classes, blur on the page wrapper);
//   4. revert guard: if step 2-3 leave the page near-empty, undo them and keep the original page.
// html and body are never hidden. Styles go through constructed stylesheets and CSSOM inline styles,
// which a page's Content-Security-Policy does not block (a <style> element would be).
/** Shared helpers of scDomFind and scDomCleanup. */
function scDomKit(cfg) {
  const doc = document;
  const root = doc.documentElement;
  const body = doc.body;
  const vw = window.innerWidth || root.clientWidth || 1;
  const vh = window.innerHeight || root.clientHeight || 1;
  const kit = {
    doc,
    root,
    body,
    vw,
    vh,
    consentRe: new RegExp(cfg.consentText, 'i'),
    overlayRe: new RegExp(cfg.overlayText, 'i'),
    isRootish: (el) => el === root || el === body || el === doc.head,
    qsa(sel, scope) {
      try {
        return Array.from((scope || doc).querySelectorAll(sel));
      } catch (e) {
        return [];
      }
    },
    visible: (el) =>
      typeof el.checkVisibility === 'function' ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : !!el.getClientRects().length,
    area: (r) => Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0)),
    position: (el) => getComputedStyle(el).position,
    dialogLike: (el) =>
      (el.tagName === 'DIALOG' && el.hasAttribute('open')) || el.getAttribute('role') === 'dialog' || el.getAttribute('role') === 'alertdialog' || el.getAttribute('aria-modal') === 'true',
  };
  /** Rendered with some size, itself or (for zero-size wrappers of fixed children) a descendant. */
  kit.rendered = (el) => {
    if (!kit.visible(el)) return false;
    const r = el.getBoundingClientRect();
    if (r.width * r.height > 0) return true;
    const kids = el.querySelectorAll('*');
    for (let i = 0; i < kids.length && i < 300; i++) {
      const kr = kids[i].getBoundingClientRect();
      if (kr.width * kr.height > 0 && kit.visible(kids[i])) return true;
    }
    return !!(el.shadowRoot && el.shadowRoot.childElementCount);
  };
  kit.textOf = (el, max) => {
    if ((el.textContent || '').length > max * 3) return null;
    const t = (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
    return t.length > max ? null : t;
  };
  kit.hasControl = (el) =>
    kit.qsa('button, a[href], [role=button], input[type=button], input[type=submit], input[type=email], [onclick]', el).length > 0 || !!el.shadowRoot;
  kit.containsPage = (el) => kit.qsa('main, article, [role=main]', el).length > 0;
  /**
   * A layer over the page (fixed/sticky itself or inside one, or a dialog), or a bar at the very
   * top or bottom of the document. Consent words inside the page's own content (a cookie-policy
   * page, a consent-status box) are not a banner.
   */
  kit.layerish = (el) => {
    for (let p = el; p && !kit.isRootish(p); p = p.parentElement) {
      const pos = kit.position(p);
      if (pos === 'fixed' || pos === 'sticky' || kit.dialogLike(p)) return true;
    }
    const r = el.getBoundingClientRect();
    const docH = Math.max(root.scrollHeight, body.scrollHeight);
    return r.top + window.scrollY < 150 || r.bottom + window.scrollY > docH - 150;
  };
  /** The outermost fixed ancestor below body that holds nothing but this element's content. */
  kit.lift = (el, textLen) => {
    let best = el;
    for (let p = el.parentElement; p && !kit.isRootish(p); p = p.parentElement) {
      const t = (p.innerText || '').replace(/\s+/g, ' ').trim();
      if (t.length > textLen + 60) break;
      if (kit.position(p) === 'fixed' || kit.dialogLike(p)) best = p;
    }
    return best;
  };
  return kit;
}

/**
 * The automatic candidates (step 2, before the backdrops): [{ el, why }], outermost only.
 * `shared` may carry tokens and layers already computed by the pre-check.
 */
function scDomFind(cfg, kit, shared) {
  const tokens = shared.tokens();
  const picked = new Map();
  const pick = (el, why) => {
    if (el && !kit.isRootish(el) && !picked.has(el)) picked.set(el, why);
  };
  for (const sel of tokens.candidates(cfg.cmp)) for (const el of kit.qsa(sel)) if (!kit.isRootish(el) && kit.rendered(el)) pick(el, sel);
  for (const sel of tokens.candidates(cfg.banner)) {
    for (const el of kit.qsa(sel).slice(0, 50)) {
      if (kit.isRootish(el) || !kit.rendered(el) || kit.containsPage(el) || !kit.layerish(el)) continue;
      const t = kit.textOf(el, 4000);
      if (t && kit.consentRe.test(t)) pick(kit.lift(el, t.length), sel);
    }
  }
  // layers over the page (fixed or sticky, open shadow roots included) and dialogs
  const overlaySel = cfg.overlay.map((n) => n.sel).join(',');
  const named = (el) => {
    try {
      return el.matches(overlaySel) || !!el.querySelector(overlaySel);
    } catch (e) {
      return false;
    }
  };
  const overlayLike = (el) => kit.dialogLike(el) || kit.area(el.getBoundingClientRect()) >= 0.15 * kit.vw * kit.vh;
  for (const el of shared.layers()) {
    if (picked.has(el) || kit.isRootish(el) || !kit.rendered(el) || kit.containsPage(el)) continue;
    const t = kit.textOf(el, 4000);
    if (!t) continue;
    if (kit.consentRe.test(t) && kit.hasControl(el)) pick(kit.lift(el, t.length), 'consent-layer');
    else if (kit.overlayRe.test(t) && kit.hasControl(el) && overlayLike(el)) pick(kit.lift(el, t.length), named(el) ? 'overlay-layer:named' : 'overlay-layer');
  }
  const els = Array.from(picked.keys());
  return els.filter((el) => !els.some((o) => o !== el && o.contains(el))).map((el) => ({ el, why: picked.get(el) }));
}

// eslint-disable-next-line no-unused-vars
function scDomCleanup(cfg, req) {
  const result = { autoHidden: 0, userHidden: 0, unlocked: false, reverted: false, invalid: [], hidden: [], before: -1, after: -1 };
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
