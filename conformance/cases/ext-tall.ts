// Extensions profile: fullPageMaxHeight, the bound on a full-page capture's height (the reference
// server's server/tall-pages/). Run only where GET /openapi.json declares the field. The page is
// the suite's 3000 px `tall` fixture (red, green, blue bands of 1000 px), so that the cut is seen
// at a band edge: one CSS pixel more or less shows.
import type { CaseSpec } from '../model/model.ts';
import { badRequest, BLUE, box, color, GREEN, html, png, RED } from './helpers.ts';

const FIELDS = ['fullPageMaxHeight'];
const RULES = ['X/fullPageMaxHeight'];

export const extTallCases: CaseSpec[] = [
  {
    id: 'ext.fullPageMaxHeight.exact',
    tags: ['ignores-full-page-max-height'],
    must: 'The service MUST capture a 3000 px page with fullPageMaxHeight 1500 from its top down to exactly 1500 CSS px, and say its full height in x-capture-truncated.',
    rules: RULES,
    fields: FIELDS,
    request: { body: html('tall', { viewport: { width: 800, height: 600 }, fullPage: true, fullPageMaxHeight: 1500 }) },
    expect: png(800, 1500, [color(box(0, 0, 800, 990), RED, 'band 1'), color(box(0, 1010, 800, 490), GREEN, 'band 2 to the last row')], {
      headers: { 'x-capture-truncated': '3000; reason=height' },
    }),
  },
  {
    id: 'ext.fullPageMaxHeight.scale',
    tags: ['ignores-full-page-max-height'],
    must: 'The service MUST count fullPageMaxHeight in CSS pixels at any deviceScaleFactor: 1001 at scale 2 is 2002 rows, the last two of them the second band.',
    rules: RULES,
    fields: FIELDS,
    request: { body: html('tall', { viewport: { width: 300, height: 200, deviceScaleFactor: 2 }, fullPage: true, fullPageMaxHeight: 1001 }) },
    expect: png(600, 2002, [color(box(0, 0, 600, 1996), RED, 'band 1: CSS rows 0-999'), color(box(0, 2000, 600, 2), GREEN, 'band 2: CSS row 1000')]),
  },
  {
    id: 'ext.fullPageMaxHeight.shorter-page',
    tags: ['ignores-full-page-max-height'],
    must: 'The service MUST capture a page shorter than fullPageMaxHeight whole, with no x-capture-truncated.',
    rules: RULES,
    fields: FIELDS,
    request: { body: html('tall', { viewport: { width: 800, height: 600 }, fullPage: true, fullPageMaxHeight: 5000 }) },
    expect: png(800, 3000, [color(box(0, 2010, 800, 990), BLUE, 'band 3')], { headers: { 'x-capture-truncated': { present: false } } }),
  },
  {
    id: 'ext.fullPageMaxHeight.needs-fullPage',
    tags: ['ignores-full-page-max-height'],
    must: 'The service MUST refuse fullPageMaxHeight without fullPage: true with a 400 naming the field.',
    rules: RULES,
    fields: FIELDS,
    request: { body: html('tall', { viewport: { width: 800, height: 600 }, fullPageMaxHeight: 1500 }) },
    expect: badRequest('fullPageMaxHeight'),
  },
  {
    id: 'ext.fullPageMaxHeight.whole-pixels',
    tags: ['ignores-full-page-max-height'],
    must: 'The service MUST refuse a fullPageMaxHeight that is not a whole number of pixels with a 400 naming the field.',
    rules: RULES,
    fields: FIELDS,
    request: { body: html('tall', { viewport: { width: 800, height: 600 }, fullPage: true, fullPageMaxHeight: 1500.5 }) },
    expect: badRequest('fullPageMaxHeight'),
  },
];
