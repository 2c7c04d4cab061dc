// Request blocking on the realistic mix (bench/pages.ts): the same captures with and without
// blockResourceTypes ["image", "media", "font"], and with a blockUrls pattern that matches nothing
// (what the mechanism costs a page it blocks nothing on). The mix's pages inline their images and
// fonts as data: URIs, which are not requests; here each page is served over loopback HTTP with
// every data: URI turned into a URL of its own, as a real site serves them, so that blocking has
// requests to refuse. The figures are medians of sequential url-mode captures (one at a time, the
// variants in a rotating order), with the server's defaults (networkidle2, banner clean-up), the
// time seen by the client, the image's bytes, and the bytes the site served per capture. Loopback
// has no network latency: what blocking saves here is the browser's work, not transfer time.
// `npm run bench -- --only blocking` runs this section alone.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { median } from './measure.ts';
import type { BenchPage } from './pages.ts';

export const VARIANTS = {
  none: {},
  blocked: { blockResourceTypes: ['image', 'media', 'font'] },
  noMatch: { blockUrls: ['*://ads.invalid/*'] },
} as const;
type Variant = keyof typeof VARIANTS;

interface Site {
  hostPort: string;
  url(page: string): string;
  /** Bytes and requests served since the last call. */
  take(): { bytes: number; requests: number };
  close(): Promise<void>;
}

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'font/woff2': 'woff2', 'image/svg+xml': 'svg' };

/** Serves each page at /<name>, its data: URIs as /r/<n>.<ext> (cacheable within a render, like a site's assets). */
async function serveMix(mix: BenchPage[]): Promise<Site> {
  const assets = new Map<string, { type: string; body: Buffer }>();
  const byUri = new Map<string, string>();
  const pages = new Map<string, string>();
  for (const p of mix) {
    pages.set(
      `/${p.name}`,
      p.html.replace(/data:([a-z0-9.+/-]+);base64,([A-Za-z0-9+/=]+)/g, (uri, type: string, b64: string) => {
        let path = byUri.get(uri);
        if (!path) {
          path = `/r/${byUri.size}.${EXT[type] ?? 'bin'}`;
          byUri.set(uri, path);
          assets.set(path, { type, body: Buffer.from(b64, 'base64') });
        }
        return path;
      }),
    );
  }
  let bytes = 0;
  let requests = 0;
  const server = http.createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0]!;
    const page = pages.get(p);
    const asset = assets.get(p);
    const body = page !== undefined ? Buffer.from(page) : asset?.body;
    if (!body) return void res.writeHead(404).end();
    requests++;
    bytes += body.length;
    res
      .writeHead(200, {
        'content-type': page !== undefined ? 'text/html; charset=utf-8' : asset!.type,
        'cache-control': page !== undefined ? 'no-store' : 'max-age=3600',
      })
      .end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    hostPort,
    url: (name) => `http://${hostPort}/${name}`,
    take: () => {
      const out = { bytes, requests };
      bytes = 0;
      requests = 0;
      return out;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface VariantFigures {
  medianMs: number;
  imageBytesMedian: number;
  servedKiBPerCapture: number;
  servedRequestsPerCapture: number;
  blockedPerCapture: number;
  errors: number;
  byPage: Record<string, { medianMs: number; servedKiB: number }>;
}

export interface BlockingFigures {
  rounds: number;
  variants: Record<Variant, VariantFigures>;
  /** blocked / none: median time, served bytes. */
  ratios: { time: number; servedBytes: number; noMatchTime: number };
}

/**
 * `start(allow)` starts our server with EGRESS_ALLOW=allow and the result cache off, returning its
 * base URL and how to close it; `post(url, body)` is the bench's client.
 */
export async function blockingOnMix(
  mix: BenchPage[],
  rounds: number,
  start: (allow: string) => Promise<{ url: string; close(): Promise<void> }>,
  post: (url: string, body: object) => Promise<{ ms: number; ok: boolean; bytes: number; blocked: number }>,
): Promise<BlockingFigures> {
  const site = await serveMix(mix);
  const ours = await start(site.hostPort);
  const names = Object.keys(VARIANTS) as Variant[];
  const samples = Object.fromEntries(
    names.map((v) => [v, [] as Array<{ page: string; ms: number; ok: boolean; bytes: number; served: number; requests: number; blocked: number }>]),
  );
  try {
    const shoot = (p: BenchPage, v: Variant) => post(`${ours.url}/v1/screenshot`, { url: site.url(p.name), ...p.req, ...VARIANTS[v] });
    for (const p of mix) for (const v of names) await shoot(p, v); // warm up
    site.take();
    for (let round = 0; round < rounds; round++) {
      for (const p of mix) {
        for (let i = 0; i < names.length; i++) {
          const v = names[(i + round) % names.length]!;
          const r = await shoot(p, v);
          const served = site.take();
          samples[v]!.push({ page: p.name, ...r, served: served.bytes, requests: served.requests });
        }
      }
    }
  } finally {
    await ours.close();
    await site.close();
  }
  const figures = (v: Variant): VariantFigures => {
    const ok = samples[v]!.filter((s) => s.ok);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    return {
      medianMs: median(ok.map((s) => s.ms)),
      imageBytesMedian: median(ok.map((s) => s.bytes)),
      servedKiBPerCapture: mean(ok.map((s) => s.served)) / 1024,
      servedRequestsPerCapture: mean(ok.map((s) => s.requests)),
      blockedPerCapture: mean(ok.map((s) => s.blocked)),
      errors: samples[v]!.length - ok.length,
      byPage: Object.fromEntries(
        mix.map((p) => {
          const mine = ok.filter((s) => s.page === p.name);
          return [p.name, { medianMs: median(mine.map((s) => s.ms)), servedKiB: mean(mine.map((s) => s.served)) / 1024 }];
        }),
      ),
    };
  };
  const variants = Object.fromEntries(names.map((v) => [v, figures(v)])) as Record<Variant, VariantFigures>;
  return {
    rounds,
    variants,
    ratios: {
      time: variants.blocked.medianMs / variants.none.medianMs,
      servedBytes: variants.blocked.servedKiBPerCapture / variants.none.servedKiBPerCapture,
      noMatchTime: variants.noMatch.medianMs / variants.none.medianMs,
    },
  };
}

/** The figures as rows of the bench's table: measure, detail, median ms, ratio / figure, target. */
export function blockingRows(f: BlockingFigures): string[][] {
  const v = f.variants;
  const cell = (x: VariantFigures) =>
    `image ${(x.imageBytesMedian / 1024).toFixed(0)} KiB, served ${x.servedKiBPerCapture.toFixed(0)} KiB in ${x.servedRequestsPerCapture.toFixed(1)} requests${x.blockedPerCapture ? `, ${x.blockedPerCapture.toFixed(1)} blocked` : ''}${x.errors ? `, errors ${x.errors}` : ''}`;
  const pages = (x: VariantFigures) =>
    Object.entries(x.byPage)
      .map(([k, p]) => `${k} ${p.medianMs.toFixed(0)}`)
      .join(' ');
  return [
    ['BLOCKING mix (url mode, defaults), none', cell(v.none), v.none.medianMs.toFixed(0), pages(v.none), ''],
    [
      'BLOCKING image+media+font',
      cell(v.blocked),
      v.blocked.medianMs.toFixed(0),
      `${f.ratios.time.toFixed(2)}x time, ${f.ratios.servedBytes.toFixed(2)}x served; ${pages(v.blocked)}`,
      '',
    ],
    [
      'BLOCKING a pattern that matches nothing',
      cell(v.noMatch),
      v.noMatch.medianMs.toFixed(0),
      `${f.ratios.noMatchTime.toFixed(2)}x time; ${pages(v.noMatch)}`,
      '',
    ],
  ];
}
