// Extensions profile: POST /v1/compare, a capture compared with a baseline. Each case names the
// compare body's fields it sends (`compare.<field>`, declared-fields.ts), so it runs only where
// /openapi.json declares the endpoint. The pages are flat blocks on white whose boxes are exact
// in CSS pixels: a changed block must be found where it is, a masked change must not count, and
// two captures of one page must give 0.
import type { CaseSpec } from '../model/model.ts';
import { absent, box, color } from './helpers.ts';

const VP = { width: 200, height: 120 };
const page = (changed: boolean) =>
  '<!doctype html><body style="margin:0;background:#fff"><div style="position:absolute;left:10px;top:10px;width:60px;height:30px;background:#2050d0"></div>' +
  (changed ? '<div id="changed" style="position:absolute;left:120px;top:50px;width:40px;height:25px;background:#e02020"></div>' : '') +
  '</body>';
const request = (extra: Record<string, unknown>) => ({
  path: '/v1/compare',
  body: { html: page(true), viewport: VP, baseline: { request: { html: page(false), viewport: VP } }, ...extra },
});
const diffPicture = { type: 'png' as const, width: 200, height: 120 };
const RED: [number, number, number] = [255, 0, 0];

export const compareCases: CaseSpec[] = [
  {
    id: 'ext.compare.changed-block',
    tags: ['compare-ignores-masks'],
    must: 'The service MUST find a block that is in the capture and not in the baseline: its pixels counted, its box as the one changed region, and shown in the diff picture.',
    rules: ['X/compare'],
    fields: ['compare.baseline'],
    request: request({}),
    expect: {
      status: 200,
      image: diffPicture,
      headers: {
        'x-diff-pixels': '1000',
        'x-diff-regions': '[{"x":120,"y":50,"width":40,"height":25}]',
        'x-current-size': '200x120',
        'x-baseline-size': '200x120',
      },
      probes: [color(box(124, 54, 32, 17), RED, 'the changed block is marked')],
    },
  },
  {
    id: 'ext.compare.masked-change-ignored',
    tags: ['compare-ignores-masks'],
    must: 'The service MUST leave a change inside ignoreRegions, or inside the box of an element ignoreSelectors matches, out of the count.',
    rules: ['X/compare'],
    fields: ['compare.baseline', 'compare.ignoreRegions', 'compare.ignoreSelectors'],
    request: request({ ignoreRegions: [{ x: 110, y: 40, width: 60, height: 45 }] }),
    expect: {
      status: 200,
      image: diffPicture,
      headers: { 'x-diff-pixels': '0', 'x-diff-regions': '[]' },
      probes: [absent(box(124, 54, 32, 17), RED, 'the masked change is not marked')],
    },
    then: [
      {
        request: request({ ignoreSelectors: ['#changed'] }),
        expect: {
          status: 200,
          image: diffPicture,
          headers: { 'x-diff-pixels': '0' },
          probes: [absent(box(124, 54, 32, 17), RED, 'the masked change is not marked')],
        },
      },
    ],
  },
  {
    id: 'ext.compare.identical',
    tags: ['compare-ignores-masks'],
    must: 'The service MUST report 0 differing pixels and no region for two captures of the same page.',
    rules: ['X/compare'],
    fields: ['compare.baseline'],
    request: { path: '/v1/compare', body: { html: page(true), viewport: VP, baseline: { request: { html: page(true), viewport: VP } } } },
    expect: {
      status: 200,
      image: diffPicture,
      headers: { 'x-diff-pixels': '0', 'x-diff-ratio': '0', 'x-diff-regions': '[]' },
      probes: [absent(box(124, 54, 32, 17), RED, 'nothing marked')],
    },
  },
];
