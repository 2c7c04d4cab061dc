// Mutants that break one rule of the spec about what is captured and how it is sent back (format,
// size, scale, modes, hiding, banners, quality, limits): each selects the cases tagged with its id,
// or the generated exact-limit cases of its bound (limits/cases.ts).
import sharp from 'sharp';
import type { Mutant } from './mutant.ts';
import { body, isShot, jsonOf, withJson } from './proxy.ts';

export const SPEC_CAPTURE_MUTANTS: Mutant[] = [
  {
    id: 'content-type-mislabel',
    breaks: '2.3/content-type',
    description: 'labels PNG images as image/jpeg',
    cases: { tag: 'content-type-mislabel' },
    hooks: {
      onResponse: (res) => (res.headers['content-type']?.startsWith('image/png') ? { ...res, headers: { ...res.headers, 'content-type': 'image/jpeg' } } : res),
    },
  },
  {
    id: 'format-ignored',
    breaks: '2.1/format',
    description: 'renders webp requests as png but labels them image/webp',
    cases: { tag: 'format-ignored' },
    hooks: {
      onRequest(req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        if (!b || b.format !== 'webp') return req;
        return { ...withJson(req, { ...b, format: 'png', quality: undefined }), headers: { ...req.headers, 'x-mutant-was-webp': '1' } };
      },
      onResponse: (res, req) =>
        req.headers['x-mutant-was-webp'] && res.status === 200 ? { ...res, headers: { ...res.headers, 'content-type': 'image/webp' } } : res,
    },
  },
  {
    id: 'drops-selector',
    breaks: '4.1/rule-2',
    description: 'ignores `selector` and captures the viewport',
    cases: { tag: 'drops-selector' },
    hooks: body(({ selector: _s, ...b }) => b),
  },
  {
    id: 'ignores-scale',
    breaks: '2.2/scale',
    description: 'ignores viewport.deviceScaleFactor',
    cases: { tag: 'ignores-scale' },
    hooks: body((b) => (b.viewport && typeof b.viewport === 'object' ? { ...b, viewport: { width: b.viewport.width, height: b.viewport.height } } : b)),
  },
  {
    id: 'accepts-quality-with-png',
    breaks: '4.1/rule-7',
    description: 'accepts `quality` with png (drops it instead of answering 400)',
    cases: { tag: 'accepts-quality-with-png' },
    hooks: body((b) => (b.quality !== undefined && (b.format === undefined || b.format === 'png') ? { ...b, quality: undefined } : b)),
  },
  {
    id: 'timeout-as-500',
    breaks: '7/row-6',
    description: 'turns 504 render_timeout into 500',
    cases: { tag: 'timeout-as-500' },
    hooks: { onResponse: (res) => (res.status === 504 ? { ...res, status: 500 } : res) },
  },
  {
    id: 'renames-error-code',
    breaks: '7/row-5',
    description: 'sends `element_not_found` instead of `selector_not_found`',
    cases: { tag: 'renames-error-code' },
    hooks: {
      onResponse: (res) =>
        res.status === 400 ? { ...res, body: Buffer.from(res.body.toString('utf8').replace('"selector_not_found"', '"element_not_found"')) } : res,
    },
  },
  {
    id: 'wrong-size',
    breaks: '2.2/exact-frame',
    description: 'returns images one pixel narrower than asked',
    cases: { tag: 'wrong-size' },
    hooks: {
      async onResponse(res) {
        if (res.status !== 200 || !res.headers['content-type']?.startsWith('image/png')) return res;
        const img = sharp(res.body);
        const m = await img.metadata();
        if (!m.width || m.width < 2) return res;
        return {
          ...res,
          body: await img
            .extract({ left: 0, top: 0, width: m.width - 1, height: m.height! })
            .png()
            .toBuffer(),
        };
      },
    },
  },
  {
    id: 'truncates-tall-pages',
    breaks: '2.1/fullPage',
    description: 'cuts full-page captures at 10000 px (no stitching beyond one texture)',
    cases: { tag: 'truncates-tall-pages' },
    hooks: {
      async onResponse(res) {
        if (res.status !== 200 || !res.headers['content-type']?.startsWith('image/png')) return res;
        const img = sharp(res.body, { limitInputPixels: false });
        const m = await img.metadata();
        if (!m.height || m.height <= 10000) return res;
        return { ...res, body: await img.extract({ left: 0, top: 0, width: m.width!, height: 10000 }).png().toBuffer() };
      },
    },
  },
  {
    id: 'charges-cache-hits',
    breaks: '1/billing-cached',
    description: 'reports a credit charged for a cache hit',
    cases: { tag: 'charges-cache-hits' },
    hooks: { onResponse: (res) => (res.headers['x-cache'] === 'hit' ? { ...res, headers: { ...res.headers, 'x-credits-charged': '1' } } : res) },
  },
  {
    id: 'drops-content-disposition',
    breaks: '2.3/content-disposition',
    description: 'sends no content-disposition',
    cases: { tag: 'drops-content-disposition' },
    hooks: { onResponse: ({ headers: { 'content-disposition': _cd, ...headers }, ...res }) => ({ ...res, headers }) },
  },
  {
    id: 'ignores-fullPage',
    breaks: '4.1/rule-1',
    description: 'ignores fullPage',
    cases: { tag: 'ignores-fullPage' },
    hooks: body(({ fullPage: _f, ...b }) => b),
  },
  {
    id: 'ignores-omitBackground',
    breaks: '2.1/omitBackground',
    description: 'ignores omitBackground',
    cases: { tag: 'ignores-omitBackground' },
    hooks: body(({ omitBackground: _o, ...b }) => b),
  },
  {
    id: 'always-removes-banners',
    breaks: '4.1/rule-4-keep',
    description: 'removes banners even with blockCookieBanners: false',
    cases: { tag: 'always-removes-banners' },
    hooks: body((b) => ({ ...b, blockCookieBanners: true })),
  },
  {
    id: 'never-removes-banners',
    breaks: '1/banners-default',
    description: 'keeps banners by default (blockCookieBanners defaults to false)',
    cases: { tag: 'never-removes-banners' },
    hooks: body((b) => (b.blockCookieBanners === undefined ? { ...b, blockCookieBanners: false } : b)),
  },
  {
    id: 'drops-hideSelectors',
    breaks: '4.1/rule-4-hideSelectors',
    description: 'ignores hideSelectors',
    cases: { tag: 'drops-hideSelectors' },
    hooks: body(({ hideSelectors: _h, ...b }) => b),
  },
  {
    id: 'ignores-blockAds',
    breaks: '4.1/rule-4-blockAds',
    description: 'ignores blockAds',
    cases: { tag: 'ignores-blockAds' },
    hooks: body(({ blockAds: _a, ...b }) => b),
  },
];
