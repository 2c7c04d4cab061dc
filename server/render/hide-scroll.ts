// The lazy-content scroll (lazy.ts) hidden from the page's scripts. Some consent libraries take a
// scroll as consent ("implied consent": a scroll listener, or a timer or animation frame polling
// scrollY); a scroll the service makes for lazy content would give it, by our hand, with or
// without blockCookieBanners. While the scroll runs:
//   - scroll and scrollend events of the document stop at the window, in the capture phase, before
//     any listener on the document or the window's bubbling ones (onscroll included) sees them;
//   - scrollY, pageYOffset, scrollX, pageXOffset, the root's and body's scrollTop / scrollLeft and
//     visualViewport.pageTop / pageLeft read where the page was before the scroll.
// What still sees it, by design: IntersectionObserver, <img loading=lazy> and
// content-visibility: auto (what the scroll is for), and getBoundingClientRect. Not hidden: a
// scroll listener registered on the window in the capture phase before the scroll started (it
// runs before ours). Our own code reads scrollHeight and calls scrollTo, which are left as they
// are. Source text, evaluated inside lazy.ts's scroll: it returns the function that undoes it.
export const HIDE_SCROLL = `() => {
  const doc = document;
  const x0 = window.scrollX, y0 = window.scrollY;
  const undo = [];
  const stop = (e) => {
    if (e.target === doc || e.target === window) e.stopImmediatePropagation();
  };
  for (const type of ['scroll', 'scrollend']) {
    window.addEventListener(type, stop, true);
    undo.push(() => window.removeEventListener(type, stop, true));
  }
  const pin = (obj, prop, read) => {
    const own = Object.getOwnPropertyDescriptor(obj, prop);
    let orig = own;
    for (let o = obj; !orig && o; o = Object.getPrototypeOf(o)) orig = Object.getOwnPropertyDescriptor(o, prop);
    if (!orig || (own && !own.configurable)) return;
    try {
      Object.defineProperty(obj, prop, {
        configurable: true,
        enumerable: orig.enumerable,
        get() { return read(this, orig); },
        set(v) { if (orig.set) orig.set.call(this, v); },
      });
    } catch (e) {
      return;
    }
    undo.push(() => (own ? Object.defineProperty(obj, prop, own) : delete obj[prop]));
  };
  const native = (self, orig) => (orig.get ? orig.get.call(self) : orig.value);
  for (const p of ['scrollY', 'pageYOffset']) pin(window, p, () => y0);
  for (const p of ['scrollX', 'pageXOffset']) pin(window, p, () => x0);
  const rootish = (el) => el === doc.documentElement || el === doc.body || el === doc.scrollingElement;
  pin(Element.prototype, 'scrollTop', (el, orig) => (rootish(el) ? (el === doc.scrollingElement ? y0 : 0) : native(el, orig)));
  pin(Element.prototype, 'scrollLeft', (el, orig) => (rootish(el) ? (el === doc.scrollingElement ? x0 : 0) : native(el, orig)));
  if (typeof VisualViewport === 'function') {
    const vv0 = window.visualViewport;
    const top0 = vv0 ? vv0.pageTop : y0, left0 = vv0 ? vv0.pageLeft : x0;
    pin(VisualViewport.prototype, 'pageTop', () => top0);
    pin(VisualViewport.prototype, 'pageLeft', () => left0);
  }
  return () => {
    for (let i = undo.length - 1; i >= 0; i--) {
      try {
        undo[i]();
      } catch (e) {
        /* the page made it unconfigurable: nothing to restore */
      }
    }
  };
}`;
