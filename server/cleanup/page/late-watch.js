// In-page watch for the last look (see ../last-look.ts): a MutationObserver on the top document
// that only records WHETHER the page added or revealed anything (nodes added; class, style,
// hidden or open changed) since the clean-up last looked, so that the last look before the
// capture costs one tiny evaluate when nothing changed. Plain JavaScript, serialised into the page
// like dom-cleanup.js. The observer callback does nothing but set a flag: a page that mutates all
// the time pays no more than that.
const SC_LATE_WATCH = '__scLateWatch';

// eslint-disable-next-line no-unused-vars
function scLateWatchInstall() {
  if (window[SC_LATE_WATCH] || !document.documentElement) return;
  let changed = false;
  const observer = new MutationObserver(() => {
    changed = true;
  });
  const options = { childList: true, subtree: true, attributes: true, attributeFilter: ['class', 'style', 'hidden', 'open'] };
  observer.observe(document.documentElement, options);
  // an observer does not see into shadow roots: each open one there now is watched too (a web
  // component's banner shows by changing its own shadow tree)
  // one attached since was not watched: what it shows could not be seen, so it counts as a change
  const watched = new WeakSet();
  const shadows = (root, depth) => {
    let added = false;
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const sr = all[i].shadowRoot;
      if (!sr) continue;
      if (!watched.has(sr)) {
        watched.add(sr);
        observer.observe(sr, options);
        added = true;
      }
      if (depth < 3 && shadows(sr, depth + 1)) added = true;
    }
    return added;
  };
  shadows(document, 0);
  const watch = {
    /** The clean-up has just looked (and acted): what happened until now is seen. */
    mark() {
      shadows(document, 0);
      observer.takeRecords();
      changed = false;
    },
    changed() {
      const unseen = shadows(document, 0);
      return observer.takeRecords().length > 0 || changed || unseen;
    },
    stop() {
      observer.disconnect();
      delete window[SC_LATE_WATCH];
    },
  };
  Object.defineProperty(window, SC_LATE_WATCH, { value: watch, configurable: true, enumerable: false });
}

// eslint-disable-next-line no-unused-vars
function scLateWatchMark() {
  if (window[SC_LATE_WATCH]) window[SC_LATE_WATCH].mark();
}

/** True when something changed since the mark, or when there is no watch (a new document): look again. */
// eslint-disable-next-line no-unused-vars
function scLateWatchChanged(stop) {
  const watch = window[SC_LATE_WATCH];
  if (!watch) return true;
  const changed = watch.changed();
  if (stop) watch.stop();
  return changed;
}
