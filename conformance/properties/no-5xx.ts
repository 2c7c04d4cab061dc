// properties.no-5xx: any body (any JSON where a known field goes, non-object JSON, broken JSON):
// no 5xx but 504 render_timeout, every failure JSON {error, message} (spec §2.4, §7).
import fc from 'fast-check';
import type { HttpRequestSpec } from '../model/model.ts';
import { everyAnswer, type Property } from './property.ts';
import { send } from './send.ts';
import { body } from './shot.ts';

/** Any JSON where a known spec field goes (waits, targets and the page left out: they only cost time). */
const ANY_FIELDS = ['fullPage', 'format', 'quality', 'viewport', 'selector', 'omitBackground', 'waitUntil', 'blockCookieBanners', 'hideSelectors', 'blockAds'];
const anyViewport = fc.oneof(
  fc.jsonValue({ maxDepth: 1 }),
  fc.record(
    {
      width: fc.oneof(fc.integer({ min: -5, max: 400 }), fc.jsonValue({ maxDepth: 0 })),
      height: fc.oneof(fc.integer({ min: -5, max: 400 }), fc.jsonValue({ maxDepth: 0 })),
    },
    { requiredKeys: [] },
  ),
);
const anyBody = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        fields: fc.subarray(ANY_FIELDS, { minLength: 1, maxLength: 3 }),
        values: fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 3, maxLength: 3 }),
        vp: anyViewport,
      })
      .map(({ fields, values, vp }) => {
        const b: Record<string, unknown> = { html: { $fixture: 'plain' }, viewport: { width: 32, height: 32 } };
        fields.forEach((f, i) => (b[f] = f === 'viewport' ? vp : values[i]));
        return body(b);
      }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v): HttpRequestSpec => ({ rawBody: JSON.stringify(v) })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', '{', '{"html": }', 'null', '[]', '"x"', '{"html":"<p>","html":1}').map((s): HttpRequestSpec => ({ rawBody: s })),
  },
);

export const anyRequest: Property = {
  id: 'no-5xx',
  must: 'The service MUST answer any request body with no 5xx other than 504 render_timeout, and every failure as JSON {error, message}.',
  rules: ['2.4/failure-body', '7/failure-body', '7/row-6'],
  share: 4, // mostly 400s: cheap
  async start(ctx) {
    return {
      arbitrary: anyBody,
      async trial(req: HttpRequestSpec) {
        const res = await send(ctx, req);
        return { requests: [req], checks: everyAnswer(res), responses: [res] };
      },
    };
  },
};
