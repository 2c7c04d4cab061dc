// Preparing the page before the picture: the caller's css, actions, js and delay (./fields.ts).
// Each is a step of the render (server/render/pipeline.ts); the order of steps, and why each of ours sits where it does:
//
//   load -> css -> waits (idle, selector) -> banner clean-up -> lazy content (fullPage)
//        -> [last look, when there are actions or js] -> actions -> js -> delay -> freeze (deterministic)
//        -> [last look, otherwise] -> capture (clip)
//
// - css right after the load: it is part of how the page is to look, so everything that measures
//   the page afterwards sees it as it will be captured: the network-idle wait covers what its url()s
//   load, the lazy-content scroll runs over its layout (a css that lengthens or shortens the page),
//   and the clean-up's pre-check and revert guard (server/cleanup/) measure the page it applies to
//   (css that hides a banner leaves nothing to hide; css that uncovers content gives the guard its
//   true baseline). After the clean-up, as a last touch, it would change the page those measured.
// - the clean-up before the lazy content: a consent library may read the service's scroll as
//   consent (server/render/hide-scroll.ts hides it too); a banner the scroll brings in is the last
//   look's. A scroll lock the clean-up lifts also lets the scroll reach the lazy content.
// - actions after the clean-up: a consent banner over the page would take the clicks, and the
//   clean-up, run later, would hide what the actions opened (a menu or a dialog looks like an
//   overlay to it). For the same reason the clean-up's last look for banners the page added late
//   (server/cleanup/last-look.ts) comes before the caller's actions and js when there are any: what
//   they reveal is the caller's to keep.
// - js after the actions, so that it can read or finish what they did; delay after everything, for
//   what the page still animates; the freeze of deterministic renders right before the capture.
// Each is a no-op unless the request asks for it. Blocking (server/blocking/) starts before the
// load; clip is a capture option (server/clip/).
import { sleep } from '../toolkit/deadline.ts';
import { traitedStep } from '../toolkit/step-shape.ts';

export { runActions } from './actions.ts';
export { applyCss } from './css.ts';
export { runJs } from './js.ts';

/** The render step after the caller's actions and js: a wait like the others (with captureOnTimeout it ends before the budget and is named if cut). */
export const delay = traitedStep({ touchesPage: (req) => req.delay > 0 }, async ({ req, waits }) => {
  if (req.delay > 0) await waits.step('delay', () => sleep(req.delay));
});
