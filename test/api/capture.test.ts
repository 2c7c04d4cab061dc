// Capture over real HTTP with the real browser (spec §2.2, §2.3, §4.1 rules 1-2): the exact frame,
// full pages stitched without repeated, blank or missing bands, lazy content loaded before a full
// page capture, element captures, formats and their headers, quality, transparent backgrounds.
// Images are decoded and probed pixel by pixel; set API_TEST_SHOTS=/some/dir to keep them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, type Fixture } from '../support/fixture.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { shoot, show, type Reply } from '../support/http.ts';
import { decode, keep, near, sniffType, solidPng } from '../support/image.ts';

let fx: Fixture;
let srv: TestServer;
let base: string;

before(async () => {
  fx = await startFixture();
  const magenta = await solidPng(300, 300, [255, 0, 255]);
  // A lazy image that takes a realistic moment to arrive.
  fx.route('/lazy.png', async (_req, res, url) => {
    await new Promise((r) => setTimeout(r, Number(url.searchParams.get('ms') ?? 400)));
    res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store', 'access-control-allow-origin': '*' }).end(magenta);
  });
  srv = await startTestServer({ RENDER_BUDGET_MS: '15000' }, fx);
  base = srv.url;
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

function assertOk(r: Reply, format: 'png' | 'jpeg' | 'webp' = 'png'): void {
  assert.equal(r.status, 200, show(r));
  assert.equal(r.headers.get('content-type'), `image/${format}`);
}

const rgb = (c: number[]) => `rgb(${c[0]},${c[1]},${c[2]})`;

describe('the frame (spec §2.2, §4.1 rule 1)', () => {
  // A page whose four corners are marked: the frame must be exactly the viewport, not cropped,
  // padded or scaled.
  const corners = `<style>html,body{margin:0;background:#0000ff}i{position:fixed;width:10px;height:10px}</style>
    <i style="left:0;top:0;background:#ff0000"></i><i style="right:0;top:0;background:#00ff00"></i>
    <i style="left:0;bottom:0;background:#ffff00"></i><i style="right:0;bottom:0;background:#00ffff"></i>`;

  async function frame(viewport: object | undefined, w: number, h: number, s = 1) {
    const r = await shoot(base, { html: corners, waitUntil: 'load', ...(viewport ? { viewport } : {}) });
    assertOk(r);
    const img = await decode(r.body);
    keep(`frame-${w}x${h}@${s}.png`, r.body);
    assert.equal(img.width, w * s, 'width');
    assert.equal(img.height, h * s, 'height');
    const m = 5 * s; // inside each 10 px marker
    assert.ok(near(img.at(m, m), [255, 0, 0]), `top-left ${img.at(m, m)}`);
    assert.ok(near(img.at(img.width - 1 - m, m), [0, 255, 0]), `top-right ${img.at(img.width - 1 - m, m)}`);
    assert.ok(near(img.at(m, img.height - 1 - m), [255, 255, 0]), `bottom-left`);
    assert.ok(near(img.at(img.width - 1 - m, img.height - 1 - m), [0, 255, 255]), `bottom-right`);
    assert.ok(near(img.at(Math.floor(img.width / 2), Math.floor(img.height / 2)), [0, 0, 255]), 'middle');
    // The marker is exactly 10 CSS px: just outside it is the page colour.
    assert.ok(near(img.at(10 * s + 1, 10 * s + 1), [0, 0, 255]), 'marker size scales with the frame');
  }

  test('1200x630 gives exactly 1200x630 (share card)', () => frame({ width: 1200, height: 630 }, 1200, 630));
  test('no viewport gives the default 1280x720', () => frame(undefined, 1280, 720));
  test('300x200 at deviceScaleFactor 2 gives 600x400', () => frame({ width: 300, height: 200, deviceScaleFactor: 2 }, 300, 200, 2));
  test('120x80 at deviceScaleFactor 3 gives 360x240', () => frame({ width: 120, height: 80, deviceScaleFactor: 3 }, 120, 80, 3));

  test('the page lays out in the viewport width (media queries see it)', async () => {
    const html = `<style>body{margin:0;background:#f00}@media (max-width:500px){body{background:#0f0}}</style>`;
    const narrow = await decode((await shoot(base, { html, viewport: { width: 500, height: 100 }, waitUntil: 'load' })).body);
    const wide = await decode((await shoot(base, { html, viewport: { width: 501, height: 100 }, waitUntil: 'load' })).body);
    assert.ok(near(narrow.at(10, 10), [0, 255, 0]));
    assert.ok(near(wide.at(10, 10), [255, 0, 0]));
  });

  test('devicePixelRatio seen by the page is the deviceScaleFactor', async () => {
    const html = `<body style="margin:0"><script>document.body.style.background = devicePixelRatio === 2 ? '#0f0' : '#f00'</script></body>`;
    const r = await shoot(base, { html, viewport: { width: 50, height: 50, deviceScaleFactor: 2 }, waitUntil: 'load' });
    assertOk(r);
    assert.ok(near((await decode(r.body)).at(5, 5), [0, 255, 0]));
  });
});

describe('fullPage (spec §2.1, §4.1 rule 1)', () => {
  const BANDS = 30;
  const BAND = 1000;
  const colours = Array.from({ length: BANDS }, (_, i) => [(i * 83 + 20) % 256, (i * 47 + 200) % 256, (i * 151 + 90) % 256]);

  test('the band colours are pairwise distinct (test precondition)', () => {
    for (let i = 0; i < BANDS; i++) {
      for (let j = i + 1; j < BANDS; j++) {
        const d = Math.max(...[0, 1, 2].map((k) => Math.abs(colours[i]![k]! - colours[j]![k]!)));
        assert.ok(d > 24, `bands ${i} and ${j} are too alike`);
      }
    }
  });

  test('a 30,000 px page of colour bands: every band in place, none repeated, blank or missing', async () => {
    const html = `<style>html,body{margin:0}div{height:${BAND}px}</style>` + colours.map((c) => `<div style="background:${rgb(c)}"></div>`).join('');
    const r = await shoot(base, { html, fullPage: true, waitUntil: 'load' });
    assertOk(r);
    const img = await decode(r.body);
    assert.equal(img.width, 1280);
    assert.equal(img.height, BANDS * BAND);
    const seen: number[] = [];
    for (let i = 0; i < BANDS; i++) {
      for (const dy of [0, 3, 250, 500, 750, 996, 999]) {
        for (const x of [0, 640, 1279]) {
          const px = img.at(x, i * BAND + dy);
          assert.ok(near(px, colours[i]!, 2), `band ${i} at y=${i * BAND + dy} x=${x}: got ${px.slice(0, 3)}, want ${colours[i]}`);
        }
      }
      seen.push(i);
    }
    assert.equal(seen.length, BANDS);
    // nothing on this page watches the scroll: the lazy-content step looks (server/render/scroll-watchers.ts),
    // does not scroll, and starts nothing to wait for
    const timing = r.headers.get('server-timing') ?? '';
    assert.match(timing, /(^|, )lazy-scroll;/);
    assert.doesNotMatch(timing, /(^|, )lazy-idle;/);
    // keep a small preview to look at
    if (process.env.API_TEST_SHOTS) {
      const sharp = (await import('sharp')).default;
      keep('fullpage-bands-preview.png', await sharp(r.body, { limitInputPixels: false }).resize({ height: 1500 }).png().toBuffer());
    }
  });

  test('fullPage at deviceScaleFactor 2: 2x size, bands in place over 4096 device px (where tiles were once stitched)', async () => {
    const html =
      `<style>html,body{margin:0}div{height:1500px}</style>` +
      colours
        .slice(0, 4)
        .map((c) => `<div style="background:${rgb(c)}"></div>`)
        .join('');
    const r = await shoot(base, { html, fullPage: true, waitUntil: 'load', viewport: { width: 400, height: 300, deviceScaleFactor: 2 } });
    assertOk(r);
    const img = await decode(r.body);
    keep('fullpage-dsf2.png', r.body);
    assert.equal(img.width, 800);
    assert.equal(img.height, 12000);
    for (let i = 0; i < 4; i++) {
      for (const dy of [2, 1500, 2998]) assert.ok(near(img.at(400, i * 3000 + dy), colours[i]!, 2), `band ${i} +${dy}: ${img.at(400, i * 3000 + dy)}`);
    }
  });

  test('a page shorter than the viewport gives the viewport frame', async () => {
    const r = await shoot(base, {
      html: '<body style="margin:0;background:#123456"><p>short</p></body>',
      fullPage: true,
      viewport: { width: 300, height: 200 },
      waitUntil: 'load',
    });
    assertOk(r);
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [300, 200]);
  });

  test('a page wider than the viewport is captured in full width', async () => {
    const r = await shoot(base, {
      html: '<body style="margin:0"><div style="width:900px;height:250px;background:linear-gradient(90deg,#f00 50%,#00f 50%)"></div></body>',
      fullPage: true,
      viewport: { width: 300, height: 200 },
      waitUntil: 'load',
    });
    assertOk(r);
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [900, 250]);
    assert.ok(near(img.at(10, 10), [255, 0, 0]));
    assert.ok(near(img.at(890, 240), [0, 0, 255]));
  });

  // Lazy content far below the fold: an <img loading=lazy> served after `ms`, and a block that an
  // IntersectionObserver paints when it comes into view. Both must be in a full-page capture.
  async function lazyPage(ms: number, name: string) {
    const html = `<!doctype html><style>html,body{margin:0;background:#fff}</style>
      <div style="height:9000px;background:#ddd"></div>
      <img id=lazy loading=lazy src="${fx.origin}/lazy.png?ms=${ms}" width=300 height=300 style="display:block">
      <div style="height:6000px;background:#ddd"></div>
      <div id=io style="height:400px;background:#888"></div>
      <div style="height:2000px;background:#ddd"></div>
      <script>
        new IntersectionObserver((es) => { for (const e of es) if (e.isIntersecting) e.target.style.background = '#00ffff'; })
          .observe(document.getElementById('io'));
      </script>`;
    const before = fx.hits.filter((h) => h.startsWith('/lazy.png')).length;
    const r = await shoot(base, { html, fullPage: true });
    assertOk(r);
    const img = await decode(r.body);
    if (process.env.API_TEST_SHOTS) {
      const sharp = (await import('sharp')).default;
      keep(name, await sharp(r.body, { limitInputPixels: false }).resize({ height: 1200 }).png().toBuffer());
    }
    assert.equal(img.height, 9000 + 300 + 6000 + 400 + 2000);
    assert.ok(fx.hits.filter((h) => h.startsWith('/lazy.png')).length > before, 'the lazy image was requested');
    assert.ok(near(img.at(150, 9150), [255, 0, 255]), `lazy image painted: ${img.at(150, 9150)}`);
    assert.ok(near(img.at(640, 9000 + 300 + 6000 + 200), [0, 255, 255]), `IntersectionObserver content painted: ${img.at(640, 15500)}`);
    assert.ok(near(img.at(640, 100), [221, 221, 221]), 'scrolled back: the top is the top');
    assert.match(r.headers.get('server-timing') ?? '', /(^|, )lazy-idle;/, 'the scroll started a request: its quiet wait ran');
  }

  test('lazy content far below the fold is captured: <img loading=lazy> (200 ms) and an IntersectionObserver', () =>
    lazyPage(200, 'fullpage-lazy-preview.png'));

  // server/render/lazy.ts grants itself LAZY_IDLE_MS = 2000 "waiting for what the scroll
  // started"; an image that takes 1 s is within it.
  test('a lazy image that takes 1 s to arrive is still captured', () => lazyPage(1000, 'fullpage-lazy-1s-preview.png'));
});

describe('selector (spec §4.1 rule 2)', () => {
  const html = `<!doctype html><style>html,body{margin:0;background:#fff}</style>
    <div id=box style="position:absolute;left:100px;top:150px;width:321px;height:123px;background:#1e90ff"></div>
    <div id=deep style="position:absolute;left:40px;top:5000px;width:200px;height:80px;background:#ff8c00"></div>
    <div id=hidden style="display:none;width:50px;height:50px"></div>
    <div class=many style="position:absolute;left:0;top:400px;width:30px;height:20px;background:#0f0"></div>
    <div class=many style="position:absolute;left:0;top:500px;width:60px;height:40px;background:#f00"></div>`;

  async function element(extra: object, w: number, h: number, colour: number[]) {
    const r = await shoot(base, { html, waitUntil: 'load', ...extra });
    assertOk(r);
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [w, h], 'exactly the element box');
    for (const [x, y] of [
      [0, 0],
      [w - 1, 0],
      [0, h - 1],
      [w - 1, h - 1],
      [w >> 1, h >> 1],
    ] as const) {
      assert.ok(near(img.at(x, y), colour), `(${x},${y}) ${img.at(x, y)} want ${colour}`);
    }
    return r;
  }

  test('captures exactly the element box: size and colour', async () => {
    keep('selector-box.png', (await element({ selector: '#box' }, 321, 123, [30, 144, 255])).body);
  });

  test('fullPage is ignored when selector is set', async () => void (await element({ selector: '#box', fullPage: true }, 321, 123, [30, 144, 255])));

  test('an element far below the fold is captured', async () =>
    void (await element({ selector: '#deep', viewport: { width: 800, height: 600 } }, 200, 80, [255, 140, 0])));

  test('the first match is captured', async () => void (await element({ selector: '.many' }, 30, 20, [0, 255, 0])));

  test('at deviceScaleFactor 2 the element box is doubled', async () =>
    void (await element({ selector: '#box', viewport: { width: 800, height: 600, deviceScaleFactor: 2 } }, 642, 246, [30, 144, 255])));

  test('jpeg and webp element captures have the box size too', async () => {
    for (const format of ['jpeg', 'webp'] as const) {
      const r = await shoot(base, { html, selector: '#box', format, waitUntil: 'load' });
      assertOk(r, format);
      const img = await decode(r.body);
      assert.deepEqual([img.width, img.height], [321, 123]);
      assert.ok(near(img.at(160, 60), [30, 144, 255], 12));
    }
  });

  test('no match: 400 selector_not_found naming the field, never quoting it', async () => {
    const selector = `#nope-${'quotedSelectorCanary'.repeat(400)}`; // 8,000 characters of it
    const r = await shoot(base, { html, selector, waitUntil: 'load' });
    assert.equal(r.status, 400, show(r));
    assert.equal(r.json.error, 'selector_not_found');
    assert.match(r.json.message, /^selector /);
    const everything = r.body.toString('utf8') + [...r.headers].join('\n');
    assert.ok(!everything.includes('quotedSelectorCanary'), 'neither the message nor a header quotes the selector');
  });

  test('a match with no rendered box: 400 selector_not_found', async () => {
    const r = await shoot(base, { html, selector: '#hidden', waitUntil: 'load' });
    assert.equal(r.status, 400, show(r));
    assert.equal(r.json.error, 'selector_not_found');
  });
});

describe('formats and headers (spec §2.1 format, §2.3)', () => {
  const html = '<body style="margin:0;background:#4080c0"></body>';
  const cases = [
    { format: undefined, type: 'image/png', ext: 'png', sniffed: 'png' },
    { format: 'png', type: 'image/png', ext: 'png', sniffed: 'png' },
    { format: 'jpeg', type: 'image/jpeg', ext: 'jpg', sniffed: 'jpeg' },
    { format: 'webp', type: 'image/webp', ext: 'webp', sniffed: 'webp' },
  ];
  for (const c of cases) {
    test(`format ${c.format ?? '(default)'}: ${c.type}, inline; filename="screenshot.${c.ext}", right bytes`, async () => {
      const r = await shoot(base, { html, viewport: { width: 64, height: 48 }, waitUntil: 'load', ...(c.format ? { format: c.format } : {}) });
      assert.equal(r.status, 200, show(r));
      assert.equal(r.headers.get('content-type'), c.type);
      assert.equal(r.headers.get('content-disposition'), `inline; filename="screenshot.${c.ext}"`);
      assert.equal(sniffType(r.body), c.sniffed, `magic bytes of ${c.type}: ${r.body.subarray(0, 12).toString('hex')}`);
      assert.equal(Number(r.headers.get('content-length')), r.body.length);
      assert.ok(r.headers.get('x-request-id'));
      const img = await decode(r.body);
      assert.deepEqual([img.width, img.height], [64, 48]);
      assert.ok(near(img.at(32, 24), [64, 128, 192], c.ext === 'png' ? 0 : 10), `${img.at(32, 24)}`);
    });
  }

  test('x-final-url: where a redirected or self-navigating page was captured; absent when it stayed where it was asked', async () => {
    fx.route('/landing', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<body style="background:#4080c0">landed</body>'));
    fx.route('/old', (_req, res) => void res.writeHead(301, { location: '/landing?from=old' }).end());
    fx.route(
      '/pushes',
      (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<script>history.pushState(null, "", "/pushed#x")</script>'),
    );
    const opts = { viewport: { width: 64, height: 48 }, waitUntil: 'load', cacheTtl: 0 };
    const moved = await shoot(base, { url: `${fx.origin}/old`, ...opts });
    assertOk(moved);
    assert.equal(moved.headers.get('x-final-url'), `${fx.origin}/landing?from=old`);
    assert.equal(moved.headers.get('x-target-status'), '200');
    const pushed = await shoot(base, { url: `${fx.origin}/pushes`, ...opts });
    assert.equal(pushed.headers.get('x-final-url'), `${fx.origin}/pushed#x`);
    const stayed = await shoot(base, { url: `${fx.origin}/landing`, ...opts });
    assertOk(stayed);
    assert.equal(stayed.headers.get('x-final-url'), null);
  });

  // A photo-like page: smooth gradients plus deterministic noise, which lossy encoders can trade.
  const photo = `<body style="margin:0"><canvas id=c width=400 height=300></canvas><script>
    const c = document.getElementById('c').getContext('2d'); const d = c.createImageData(400, 300); let s = 12345;
    const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let y = 0; y < 300; y++) for (let x = 0; x < 400; x++) { const o = (y * 400 + x) * 4;
      d.data[o] = (x * 255 / 400 + rnd() * 60) | 0; d.data[o + 1] = (y * 255 / 300 + rnd() * 60) | 0;
      d.data[o + 2] = ((x + y) * 255 / 700 + rnd() * 60) | 0; d.data[o + 3] = 255; }
    c.putImageData(d, 0, 0);</script></body>`;

  for (const format of ['jpeg', 'webp'] as const) {
    test(`${format} quality is honoured: q=5 is much smaller than q=95`, async () => {
      const sizes: Record<number, number> = {};
      for (const quality of [5, 95]) {
        const r = await shoot(base, { html: photo, format, quality, viewport: { width: 400, height: 300 }, waitUntil: 'load' });
        assertOk(r, format);
        keep(`photo-${format}-q${quality}.${format === 'jpeg' ? 'jpg' : 'webp'}`, r.body);
        sizes[quality] = r.body.length;
      }
      assert.ok(sizes[5]! * 4 < sizes[95]!, `q5 ${sizes[5]} bytes vs q95 ${sizes[95]} bytes`);
    });
  }
});

describe('omitBackground (spec §2.1)', () => {
  const html = '<html><body style="margin:0"><div style="width:50px;height:50px;background:#f00"></div></body></html>';
  const viewport = { width: 200, height: 100 };

  test('png: alpha 0 where the page has no background, opaque content', async () => {
    const r = await shoot(base, { html, omitBackground: true, viewport, waitUntil: 'load' });
    assertOk(r);
    keep('omit-background.png', r.body);
    const img = await decode(r.body);
    assert.equal(img.at(150, 80)[3], 0, `transparent: ${img.at(150, 80)}`);
    assert.deepEqual(img.at(25, 25), [255, 0, 0, 255]);
  });

  test('png without omitBackground: opaque white where the page has no background', async () => {
    const img = await decode((await shoot(base, { html, viewport, waitUntil: 'load' })).body);
    assert.deepEqual(img.at(150, 80), [255, 255, 255, 255]);
  });

  test('webp: alpha 0 too', async () => {
    const r = await shoot(base, { html, omitBackground: true, format: 'webp', quality: 100, viewport, waitUntil: 'load' });
    assertOk(r, 'webp');
    const img = await decode(r.body);
    assert.equal(img.at(150, 80)[3], 0, `transparent: ${img.at(150, 80)}`);
  });

  test('a page with its own background stays opaque', async () => {
    const r = await shoot(base, { html: '<body style="margin:0;background:#00f"></body>', omitBackground: true, viewport, waitUntil: 'load' });
    const img = await decode(r.body);
    assert.deepEqual(img.at(150, 80), [0, 0, 255, 255]);
  });

  test('transparent element capture and full page capture', async () => {
    const sel = await decode(
      (
        await shoot(base, {
          html: html.replace('</body>', '<p id=t style="width:80px;height:40px;margin:0"></p></body>'),
          selector: '#t',
          omitBackground: true,
          waitUntil: 'load',
        })
      ).body,
    );
    assert.deepEqual([sel.width, sel.height], [80, 40]);
    assert.equal(sel.at(40, 20)[3], 0);
    const full = await decode(
      (
        await shoot(base, {
          html: html.replace('</body>', '<div style="height:6000px"></div></body>'),
          fullPage: true,
          omitBackground: true,
          viewport,
          waitUntil: 'load',
        })
      ).body,
    );
    assert.equal(full.height, 6050);
    assert.equal(full.at(150, 5000)[3], 0, 'transparent far down the page');
    assert.deepEqual(full.at(25, 25), [255, 0, 0, 255]);
  });
});
