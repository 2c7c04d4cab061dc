// In-page generic banner detector: a consent banner found by what it is, not by its name (beside
// the rule lists: autoconsent's, hide-list.json). A layer over the page (fixed, sticky, an open
// dialog or popover: scLayers in scan.js) is a banner when its text, open shadow roots included,
// talks about cookies, consent or privacy (../generic-words.ts, eight languages) and it offers a
// consent decision:
//   - cookie words and a reject or accept control, or
//   - consent/privacy words and a reject control, or
//   - a consent sentence (hide-list.json consentText) and any control.
// A layer that is (or only holds) a frame is judged by the frame's document when it is of the same
// origin, else by its container: consent words in the frame's or its boxes' attributes or in the
// frame's host, at a banner's size. A header with a Privacy link, a chat or newsletter box (no
// decision offered), a footer in the flow (not a layer) are not banners. The reject control
// returned is what dom-cleanup.js clicks (never an accept, never "save"); none: the box is hidden.
// Plain JavaScript, serialised into the page after scan.js (../page-scripts.ts).

/** Helpers over elements, open shadow roots included. */
// eslint-disable-next-line no-unused-vars
function scGenericKit(cfg) {
  const re = (s) => new RegExp(s, 'i');
  const words = { cookie: re(cfg.generic.cookieWords), consent: re(cfg.generic.consentWords), frame: re(cfg.generic.frameWords) };
  const labels = { reject: re(cfg.generic.rejectLabel), save: re(cfg.generic.saveLabel), close: re(cfg.generic.closeLabel), accept: re(cfg.acceptLabel), notAccept: re(cfg.notAcceptLabel) };
  const CONTROL = 'button, a[href], [role=button], input[type=button], input[type=submit]';
  /** Elements of `root` and of the open shadow roots below it (bounded). */
  const deepAll = (root, sel, out, depth) => {
    out = out || [];
    depth = depth || 0;
    if (root.matches && root.matches(sel)) out.push(root);
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length && out.length < 300; i++) {
      const el = all[i];
      if (el.matches(sel)) out.push(el);
      if (el.shadowRoot && depth < 4) deepAll(el.shadowRoot, sel, out, depth + 1);
    }
    if (root.shadowRoot && depth < 4) deepAll(root.shadowRoot, sel, out, depth + 1);
    return out;
  };
  /** The text of `root`, shadow roots included; null past `max` characters (a page, not a box). */
  const deepText = (root, max) => {
    let text = '';
    const walk = (node, depth) => {
      if (node.shadowRoot && depth < 4) walk(node.shadowRoot, depth + 1);
      // a <slot> shows the host's own children (a web component's text is often slotted in)
      const kids = node.tagName === 'SLOT' && node.assignedNodes({ flatten: true }).length ? node.assignedNodes({ flatten: true }) : Array.from(node.childNodes);
      for (let i = 0; i < kids.length && text.length <= max; i++) {
        const n = kids[i];
        if (n.nodeType === 3) text += n.data + ' ';
        else if (n.nodeType === 1 && !/^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(n.tagName)) walk(n, depth);
      }
    };
    walk(root, 0);
    text = text.replace(/\s+/g, ' ').trim();
    return text.length > max ? null : text;
  };
  const labelOf = (c) => (c.innerText || c.value || c.getAttribute('aria-label') || c.getAttribute('title') || c.textContent || '').replace(/\s+/g, ' ').trim();
  const shown = (c) => (typeof c.checkVisibility === 'function' ? c.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : c.getClientRects().length > 0);
  /** The controls of a box: which one rejects, whether one accepts or closes. */
  const decision = (root) => {
    const found = { reject: null, accept: false, close: false, count: 0 };
    for (const c of deepAll(root, CONTROL)) {
      if (!shown(c)) continue;
      found.count++;
      const label = labelOf(c);
      if (!label || label.length > 60) continue;
      if (!found.reject && labels.reject.test(label) && !labels.save.test(label)) found.reject = c;
      else if (labels.accept.test(label) && !labels.notAccept.test(label)) found.accept = true;
      else if (labels.close.test(label)) found.close = true;
    }
    return found;
  };
  return { words, labels, deepAll, deepText, decision };
}

/**
 * Whether the layer `el` is a consent banner: null, or { why, reject } (reject: the control to
 * click, possibly inside a same-origin frame, or null).
 */
// eslint-disable-next-line no-unused-vars
function scGenericBanner(el, kit, g, consentRe) {
  const judge = (root) => {
    const text = g.deepText(root, 6000);
    if (!text) return null;
    const cookie = g.words.cookie.test(text);
    const consent = cookie || g.words.consent.test(text);
    const sentence = consentRe.test(text);
    if (!consent && !sentence) return null;
    const d = g.decision(root);
    if ((cookie && (d.reject || d.accept)) || (consent && d.reject) || (sentence && d.count > 0)) return { why: 'generic', reject: d.reject };
    return null;
  };
  const own = judge(el);
  if (own) return own;
  // a frame as the layer, or as all there is in it
  const frames = el.tagName === 'IFRAME' ? [el] : g.deepAll(el, 'iframe');
  if (frames.length !== 1 || (el.tagName !== 'IFRAME' && g.deepText(el, 200) === null)) return null;
  const frame = frames[0];
  let doc;
  try {
    doc = frame.contentDocument;
  } catch (e) {
    doc = null;
  }
  if (doc && doc.body) {
    const inner = judge(doc.body);
    return inner ? { why: 'generic:frame', reject: inner.reject } : null;
  }
  // a frame of another origin: by its container
  const r = frame.getBoundingClientRect();
  const w = Math.min(r.right, kit.vw) - Math.max(r.left, 0);
  const h = Math.min(r.bottom, kit.vh) - Math.max(r.top, 0);
  if (w <= 0 || h <= 0) return null;
  const bar = w >= 0.5 * kit.vw && h >= 40 && (r.top <= 0.1 * kit.vh || r.bottom >= 0.9 * kit.vh);
  const box = w * h >= 0.08 * kit.vw * kit.vh;
  if (!bar && !box) return null;
  const attrs = [];
  for (let p = frame; p && !kit.isRootish(p); p = p.parentElement || (p.parentNode && p.parentNode.host)) {
    for (const a of ['id', 'class', 'name', 'title', 'aria-label', 'src']) attrs.push(p.getAttribute(a) || '');
    if (p === el) break;
  }
  let host;
  try {
    host = new URL(frame.src, location.href).hostname;
  } catch (e) {
    host = '';
  }
  return g.words.frame.test(attrs.join(' ') + ' ' + host) ? { why: 'generic:frame', reject: null } : null;
}
