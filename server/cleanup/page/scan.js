// Shared in-page scanning helpers for find.js, sniff.js and dom-cleanup.js (before them; see
// ../selectors.ts and ../sniff.ts). Plain JavaScript, serialised into the page. Both scale with
// the viewport, not with the size of the DOM:
//   scTokens()  one pass over the elements: which ids, classes and custom element names exist
//               (lower-case), and every class/id value in one string, so that a selector's needs
//               can be checked without matching it
//   scLayers()  the layers over the page: the outermost fixed or sticky elements found by hit
//               testing a grid of points over the viewport (open shadow roots included), plus
//               dialogs; a banner that covers nothing of the viewport is not in the capture
 
function scTokens() {
  const ids = new Set();
  const classes = new Set();
  const tags = new Set();
  const parts = [];
  const all = document.getElementsByTagName('*');
  for (let i = 0; i < all.length; i++) {
    const el = all[i];
    tags.add(el.localName);
    const id = el.id;
    if (id && typeof id === 'string') {
      const l = id.toLowerCase();
      ids.add(l);
      parts.push(l);
    }
    const c = el.getAttribute('class');
    if (c) {
      const l = c.toLowerCase();
      parts.push(l);
      for (const t of l.split(/\s+/)) if (t) classes.add(t);
    }
  }
  const blob = parts.join(' ');
  return {
    /** False when the selector cannot match (a needed id, class or substring is absent). */
    possible(n) {
      for (const i of n.ids) if (!ids.has(i.toLowerCase())) return false;
      for (const c of n.classes) if (!classes.has(c.toLowerCase())) return false;
      for (const s of n.subs) if (!blob.includes(s)) return false;
      for (const t of n.tags) if (!tags.has(t)) return false;
      return true;
    },
    /** The selectors of `needs` that could match, as one list (or '' when none). */
    candidates(needs) {
      return needs.filter((n) => this.possible(n)).map((n) => n.sel);
    },
  };
}

 
function scLayers() {
  const doc = document;
  const root = doc.documentElement;
  const body = doc.body;
  const vw = window.innerWidth || root.clientWidth || 1;
  const vh = window.innerHeight || root.clientHeight || 1;
  // 45 points: denser near the edges, where bars and corner boxes sit. Hit testing costs ~0.1-0.3 ms
  // a point on a large page, so the grid is kept small.
  const XS = [0.02, 0.25, 0.5, 0.75, 0.98];
  const YS = [0.01, 0.06, 0.15, 0.35, 0.5, 0.65, 0.85, 0.93, 0.985];
  const posCache = new Map();
  const pos = (el) => {
    let p = posCache.get(el);
    if (p === undefined) {
      p = getComputedStyle(el).position;
      posCache.set(el, p);
    }
    return p;
  };
  const parentOf = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const seen = new Set();
  const layers = new Set();
  const climb = (el) => {
    let outer = null;
    for (let p = el; p && p !== body && p !== root; p = parentOf(p)) {
      if (seen.has(p) && p !== el) break; // the rest of the chain was climbed already
      seen.add(p);
      const q = pos(p);
      if (q === 'fixed' || q === 'sticky') outer = p;
    }
    if (outer) layers.add(outer);
  };
  const hit = (scope, x, y, depth) => {
    const stack = scope.elementsFromPoint(x, y);
    for (let i = 0; i < stack.length && i < 6; i++) {
      const el = stack[i];
      if (el === body || el === root) break;
      if (el.shadowRoot && depth < 3) hit(el.shadowRoot, x, y, depth + 1);
      if (!seen.has(el)) climb(el);
    }
  };
  for (const fy of YS) for (const fx of XS) hit(doc, Math.floor(fx * vw), Math.floor(fy * vh), 0);
  // keep the outermost of nested layers
  const out = Array.from(layers).filter((el) => {
    for (let p = parentOf(el); p && p !== body; p = parentOf(p)) if (layers.has(p)) return false;
    return true;
  });
  let tops = Array.from(doc.querySelectorAll('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]'));
  try {
    // the top layer's popovers (a popover is fixed in the top layer, wherever it sits in the DOM)
    tops = tops.concat(Array.from(doc.querySelectorAll(':popover-open')));
  } catch (e) {
    /* an engine without popovers */
  }
  for (const d of tops) {
    if (!out.some((l) => l === d || l.contains(d))) out.push(d);
  }
  return out;
}

/** Lazily computed, shared by the pre-check and the clean-up within one evaluate. */
// eslint-disable-next-line no-unused-vars
function scShared() {
  let tokens = null;
  let layers = null;
  return {
    tokens: () => (tokens = tokens || scTokens()),
    layers: () => (layers = layers || scLayers()),
  };
}
