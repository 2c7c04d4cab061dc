// Core profile: what the encoder keeps of the page: a transparent background with omitBackground
// (§2.1, PNG), and quality's effect on lossy formats (§2.1, §8).
import type { CaseSpec } from '../model/model.ts';
import { alpha, around, BLUE, box, color, golden, html, png, RED, WHITE } from './helpers.ts';

const VP = { width: 400, height: 300 };

export const corePictureCases: CaseSpec[] = [
  // omitBackground (§2.1)
  {
    id: 'omitBackground.transparent',
    tags: ['ignores-omitBackground'],
    must: 'The service MUST return a PNG whose background is transparent (alpha 0) where the page has none, with omitBackground: true.',
    rules: ['2.1/omitBackground'],
    request: { body: html('transparent', { viewport: VP, omitBackground: true }) },
    expect: {
      status: 200,
      image: { type: 'png', width: 400, height: 300, hasAlpha: true },
      probes: [
        alpha(box(0, 0, 40, 40), 0, 0, 'top-left corner'),
        alpha(box(-40, -40, 40, 40), 0, 0, 'bottom-right corner'),
        color(around(200, 150, 60), RED, 'square', undefined),
        alpha(around(200, 150, 60), 255, 255, 'square opaque'),
      ],
      golden: golden('alpha is exact: 0 everywhere but the square, 255 inside it, its edges where CSS puts them'),
    },
  },
  {
    id: 'omitBackground.default-white',
    tags: ['ignores-omitBackground'],
    must: 'The service MUST render a page without background on opaque white by default (omitBackground false).',
    rules: ['2.1/omitBackground'],
    request: { body: html('transparent', { viewport: VP }) },
    expect: png(400, 300, [
      { kind: 'color', region: box(0, 0, 40, 40), rgb: WHITE, alpha: 255, tolerance: 2, label: 'white corner' },
      alpha(box(0, 0, 400, 300), 255, 255, 'fully opaque'),
      color(around(200, 150, 60), RED),
    ]),
  },
  {
    id: 'omitBackground.keeps-page-background',
    tags: ['ignores-omitBackground'],
    must: "The service MUST keep a page's own background opaque with omitBackground: true.",
    rules: ['2.1/omitBackground'],
    request: { body: html('opaque', { viewport: VP, omitBackground: true }) },
    expect: png(400, 300, [color(box(0, 0, 400, 300), BLUE), alpha(box(0, 0, 400, 300), 255, 255, 'opaque')]),
  },

  // quality has an effect (§2.1, §8)
  {
    id: 'quality.effect-jpeg-size',
    tags: ['ignores-quality'],
    must: 'The service MUST encode JPEG at the given quality: quality 10 gives a smaller file than quality 95.',
    rules: ['2.1/quality', '8/quality'],
    request: { body: html('noise', { viewport: VP, format: 'jpeg', quality: 10 }) },
    expect: {
      status: 200,
      image: { type: 'jpeg', width: 400, height: 300 },
      probes: [],
      relation: {
        request: { body: html('noise', { viewport: VP, format: 'jpeg', quality: 95 }) },
        relation: 'bytes-less',
        expect: { status: 200, image: { type: 'jpeg', width: 400, height: 300 } },
      },
    },
  },
  {
    id: 'quality.effect-jpeg-pixels',
    tags: ['ignores-quality'],
    must: 'The service MUST encode JPEG at the given quality: quality 5 visibly changes pixels compared with quality 100.',
    rules: ['2.1/quality', '8/quality'],
    request: { body: html('noise', { viewport: VP, format: 'jpeg', quality: 5 }) },
    expect: {
      status: 200,
      image: { type: 'jpeg', width: 400, height: 300 },
      relation: { request: { body: html('noise', { viewport: VP, format: 'jpeg', quality: 100 }) }, relation: 'pixels-differ', minDiffRatio: 0.05 },
    },
  },
  {
    id: 'quality.effect-webp-size',
    tags: ['ignores-quality'],
    must: 'The service MUST encode WebP at the given quality: quality 10 gives a smaller file than quality 95.',
    rules: ['2.1/quality', '8/quality'],
    request: { body: html('noise', { viewport: VP, format: 'webp', quality: 10 }) },
    expect: {
      status: 200,
      image: { type: 'webp', width: 400, height: 300 },
      relation: {
        request: { body: html('noise', { viewport: VP, format: 'webp', quality: 95 }) },
        relation: 'bytes-less',
        expect: { status: 200, image: { type: 'webp', width: 400, height: 300 } },
      },
    },
  },
];
