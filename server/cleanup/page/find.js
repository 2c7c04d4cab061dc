// In-page look for what the automatic clean-up would hide (spec §4.1 rule 3 step 2), without
// changing anything: the pre-check (sniff.js: nothing found, nothing to do) and the clean-up
// (dom-cleanup.js, which then acts) both use it. Plain JavaScript on purpose: read as text and
// serialised into the page (../page-scripts.ts; scan.js comes before it), so the TypeScript loader
// never touches it. Selector groups arrive with their needs (../selectors.ts) so that only
// selectors that can match are run; fixed layers come from hit tests (scLayers in scan.js).
//   scDomKit(cfg)                  helpers over the document: visibility, area, text, layers
//   scDomFind(cfg, kit, shared)    the automatic candidates, outermost only, with why each one
//                                  and, for a banner found by what it is, its reject control
/** Shared helpers of scDomFind and scDomCleanup. */
// eslint-disable-next-line no-unused-vars
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
// eslint-disable-next-line no-unused-vars
function scDomFind(cfg, kit, shared) {
  const tokens = shared.tokens();
  const picked = new Map();
  const rejects = new Map();
  /** Whether `outer` holds `el`, across shadow roots (a CMP's host and the box in its shadow root). */
  const holds = (outer, el) => {
    for (let p = el; p; p = p.parentNode || p.host) if (p === outer) return true;
    return false;
  };
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
  const g = scGenericKit(cfg);
  for (const el of shared.layers()) {
    if (picked.has(el) || kit.isRootish(el) || !kit.rendered(el) || kit.containsPage(el)) continue;
    // a banner by what it is (generic.js): its text and controls, shadow roots and frames included
    if (Array.from(picked.keys()).some((o) => holds(o, el))) continue; // a named CMP's own box
    const banner = scGenericBanner(el, kit, g, kit.consentRe);
    if (banner) {
      const box = kit.lift(el, (el.innerText || '').length);
      pick(box, banner.why);
      if (banner.reject) rejects.set(box, banner.reject);
      continue;
    }
    const t = kit.textOf(el, 4000);
    if (!t) continue;
    if (kit.overlayRe.test(t) && kit.hasControl(el) && overlayLike(el)) pick(kit.lift(el, t.length), named(el) ? 'overlay-layer:named' : 'overlay-layer');
  }
  const els = Array.from(picked.keys());
  return els.filter((el) => !els.some((o) => o !== el && holds(o, el))).map((el) => ({ el, why: picked.get(el), reject: rejects.get(el) || null }));
}
