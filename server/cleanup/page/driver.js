// In-page autoconsent driver (runs in every frame's main world; see ../autoconsent.ts).
// Plain JavaScript on purpose: this file is read as text and serialised into the page, so it must
// not go through the TypeScript loader (tsx/esbuild would add helpers that do not exist in a page).
//
// It constructs @duckduckgo/autoconsent directly (no message bridge: isMainWorld, so its eval
// snippets run inline) with an opt-out-only configuration, and wraps it so that:
//  - it can never click an accept control: heuristicMode 'reject' (the heuristic acts only on popups
//    with a reject button), autoAction 'optOut', and a click guard that refuses any click on an
//    element whose label reads as plain "accept / agree / allow / OK" (spec §4.1 rule 3, DESIGN §3);
//  - its background search is bounded: finish() calls quickPass(), which stops the retry loop,
//    does one immediate detection pass and awaits the opt-out for at most the given budget;
//  - after finish, stop() refuses every further click it would make.
// Exposed as a non-enumerable window.__scAutoconsent; the Node side reads state() and calls
// quickPass()/stop() through frame.evaluate.
// eslint-disable-next-line no-unused-vars
function scAutoconsentDriver(lib, compactRules, options) {
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

  // actions: clicks and main-world API calls made while an opt-out runs. An opt-out that "succeeds"
  // without any (a rule that only hides) is reported as hidden, not rejected.
  const log = { detected: [], popups: [], results: [], done: null, blocked: [], errors: 0, actions: 0 };
  // Reports results to Node through the binding attachCleanup exposes: a cross-origin frame that
  // rejects is often removed by its parent right away, so it cannot be asked afterwards.
  const report = (event) => {
    try {
      const fn = window[options.reportBinding];
      if (typeof fn === 'function') fn(JSON.stringify(Object.assign({ top: isTop, url: location.href }, event))).catch(() => undefined);
    } catch (e) {
      /* page replaced the binding: the state() poll still works */
    }
  };
  const send = async (msg) => {
    switch (msg && msg.type) {
      case 'cmpDetected': if (!log.detected.includes(msg.cmp)) log.detected.push(msg.cmp); break;
      case 'popupFound': if (!log.popups.includes(msg.cmp)) log.popups.push(msg.cmp); break;
      case 'optOutResult': {
        const r = { cmp: msg.cmp, result: !!msg.result, actions: log.actions };
        log.results.push(r);
        report(Object.assign({ type: 'optOutResult' }, r));
        break;
      }
      case 'autoconsentDone': log.done = { cmp: msg.cmp, cosmetic: !!msg.isCosmetic, clicks: msg.totalClicks }; break;
      case 'autoconsentError': log.errors++; break;
      default: break; // 'report' and others: not needed
    }
  };

  const AutoConsent = lib.AutoConsent;
  class Driver extends AutoConsent {
    findCmp(retries) {
      if (this.__sc && this.__sc.stopBackground) return Promise.resolve([]);
      return super.findCmp(retries);
    }
    waitForPopup(cmp, retries = 10, interval = 500) {
      const sc = this.__sc;
      if (sc && sc.stopBackground) retries = Math.min(retries, sc.popupRetries);
      return super.waitForPopup(cmp, retries, interval);
    }
    handlePopup(cmp) {
      const sc = this.__sc;
      if (sc.blockClicks) return Promise.resolve(false);
      if (!sc.handling) {
        sc.handlingCmp = cmp.name;
        sc.handling = super.handlePopup(cmp).catch(() => false);
      }
      return sc.handling;
    }
  }

  const rules = { autoconsent: [], compact: lib.filterCompactRules(compactRules, { url: location.href, mainFrame: isTop }) };
  const sc = { stopBackground: false, popupRetries: 10, blockClicks: false, handling: null, handlingCmp: null, quick: null };
  let instance = null;

  // Click guard. Autoconsent clicks through DomActions (click / clickElement) and, in a few
  // dynamic CMP classes and eval snippets, through HTMLElement.prototype.click directly.
  const guard = (el) => {
    if (sc.blockClicks) { log.blocked.push('after-finish'); return false; }
    if (looksLikeAccept(el)) { log.blocked.push(labelOf(el)); return false; }
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
    instance = new Driver(send, options.config, rules);
    instance.__sc = sc;
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
      const targets = all ? elements : [elements[0]];
      let clicked = 0;
      for (const el of targets) if (guard(el)) { nativeClick.call(el); clicked++; }
      log.actions += clicked;
      return clicked > 0;
    };
    // API opt-outs (Cookiebot.withdraw, Didomi.setUserDisagreeToAll, __cmp('setConsent', 0) ...)
    // are eval snippets run while the opt-out is in progress; count them as actions.
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
    running: !!(instance && instance.state.lifecycle === 'runningOptOut'),
    blocked: log.blocked.slice(),
  });

  const withTimeout = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(() => r('timeout'), Math.max(0, ms)))]);

  /**
   * One bounded pass: stop the background retry loop, run a single detection (site-specific,
   * generic, then the reject-only heuristic), check the popup with a few short retries, and await
   * the opt-out, all within budgetMs. Returns state().
   */
  const quickPass = async (budgetMs) => {
    if (!instance) return state();
    const t0 = Date.now();
    sc.stopBackground = true;
    sc.popupRetries = Math.max(0, Math.min(3, Math.floor(budgetMs / 4 / 500)));
    if (!sc.handling) {
      if (!sc.quick) {
        sc.quick = (async () => {
          // make this attempt even-numbered so that the heuristic stage runs (autoconsent runs it on
          // every second attempt)
          if (instance.state.findCmpAttempts % 2 === 0) instance.state.findCmpAttempts += 1;
          const found = await AutoConsent.prototype.findCmp.call(instance, 0);
          if (found.length === 0) return;
          const statics = found.filter((c) => !c.isCosmetic);
          const cosmetics = found.filter((c) => c.isCosmetic);
          let popups = await instance.detectPopups(statics, (cmp) => instance.handlePopup(cmp));
          if (popups.length === 0) popups = await instance.detectPopups(cosmetics, (cmp) => instance.handlePopup(cmp));
        })().catch(() => undefined);
      }
      await withTimeout(sc.quick, budgetMs - (Date.now() - t0));
    }
    if (sc.handling) await withTimeout(sc.handling, budgetMs - (Date.now() - t0));
    return state();
  };

  const stop = () => {
    sc.stopBackground = true;
    sc.blockClicks = true;
    return state();
  };

  Object.defineProperty(window, '__scAutoconsent', {
    value: Object.freeze({ state, quickPass, stop, looksLikeAccept }),
    enumerable: false,
    configurable: false,
    writable: false,
  });
  try {
    construct();
    if (options.noBackground) sc.stopBackground = true;
  } catch (e) {
    log.errors++;
  }
}
