// The freeze step of a deterministic render, run in every frame just before the capture
// (server/determinism/index.ts). Evaluated by puppeteer, whose source URL (pptr:) keeps its own
// timers on the real clock (virtual-time.js): so no sourceURL comment here. An async function expression taking
// (drainMs, waitMs); resolves to a small report.
async (drainMs, waitMs) => {
  const report = { drained: true, animations: 0, svgs: 0, videos: 0, stills: 0, unreadable: [] };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const bounded = (p, ms) => Promise.race([p.then(() => true, () => true), sleep(ms).then(() => false)]);

  // 1. Let the page's timers run to the end of their chains, then stop time.
  const time = window[Symbol.for('screenshot-service/determinism')];
  if (time) {
    report.drained = await bounded(time.drain(), drainMs);
    time.freeze();
  }

  // 2. No new transitions, no caret.
  const style = document.createElement('style');
  style.textContent = '*, *::before, *::after { transition: none !important; caret-color: transparent !important; }';
  (document.head || document.documentElement).appendChild(style);

  // 3. CSS animations, transitions and Web Animations: finite ones finished (their end state, as
  //    their fill mode says), endless ones cancelled (the element's own style). SVG (SMIL) at 0.
  for (const a of document.getAnimations()) {
    try {
      const end = a.effect ? a.effect.getComputedTiming().endTime : Infinity;
      if (Number.isFinite(end)) a.finish();
      else a.cancel();
    } catch {
      try {
        a.cancel();
      } catch {}
    }
    report.animations++;
  }
  for (const svg of document.querySelectorAll('svg')) {
    try {
      if (svg.animationsPaused && svg.getCurrentTime() === 0) continue;
      svg.pauseAnimations();
      svg.setCurrentTime(0);
      report.svgs++;
    } catch {}
  }

  // 4. Videos: paused; the poster when there is one (load() shows it again), else the first frame.
  const videos = [];
  for (const v of document.querySelectorAll('video')) {
    try {
      v.autoplay = false;
      v.pause();
      if (v.getAttribute('poster')) {
        v.preload = 'none';
        v.load();
      } else if (v.readyState >= 1 && v.currentTime !== 0) {
        videos.push(new Promise((resolve) => v.addEventListener('seeked', resolve, { once: true })));
        v.currentTime = 0;
      }
      report.videos++;
    } catch {}
  }

  // 5. Animated images (GIF, APNG, animated WebP and AVIF) show their first frame: the image is
  //    redrawn from its own bytes into a still PNG (a canvas draws an animated image's first frame).
  //    Bytes the page cannot read (a cross-origin image without CORS) are reported for the caller.
  const animated = (b) => {
    const ascii = (o, n) => String.fromCharCode(...b.subarray(o, o + n));
    const count = (seq, max) => {
      let n = 0;
      outer: for (let i = 0; i + seq.length <= b.length && n < max; i++) {
        for (let j = 0; j < seq.length; j++) if (b[i + j] !== seq[j]) continue outer;
        n++;
      }
      return n;
    };
    if (ascii(0, 4) === 'GIF8') return count([0x21, 0xf9, 0x04], 2) > 1; // more than one graphic control block
    if (b[0] === 0x89 && ascii(1, 3) === 'PNG') return count([0x61, 0x63, 0x54, 0x4c], 1) > 0; // acTL
    if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') return count([0x41, 0x4e, 0x49, 0x4d], 1) > 0; // ANIM
    if (ascii(4, 4) === 'ftyp') return ascii(8, 64).includes('avis');
    return false;
  };
  const still = async (img, bytes) => {
    const url = URL.createObjectURL(new Blob([bytes]));
    try {
      const first = new Image();
      first.src = url;
      await first.decode();
      const canvas = document.createElement('canvas');
      canvas.width = first.naturalWidth;
      canvas.height = first.naturalHeight;
      canvas.getContext('2d').drawImage(first, 0, 0);
      return canvas.toDataURL('image/png');
    } finally {
      URL.revokeObjectURL(url);
    }
  };
  const replace = async (img, src) => {
    const picture = img.parentElement && img.parentElement.tagName === 'PICTURE' ? img.parentElement : null;
    if (picture) for (const s of picture.querySelectorAll('source')) s.remove();
    img.removeAttribute('srcset');
    img.removeAttribute('sizes');
    img.src = src;
    await img.decode().catch(() => {});
    report.stills++;
  };
  const work = [];
  for (const img of document.images) {
    const src = img.currentSrc || img.src;
    if (!img.complete || !img.naturalWidth || !src || /^data:image\/(jpeg|svg)/i.test(src) || /\.(jpe?g|svg)(\?|#|$)/i.test(src)) continue;
    if (work.length >= 100) break;
    work.push(
      (async () => {
        let bytes;
        try {
          bytes = new Uint8Array(await (await fetch(src, { cache: 'force-cache' })).arrayBuffer());
        } catch {
          if (!report.unreadable.includes(src)) report.unreadable.push(src);
          return;
        }
        if (animated(bytes)) await replace(img, await still(img, bytes));
      })().catch(() => {}),
    );
  }
  await bounded(Promise.all(work), waitMs);

  // 6. Web fonts loaded, images decoded, videos seeked.
  await bounded(document.fonts.ready, waitMs);
  await bounded(Promise.all([...document.images].map((i) => (i.complete ? i.decode() : Promise.resolve()))), waitMs);
  await bounded(Promise.all(videos), waitMs);
  return report;
}
