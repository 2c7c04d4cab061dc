// Runs inside the page (read as text by cleanup.ts and evaluated as one expression, so that no
// build step touches it). Spec §4.1 rules 3 and 4, in the spec's order:
//   1. click a reject-all / decline control of a common consent platform (never an accept control);
//   2. hide a curated list of cookie/consent/overlay elements (plus fixed "cookie" bars that carry
//      an accept button, and the translucent backdrops of what was found);
//   3. lift the scroll lock such banners add (overflow hidden on html/body);
//   then, if the page would be near-empty, revert 2 and 3 and capture the original page.
// hideSelectors and blockAds are applied after that and never reverted (they are the caller's).
// The lists are this subject's own, from the public markup of common CMPs; small on purpose.
(async function cleanup(opts) {
  const REJECT = [
    '#onetrust-reject-all-handler', '#CybotCookiebotDialogBodyButtonDecline', '.cmpboxbtnno', '.fc-cta-do-not-consent',
    '#didomi-notice-disagree-button', '.didomi-continue-without-agreeing', '.cky-btn-reject', '.qc-cmp2-summary-buttons button[mode="secondary"]',
    '.cmplz-deny', '#ccc-reject-settings', '#ccc-notify-reject', '.osano-cm-denyAll', '.cm-btn-decline', '.cn-decline',
    '[data-tid="banner-decline"]', '.iubenda-cs-reject-btn', '#truste-consent-required', '[data-testid="uc-deny-all-button"]',
    '.cc-deny', '#cookie_action_close_header_reject', '[data-cookie-refuse]', '.t-declineButton',
  ];
  const HIDE = [
    '#onetrust-consent-sdk', '#onetrust-banner-sdk', '.onetrust-pc-dark-filter', '#CybotCookiebotDialog', '#CybotCookiebotDialogBodyUnderlay',
    '#cmpbox', '#cmpbox2', '.cmpboxBG', '.qc-cmp2-container', '#qc-cmp2-container', '.fc-consent-root', '#didomi-host', '.didomi-popup-backdrop',
    '#usercentrics-root', '#usercentrics-cmp-ui', '.cky-consent-container', '.cky-overlay', '#cmplz-cookiebanner-container', '.cmplz-cookiebanner',
    '#ccc', '#ccc-overlay', '.osano-cm-window', '.osano-cm-dialog', '#klaro', '.klaro .cookie-notice', '#termly-code-snippet-support',
    '#iubenda-cs-banner', '#truste-consent-track', '#consent_blackbar', '.truste_overlay', '.truste_box_overlay', '#BorlabsCookieBox',
    '.cc-window', '.cc-banner', '[id^="sp_message_container"]', '#cookie-law-info-bar', '#cookie-notice', '.cookie-notice',
    '#cookie-banner', '.cookie-banner', '#cookieConsent', '.cookie-consent', '#gdpr-cookie-message', '.gdpr-banner', '#CookieConsent',
  ];
  const ADS = ['ins.adsbygoogle', '.adsbygoogle', '[id^="google_ads_iframe"]', '[id^="div-gpt-ad"]', '[data-ad-slot]', '[data-ad-client]', 'iframe[src*="doubleclick.net"]', 'iframe[src*="googlesyndication.com"]', '.ad-slot', '.ad-banner', '.advertisement'];
  const COOKIE_WORDS = /cookie|consent|gdpr|datenschutz|privacidad|confidentialit|toestemming/i;
  const ACCEPT_TEXT = /accept|agree|allow|got it|^ok\b|akzeptieren|zustimmen|einverstanden|aceptar|accepter|accepteren|akkoord|acconsento/i;
  const NEGATED = /without|\bnot\b|don't|\bno\b|ohne|\bsans\b|\bsin\b|zonder|nicht/i;
  const isAccept = (t) => ACCEPT_TEXT.test(t) && !NEGATED.test(t); // "Continue without agreeing" is a reject
  const REJECT_TEXT = /^(reject( all)?|decline( all)?|deny( all)?|refuse( all)?|(use )?(only )?(strictly )?necessary( cookies)?( only)?|essential only|alle ablehnen|ablehnen|tout refuser|refuser|continuer sans accepter|rechazar( todo)?|weigeren|alles weigeren|rifiuta( tutto)?)$/i;

  const root = document.documentElement;
  const body = document.body;
  const report = { clicked: null, hidden: 0, reverted: false, scrollLockLifted: false };
  const roots = () => {
    const out = [document];
    for (const el of document.querySelectorAll('*')) if (el.shadowRoot) out.push(el.shadowRoot);
    return out;
  };
  const all = (sel) => roots().flatMap((r) => { try { return [...r.querySelectorAll(sel)]; } catch { return []; } });
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.display !== 'none' && s.visibility !== 'hidden' && Number(s.opacity) > 0;
  };
  const hostOf = (el) => { let n = el; while (n.getRootNode() instanceof ShadowRoot) n = n.getRootNode().host; return n; };
  const pinned = (el) => { for (let n = el; n && n !== body; n = n.parentElement) { const p = getComputedStyle(n).position; if (p === 'fixed' || p === 'sticky') return true; } return false; };
  const dialogLike = (el) => pinned(el) || el.matches('[role=dialog],[role=alertdialog],[aria-modal=true],dialog[open]');
  const label = (el) => (el.innerText || el.textContent || el.value || '').trim().replace(/\s+/g, ' ');
  const saved = [];
  const hide = (el) => {
    el = hostOf(el);
    if (el === root || el === body || el.hasAttribute('data-ff-hidden')) return false;
    saved.push([el, el.getAttribute('style')]);
    el.setAttribute('data-ff-hidden', '');
    el.style.setProperty('display', 'none', 'important');
    return true;
  };
  const visibleText = () => (body ? body.innerText.replace(/\s+/g, '').length : 0);
  const media = () => [...document.querySelectorAll('img,svg,video,canvas,iframe,picture')].filter((el) => visible(el) && !el.closest('[data-ff-hidden]')).length;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  if (opts.banners && body) {
    // 1. reject: a known CMP button, else a reject-worded control inside a cookie dialog or bar
    let button = REJECT.flatMap(all).find((b) => visible(b) && !isAccept(label(b)));
    if (!button) {
      const controls = all('button,a,[role=button],input[type=button],input[type=submit]');
      button = controls.find((b) => visible(b) && REJECT_TEXT.test(label(b)) && (() => { const box = hostOf(b).closest('div,section,aside,dialog,form') || b; return dialogLike(box) && COOKIE_WORDS.test(label(box) + box.id + box.className); })());
    }
    if (button) {
      report.clicked = button.id ? `#${button.id}` : button.className || button.tagName.toLowerCase();
      button.click();
      await sleep(400);
    }
    const before = visibleText() + 200 * media();
    // 2. hide: the curated list (visible or not: a CMP's host element often has no box of its own),
    // then pinned or dialog boxes about cookies that offer an accept button
    for (const el of HIDE.flatMap(all)) if (hide(el)) report.hidden++;
    for (const el of document.querySelectorAll('body *')) {
      if (!visible(el) || el.closest('[data-ff-hidden]') || !dialogLike(el) || !COOKIE_WORDS.test(label(el).slice(0, 2000))) continue;
      const controls = [...el.querySelectorAll('button,a,[role=button],input[type=button],input[type=submit]')];
      if (controls.some((c) => isAccept(label(c))) && hide(el)) report.hidden++;
    }
    if (report.hidden || report.clicked) {
      // ... and the translucent full-viewport backdrops left behind (never an opaque background)
      for (const el of document.querySelectorAll('body *')) {
        const s = getComputedStyle(el);
        const r = el.getBoundingClientRect();
        const translucent = /rgba\(.*,\s*0?\.\d+\)$/.test(s.backgroundColor) || (Number(s.opacity) < 1 && Number(s.opacity) > 0);
        if (s.position === 'fixed' && translucent && r.width >= innerWidth * 0.9 && r.height >= innerHeight * 0.9 && label(el).length < 20 && visible(el) && hide(el)) report.hidden++;
      }
      // 3. the scroll lock: overflow hidden (and position fixed) on html or body
      for (const el of [root, body]) {
        const s = getComputedStyle(el);
        if (/hidden|clip/.test(s.overflow + s.overflowY) || s.position === 'fixed') {
          saved.push([el, el.getAttribute('style')]);
          el.style.setProperty('overflow', 'visible', 'important');
          el.style.setProperty('height', 'auto', 'important');
          if (s.position === 'fixed') el.style.setProperty('position', 'static', 'important');
          report.scrollLockLifted = true;
        }
      }
    }
    // near-empty: almost no text and no media left although there was some before -> revert
    if (report.hidden && before > 0 && visibleText() + 200 * media() < Math.min(40, before)) {
      for (const [el, style] of saved.reverse()) {
        el.removeAttribute('data-ff-hidden');
        if (style === null) el.removeAttribute('style');
        else el.setAttribute('style', style);
      }
      report.reverted = true;
    }
  }
  const extra = [...opts.hideSelectors, ...(opts.blockAds ? ADS : [])];
  for (const sel of extra) {
    let list = [];
    try { list = [...document.querySelectorAll(sel)]; } catch { /* not a selector: nothing to hide */ }
    for (const el of list) if (el !== root && el !== body) el.style.setProperty('display', 'none', 'important');
  }
  return report;
})
