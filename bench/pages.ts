// The bench's workload: self-contained pages like the ones clients send, built from
// fixtures/bench/photo.png (deterministic noise that compresses like a photograph; committed) and
// the pinned Inter font (@fontsource/inter), both inlined as data: URIs. Nothing is fetched.
//
//   mix   card (1200x630 PNG), article (web font, images, cookie banner; JPEG), list15k (fullPage
//         PNG), thumbs (120 small images; PNG): what the latency and throughput figures cycle through
//   long  lazy-article (loading=lazy and IntersectionObserver images), list15k, feed40k: fullPage
//
// `node --import tsx bench/pages.ts` writes the pages to fixtures/bench/*.html to look at
// (`--photo` regenerates photo.png first); bench.ts builds them in memory at start.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

export const BENCH_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'bench');
const PHOTO = path.join(BENCH_DIR, 'photo.png');

export interface BenchPage {
  name: string;
  html: string;
  /** Request fields beside html (viewport, fullPage, format, quality). */
  req: { viewport?: { width: number; height: number }; fullPage?: boolean; format?: 'png' | 'jpeg' | 'webp'; quality?: number };
}

/** A small deterministic PRNG (mulberry32), so that the photo is the same on every machine. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Smooth colour fields (bilinear over a coarse random grid) plus fine grain: a PNG that compresses like a photo. */
export async function generatePhoto(width = 480, height = 320): Promise<Buffer> {
  const rand = rng(13);
  const gw = 14;
  const gh = 10;
  const grid = Array.from({ length: gw * gh * 3 }, () => 40 + rand() * 180);
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const gy = (y / (height - 1)) * (gh - 1);
    const y0 = Math.min(gh - 2, Math.floor(gy));
    const fy = gy - y0;
    for (let x = 0; x < width; x++) {
      const gx = (x / (width - 1)) * (gw - 1);
      const x0 = Math.min(gw - 2, Math.floor(gx));
      const fx = gx - x0;
      for (let c = 0; c < 3; c++) {
        const at = (i: number, j: number) => grid[(j * gw + i) * 3 + c]!;
        const v = at(x0, y0) * (1 - fx) * (1 - fy) + at(x0 + 1, y0) * fx * (1 - fy) + at(x0, y0 + 1) * (1 - fx) * fy + at(x0 + 1, y0 + 1) * fx * fy;
        px[(y * width + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(v + (rand() - 0.5) * 6)));
      }
    }
  }
  return sharp(px, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer();
}

const dataUri = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString('base64')}`;

function fontFaces(): string {
  const require = createRequire(import.meta.url);
  const dir = path.join(path.dirname(require.resolve('@fontsource/inter/package.json')), 'files');
  return [400, 700]
    .map(
      (w) =>
        `@font-face{font-family:'Bench Inter';font-weight:${w};font-style:normal;src:url(${dataUri('font/woff2', readFileSync(path.join(dir, `inter-latin-${w}-normal.woff2`)))}) format('woff2')}`,
    )
    .join('\n');
}

const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.';
const para = (i: number) => `<p>${LOREM.slice(0, 120 + ((i * 37) % 110))}</p>`;
const COOKIE_BANNER = `<div id="cookie-notice" role="dialog" aria-label="Cookie consent" style="position:fixed;left:0;right:0;bottom:0;z-index:1000;background:#111;color:#eee;padding:18px 32px;display:flex;gap:16px;align-items:center;font:15px 'Bench Inter',sans-serif">
<p style="flex:1;margin:0">We use cookies to improve your experience and to measure our audience. By clicking "Accept all", you agree to the use of cookies.</p>
<button id="reject" style="padding:10px 18px">Reject all</button><button id="accept" style="padding:10px 18px;background:#2a6;color:#fff;border:0">Accept all</button></div>
<script>for (const b of document.querySelectorAll('#cookie-notice button')) b.onclick = () => document.getElementById('cookie-notice').remove();</script>`;

export async function buildPages(): Promise<{ mix: BenchPage[]; long: BenchPage[] }> {
  if (!existsSync(PHOTO)) {
    mkdirSync(BENCH_DIR, { recursive: true });
    writeFileSync(PHOTO, await generatePhoto());
  }
  const photo = readFileSync(PHOTO);
  const meta = await sharp(photo).metadata();
  const W = meta.width!;
  const H = meta.height!;
  const jpeg = (left: number, top: number, w: number, h: number, outW: number, q = 78) =>
    sharp(photo).extract({ left, top, width: w, height: h }).resize({ width: outW }).jpeg({ quality: q }).toBuffer();
  const fonts = fontFaces();
  const head = (title: string, css: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${fonts}\n${css}</style></head>`;

  // (a) share card: gradient, the photo, big type in the web font.
  const card: BenchPage = {
    name: 'card',
    req: { viewport: { width: 1200, height: 630 }, format: 'png' },
    html: `${head(
      'Share card',
      `body{margin:0;width:1200px;height:630px;overflow:hidden;font-family:'Bench Inter',sans-serif;background:linear-gradient(135deg,#1d2b64 0%,#6a3093 55%,#f8cdda 100%);color:#fff}
.photo{position:absolute;right:48px;top:48px;width:520px;height:534px;object-fit:cover;border-radius:24px;box-shadow:0 20px 60px rgba(0,0,0,.45)}
h1{position:absolute;left:64px;top:120px;width:520px;font-size:58px;line-height:1.08;font-weight:700;margin:0}
.by{position:absolute;left:64px;bottom:64px;font-size:24px;opacity:.85}`,
    )}
<body><img class="photo" src="${dataUri('image/png', photo)}" alt=""><h1>How we render a million share cards a day without melting</h1><div class="by">engineering.example · 7 min read</div></body></html>`,
  };

  // (b) news article: web font, several images, a cookie banner.
  const articleImgs = await Promise.all(
    [
      [0, 0],
      [120, 60],
      [240, 20],
      [60, 140],
    ].map(([l, t]) => jpeg(l!, t!, W - 280, Math.round((W - 280) * 0.5625), 720)),
  );
  const article: BenchPage = {
    name: 'article',
    req: { format: 'jpeg', quality: 80 },
    html: `${head(
      'News article',
      `body{margin:0;font:18px/1.6 'Bench Inter',sans-serif;color:#222;background:#fafafa}
header{background:#b00;color:#fff;padding:14px 40px;font-weight:700;font-size:26px}main{max-width:760px;margin:0 auto;padding:24px}
h1{font-size:40px;line-height:1.15;margin:.3em 0}figure{margin:24px 0}figure img{width:100%;display:block}figcaption{font-size:14px;color:#666}
aside{float:right;width:220px;margin:0 0 16px 24px}aside img{width:100%;display:block;margin-bottom:8px}`,
    )}
<body><header>The Daily Bench</header><main><h1>City council approves new tram line after decade of debate</h1><p><b>By A. Reporter</b> · Updated 10:42</p>
<figure><img src="${dataUri('image/jpeg', articleImgs[0]!)}" alt=""><figcaption>The planned route crosses the old town.</figcaption></figure>
<aside><img src="${dataUri('image/jpeg', articleImgs[1]!)}" alt=""><img src="${dataUri('image/jpeg', articleImgs[2]!)}" alt=""></aside>
${Array.from({ length: 8 }, (_, i) => para(i)).join('\n')}
<figure><img src="${dataUri('image/jpeg', articleImgs[3]!)}" alt=""></figure>${Array.from({ length: 6 }, (_, i) => para(i + 8)).join('\n')}</main>
${COOKIE_BANNER}</body></html>`,
  };

  // (c) a 15k px list, captured as a full page.
  const list15k: BenchPage = {
    name: 'list15k',
    req: { fullPage: true, format: 'png' },
    html: `${head(
      'Long list',
      `body{margin:0;font:15px 'Bench Inter',sans-serif;color:#222}ul{list-style:none;margin:0;padding:0 40px}
li{height:59px;border-bottom:1px solid #e4e4e4;display:flex;align-items:center;gap:16px}li i{width:36px;height:36px;border-radius:50%;flex:none}
li b{width:260px}li span{color:#777;flex:1;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}`,
    )}
<body><ul>${Array.from({ length: 250 }, (_, i) => `<li><i style="background:hsl(${(i * 47) % 360},60%,55%)"></i><b>Item ${i + 1}: ${LOREM.slice((i * 7) % 60, ((i * 7) % 60) + 24)}</b><span>${LOREM.slice((i * 13) % 90)}</span><em>${(i * 17) % 100} €</em></li>`).join('')}</ul></body></html>`,
  };

  // (d) many small images: a product grid of 120 distinct 64x64 JPEG thumbnails.
  const thumbs = await Promise.all(Array.from({ length: 120 }, (_, i) => jpeg((i * 37) % (W - 96), (i * 53) % (H - 96), 96, 96, 64, 70)));
  const thumbsPage: BenchPage = {
    name: 'thumbs',
    req: { format: 'png' },
    html: `${head(
      'Many images',
      `body{margin:0;font:12px 'Bench Inter',sans-serif}.grid{display:grid;grid-template-columns:repeat(15,1fr);gap:8px;padding:16px}
.grid div{text-align:center}.grid img{width:64px;height:64px;border-radius:6px;display:block;margin:0 auto 2px}`,
    )}
<body><div class="grid">${thumbs.map((t, i) => `<div><img src="${dataUri('image/jpeg', t)}" alt=""><span>#${i + 1}</span></div>`).join('')}</div></body></html>`,
  };

  // Long pages for fullPage. The lazy article: loading=lazy images, and images an
  // IntersectionObserver reveals only once they come near the viewport (what a scroll-through is for).
  const lazyImgs = await Promise.all(Array.from({ length: 6 }, (_, i) => jpeg((i * 41) % 200, (i * 29) % 80, 300, 169, 480, 70)));
  const lazyArticle: BenchPage = {
    name: 'lazy-article',
    req: { fullPage: true, format: 'png' },
    html: `${head(
      'Lazy article',
      `body{margin:0;font:18px/1.6 'Bench Inter',sans-serif;color:#222}main{max-width:760px;margin:0 auto;padding:24px}
img{width:100%;aspect-ratio:16/9;display:block;background:#ddd;margin:24px 0}`,
    )}
<body><main><h1>The long read: a year on the tram line</h1>
${Array.from({ length: 18 }, (_, i) => `${Array.from({ length: 3 }, (_, j) => para(i * 3 + j)).join('')}${i % 3 === 2 ? `<img data-src="${i % 6}" alt="">` : `<img loading="lazy" src="${dataUri('image/jpeg', lazyImgs[i % 6]!)}" alt="">`}`).join('\n')}
</main><script>const SRC = ${JSON.stringify(lazyImgs.map((b) => dataUri('image/jpeg', b)))};
const io = new IntersectionObserver((es) => { for (const e of es) if (e.isIntersecting) { e.target.src = SRC[e.target.dataset.src]; io.unobserve(e.target); } }, { rootMargin: '200px' });
for (const img of document.querySelectorAll('img[data-src]')) io.observe(img);</script></body></html>`,
  };

  // A 40k px feed: cards with avatars, text and CSS-drawn media.
  const feed40k: BenchPage = {
    name: 'feed40k',
    req: { fullPage: true, format: 'png' },
    html: `${head(
      'Feed',
      `body{margin:0;background:#eef0f3;font:15px/1.45 'Bench Inter',sans-serif;color:#1c1e21}.feed{width:680px;margin:0 auto;padding:16px 0}
.post{background:#fff;border-radius:8px;margin-bottom:16px;padding:16px;height:368px;box-sizing:border-box;overflow:hidden}
.post header{display:flex;gap:10px;align-items:center;font-weight:700}.post header img{width:40px;height:40px;border-radius:50%}
.media{height:200px;border-radius:6px;margin-top:10px}`,
    )}
<body><div class="feed">${Array.from({ length: 104 }, (_, i) => `<div class="post"><header><img src="${dataUri('image/jpeg', thumbs[i % 12]!)}" alt="">User ${i + 1}</header>${para(i)}<div class="media" style="background:linear-gradient(${(i * 29) % 360}deg,hsl(${(i * 53) % 360},70%,60%),hsl(${(i * 53 + 120) % 360},70%,40%))"></div></div>`).join('')}</div></body></html>`,
  };

  return { mix: [card, article, list15k, thumbsPage], long: [lazyArticle, list15k, feed40k] };
}

// Standalone: writes the pages to look at.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  if (process.argv.includes('--photo')) writeFileSync(PHOTO, await generatePhoto());
  const { mix, long } = await buildPages();
  for (const p of new Map([...mix, ...long].map((p) => [p.name, p])).values()) {
    writeFileSync(path.join(BENCH_DIR, `${p.name}.html`), p.html);
    console.log(`${p.name}: ${(p.html.length / 1024).toFixed(0)} KiB ${JSON.stringify(p.req)}`);
  }
}
