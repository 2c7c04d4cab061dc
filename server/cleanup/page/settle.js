// In-page look for a banner still arriving (see ../dom.ts): is a layer over the page (a fixed or
// sticky box, a dialog, a popover: what a banner is) in the middle of a CSS transition, a CSS
// animation or a Web Animation that ends? Then the clean-up waits for it to end (bounded) before
// it looks: a bar sliding in from below the viewport is not yet where the clean-up's hit tests
// look, and a capture would catch it half-way. Infinite animations (spinners, tickers) and
// animations outside layers (the page's own content) are not waited for. Plain JavaScript,
// serialised into the page like dom-cleanup.js.

// eslint-disable-next-line no-unused-vars
function scLayersMoving() {
  if (typeof document.getAnimations !== 'function') return false;
  const inLayer = (el) => {
    for (let p = el; p && p.nodeType === 1; p = p.parentElement || (p.parentNode && p.parentNode.host)) {
      if (p === document.body || p === document.documentElement) return false;
      const pos = getComputedStyle(p).position;
      if (pos === 'fixed' || pos === 'sticky' || p.tagName === 'DIALOG' || p.hasAttribute('popover')) return true;
    }
    return false;
  };
  // document.getAnimations() leaves out what runs inside shadow trees (a web component's bar
  // sliding in: <cookie-consent-banner>), so the open shadow roots of the elements near the body
  // (where a library puts its banner) are asked too; a bounded look, not a walk of the page.
  const anims = document.getAnimations();
  const near = [];
  if (document.body)
    for (const el of document.body.children) {
      near.push(el);
      if (el.children.length < 20) near.push(...el.children);
    }
  for (let i = 0; i < near.length && i < 400; i++) {
    const sr = near[i].shadowRoot;
    if (sr && typeof sr.getAnimations === 'function') anims.push(...sr.getAnimations());
  }
  for (let i = 0; i < anims.length && i < 200; i++) {
    const a = anims[i];
    if (a.playState !== 'running' || !a.effect || !(a.effect.target instanceof Element)) continue;
    const t = a.effect.getComputedTiming();
    if (!isFinite(t.endTime) || (t.progress !== null && t.progress >= 1)) continue;
    if (inLayer(a.effect.target)) return true;
  }
  return false;
}
