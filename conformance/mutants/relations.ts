// Mutants that break one relation between two captures (properties/relations.ts) and nothing a
// single answer shows: every picture they give is a valid one of the right size and type. Their
// `cases` match nothing: the relation properties must kill them alone.
import sharp from 'sharp';
import type { Mutant } from './mutant.ts';
import { body, isShot, jsonOf } from './proxy.ts';

type Body = Record<string, any>;
const NO_CASE = { ids: new Set<string>() };
const viewportOf = (b: Body): Body | null => (b.viewport && typeof b.viewport === 'object' && !Array.isArray(b.viewport) ? b.viewport : null);
const withScale = (b: Body, scale: (d: number) => number | undefined): Body => {
  const vp = viewportOf(b);
  if (!vp || typeof vp.deviceScaleFactor !== 'number') return b;
  const d = scale(vp.deviceScaleFactor);
  const { deviceScaleFactor: _d, ...rest } = vp;
  return { ...b, viewport: d === undefined ? rest : { ...rest, deviceScaleFactor: d } };
};

export const RELATION_MUTANTS: Mutant[] = [
  {
    id: 'rel-quality-floor',
    breaks: '2.1/quality',
    description: 'ignores a quality below 30 (encodes at its default instead), in JPEG and WebP',
    cases: NO_CASE,
    properties: ['quality-order'],
    hooks: body(({ quality, ...b }) => (typeof quality === 'number' && quality < 30 ? b : { ...b, quality })),
  },
  {
    id: 'rel-webp-quality-ignored',
    breaks: '2.1/quality',
    description: 'ignores quality for WebP only (JPEG keeps it)',
    cases: NO_CASE,
    properties: ['quality-order'],
    hooks: body(({ quality, ...b }) => (b.format === 'webp' ? b : { ...b, quality })),
  },
  {
    id: 'rel-webp-omit-ignored',
    breaks: '2.1/omitBackground',
    description: 'ignores omitBackground for WebP only (PNG keeps it)',
    cases: NO_CASE,
    properties: ['omit-background-webp'],
    hooks: body(({ omitBackground, ...b }) => (b.format === 'webp' ? b : { ...b, omitBackground })),
  },
  {
    id: 'rel-png-omit-flattened',
    breaks: '2.1/omitBackground',
    description: 'answers omitBackground with a PNG that has an alpha channel but is flattened on white',
    cases: NO_CASE,
    properties: ['omit-background-png'],
    hooks: {
      onRequest(req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        return b?.omitBackground === true && (b.format ?? 'png') === 'png' ? { ...req, headers: { ...req.headers, 'x-mutant-flatten': '1' } } : req;
      },
      async onResponse(res, req) {
        if (!req.headers['x-mutant-flatten'] || res.status !== 200) return res;
        return { ...res, body: await sharp(res.body).flatten({ background: '#ffffff' }).ensureAlpha().png().toBuffer() };
      },
    },
  },
  {
    id: 'rel-scale-selector',
    breaks: '2.2/scale',
    description: 'ignores deviceScaleFactor for selector captures (the element at scale 1)',
    cases: NO_CASE,
    properties: ['scale'],
    hooks: body((b) => (b.selector !== undefined ? withScale(b, () => undefined) : b)),
  },
  {
    id: 'rel-scale-whole',
    breaks: '2.2/scale',
    description: 'rounds deviceScaleFactor to a whole number (0.5 renders at 1, 1.5 at 2)',
    cases: NO_CASE,
    properties: ['scale'],
    hooks: body((b) => withScale(b, (d) => Math.max(1, Math.round(d)))),
  },
  {
    id: 'rel-hide-one-more',
    breaks: '4.1/rule-4-hideSelectors',
    description: "with hideSelectors, also hides the page's first element",
    cases: NO_CASE,
    properties: ['hide-selectors'],
    hooks: body((b) => (Array.isArray(b.hideSelectors) && b.hideSelectors.length ? { ...b, hideSelectors: [...b.hideSelectors, 'body > :first-child'] } : b)),
  },
  {
    id: 'rel-full-page-extra-row',
    breaks: '4.1/rule-1',
    description: 'adds a white row under every full-page capture (a page no taller than the window too)',
    cases: NO_CASE,
    properties: ['full-page-short'],
    hooks: {
      onRequest(req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        return b?.fullPage === true ? { ...req, headers: { ...req.headers, 'x-mutant-extend': '1' } } : req;
      },
      async onResponse(res, req) {
        if (!req.headers['x-mutant-extend'] || res.status !== 200 || !res.headers['content-type']?.startsWith('image/png')) return res;
        return { ...res, body: await sharp(res.body).extend({ bottom: 1, background: '#ffffff' }).png().toBuffer() };
      },
    },
  },
];
