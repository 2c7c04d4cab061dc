// In-page autoconsent driver (spec §4.1 rule 3, step 1). Injected by ../autoconsent.ts into the
// main world of every frame when the clean-up runs, together with @duckduckgo/autoconsent's bundle
// and the compact rules that apply to the frame's URL. Plain JavaScript on purpose: this file is
// read as text and serialised into the page, so the TypeScript loader never touches it.
//
// It constructs AutoConsent directly (no message bridge: isMainWorld, so eval snippets run inline)
// with an opt-out-only configuration and wraps it so that:
//  - it never clicks an accept control: autoAction 'optOut', heuristicMode 'reject' (the heuristic
//    acts only on popups that have a reject button), and a click guard that refuses any click on
//    an element whose label reads as plain "accept / agree / allow / OK";
//  - it does not search in the background: start() is a no-op, and quickPass(budget) runs ONE
//    detection pass (site-specific, generic, then the heuristic), checks the popup once and
//    awaits the opt-out, all within the budget;
//  - after stop(), it makes no further click.
// Exposed as the non-enumerable window.__scAutoconsent { state, quickPass, stop }.
// eslint-disable-next-line no-unused-vars
function scAutoconsentDriver(lib, compactRulesJson, options) {
  if (Object.prototype.hasOwnProperty.call(window, '__scAutoconsent')) return;
  const isTop = window.top === window;

  const ACCEPT = new RegExp(options.acceptPattern, 'i');
  const NOT_ACCEPT = new RegExp(options.notAcceptPattern, 'i');
  const labelOf = (el) => {
    if (!el || el.nodeType !== 1) return '';
    const raw = el.innerText || el.textContent || el.value || el.getAttribute('aria-label') || el.getAttribute('title') || '';
    return String(raw).replace(/\s+/g, ' ').trim().slice(0, 120);
  };
  /** True when clicking this element would most likely give consent (an accept-type control). */
  const looksLikeAccept = (el) => {
    const label = labelOf(el);
    return label !== '' && ACCEPT.test(label) && !NOT_ACCEPT.test(label);
  };

  // actions = clicks and main-world API calls made while an opt-out runs. An opt-out that
  // "succeeds" without any (a rule that only hides) is reported as hidden, not rejected.
  const log = { detected: [], popups: [], results: [], done: null, blocked: [], errors: 0, actions: 0 };
  // Results also go to Node through a binding: a cross-origin frame that rejects is often removed
  // by its parent at once, and could not be asked afterwards.
  const report = (event) => {
    try {
      const fn = window[options.reportBinding];
      if (typeof fn === 'function') fn(JSON.stringify(Object.assign({ top: isTop, url: location.href }, event))).catch(() => undefined);
    } catch (e) {
      /* binding missing or replaced: the state() answer still carries the result */
    }
  };
  const send = async (msg) => {
    switch (msg && msg.type) {
      case 'cmpDetected':
        if (!log.detected.includes(msg.cmp)) log.detected.push(msg.cmp);
        break;
      case 'popupFound':
        if (!log.popups.includes(msg.cmp)) log.popups.push(msg.cmp);
        break;
      case 'optOutResult': {
        const r = { cmp: msg.cmp, result: !!msg.result, actions: log.actions };
        log.results.push(r);
        report(Object.assign({ type: 'optOutResult' }, r));
        break;
      }
      case 'autoconsentDone':
        log.done = { cmp: msg.cmp, cosmetic: !!msg.isCosmetic, clicks: msg.totalClicks };
        break;
      case 'autoconsentError':
        log.errors++;
        break;
      default:
        break; // 'report' (every state change) and others: not needed
    }
  };

  // popupRetries 0: the page is loaded and its waits are done when the pass runs, so a popup that
  // is not visible now is not in the capture (a CMP present without a popup costs nothing more)
  const sc = { popupRetries: 0, blockClicks: false, handling: null, handlingCmp: null, pass: null };
  const AutoConsent = lib.AutoConsent;
  class Driver extends AutoConsent {
    start() {
      /* no background search: quickPass() is the only pass */
    }
    waitForPopup(cmp, retries = 10, interval = 500) {
      return super.waitForPopup(cmp, Math.min(retries, sc.popupRetries), interval);
    }
    handlePopup(cmp) {
      if (sc.blockClicks) return Promise.resolve(false);
      if (!sc.handling) {
        sc.handlingCmp = cmp.name;
        sc.handling = super.handlePopup(cmp).catch(() => false);
      }
      return sc.handling;
    }
  }
  let instance = null;

  // Click guard. Autoconsent clicks through DomActions (click / clickElement) and, in a few
  // dynamic CMP classes and eval snippets, through HTMLElement.prototype.click directly.
  const guard = (el) => {
    if (sc.blockClicks) {
      log.blocked.push('after-finish');
      return false;
    }
    if (looksLikeAccept(el)) {
      log.blocked.push(labelOf(el));
      return false;
    }
    return true;
  };
  const nativeClick = HTMLElement.prototype.click;
  const optOutRunning = () => !!(instance && instance.state && instance.state.lifecycle === 'runningOptOut');
  HTMLElement.prototype.click = function click() {
    if (optOutRunning()) {
      if (!guard(this)) return undefined;
      log.actions++;
    }
    return nativeClick.call(this);
  };

  const construct = () => {
    instance = new Driver(send, options.config, { autoconsent: [], compact: JSON.parse(compactRulesJson) });
    const da = instance.domActions;
    da.clickElement = async (element) => {
      if (!element || !(element instanceof HTMLElement) || !guard(element)) return false;
      nativeClick.call(element);
      log.actions++;
      return true;
    };
    da.click = async (selector, all = false) => {
      const elements = da.elementSelector(selector);
      if (elements.length === 0) return false;
      let clicked = 0;
      for (const el of all ? elements : [elements[0]]) {
        if (guard(el)) {
          nativeClick.call(el);
          clicked++;
        }
      }
      log.actions += clicked;
      return clicked > 0;
    };
    // API opt-outs (Cookiebot.withdraw, Didomi.setUserDisagreeToAll, __cmp('setConsent', 0) ...)
    // are eval snippets run while the opt-out is in progress: count them as actions.
    for (const rule of instance.rules) {
      const orig = rule.mainWorldEval;
      if (typeof orig !== 'function') continue;
      rule.mainWorldEval = async function (id) {
        const res = await orig.call(this, id);
        if (res && optOutRunning()) log.actions++;
        return res;
      };
    }
  };

  const state = () => ({
    top: isTop,
    url: location.href,
    lifecycle: instance ? instance.state.lifecycle : 'none',
    detected: log.detected.slice(),
    popups: log.popups.slice(),
    results: log.results.slice(),
    done: log.done,
    handlingCmp: sc.handlingCmp,
    running: optOutRunning(),
    blocked: log.blocked.slice(),
  });

  const withTimeout = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(r, Math.max(0, ms)))]);

  /** One bounded pass (see the header). Returns state(). */
  const quickPass = async (budgetMs) => {
    if (!instance) return state();
    const t0 = Date.now();
    if (!sc.pass) {
      sc.pass = (async () => {
        // autoconsent runs its heuristic stage on even-numbered attempts: make this one even
        if (instance.state.findCmpAttempts % 2 === 0) instance.state.findCmpAttempts += 1;
        const found = await instance.findCmp(0);
        if (found.length === 0) return;
        const real = found.filter((c) => !c.isCosmetic);
        const cosmetic = found.filter((c) => c.isCosmetic);
        const onPopup = (cmp) => instance.handlePopup(cmp);
        const popups = await instance.detectPopups(real, onPopup);
        if (popups.length === 0) await instance.detectPopups(cosmetic, onPopup);
      })().catch(() => {
        log.errors++;
      });
    }
    await withTimeout(sc.pass, budgetMs - (Date.now() - t0));
    if (sc.handling) await withTimeout(sc.handling, budgetMs - (Date.now() - t0));
    return state();
  };

  const stop = () => {
    sc.blockClicks = true;
    return state();
  };

  Object.defineProperty(window, '__scAutoconsent', {
    value: Object.freeze({ state, quickPass, stop }),
    enumerable: false,
    configurable: false,
    writable: false,
  });
  try {
    construct();
  } catch (e) {
    log.errors++;
  }
}
