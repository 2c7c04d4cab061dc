// properties.unknown-fields: unknown fields at the top level and inside viewport, any value: the
// same picture as without them (spec §2.1 rule 2, §9).
import fc from 'fast-check';
import { compareImages } from '../engine/compare.ts';
import type { Region } from '../model/model.ts';
import { stripNamed } from '../pairwise/fixture.ts';
import { DEFAULT_SCALE, frameOf } from '../pairwise/frame.ts';
import { shapeOf } from '../pairwise/parameters.ts';
import { KNOWN_FIELDS } from './fields.ts';
import type { Property } from './property.ts';
import { send } from './send.ts';
import { body, judgeShot } from './shot.ts';
import { shotOf, validDraft } from './valid.ts';

/** Names no version of the schema knows, of several scripts and shapes (and the names of Object's own members). */
const unknownName = fc
  .oneof(
    fc.constantFrom(
      'futureOption',
      'x-vendor',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '',
      ' ',
      'viewportWidth',
      'format2',
      'ñame',
      '名前',
      '🙂',
    ),
    fc.string({ minLength: 1, maxLength: 10 }),
  )
  .filter((k) => !KNOWN_FIELDS.has(k) && k !== '__proto__');
const unknownValue = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom('', 'ünïcödé 名前 🙂', 0, -1, 1e300, true, [], {}, { width: 'x' }) },
);
const unknownFields = fc.dictionary(unknownName, unknownValue, { minKeys: 1, maxKeys: 4 });
const VIEWPORT_KNOWN = new Set(['width', 'height', 'deviceScaleFactor']);
const unknownInViewport = fc.dictionary(
  unknownName.filter((k) => !VIEWPORT_KNOWN.has(k)),
  unknownValue,
  { maxKeys: 2 },
);

/** The rows of the picture where the late element may or may not be (with a margin for lossy blocks). */
function lateMask(shot: ReturnType<typeof shotOf>, image: { width: number; height: number }): Region[] {
  const late = stripNamed('late');
  const frame = frameOf(shapeOf(shot.combo));
  const scale = shot.combo.scale ?? DEFAULT_SCALE;
  const margin = shot.combo.format === 'jpeg' || shot.combo.format === 'webp' ? 16 : 1;
  const top = Math.max(0, Math.round((late.y0 - frame.y) * scale) - margin);
  const bottom = Math.min(image.height, Math.round((late.y1 - frame.y) * scale) + margin);
  return bottom > top ? [{ x: 0, y: top, w: image.width, h: bottom - top }] : [];
}

export const unknown: Property = {
  id: 'unknown-fields',
  must: 'The service MUST ignore unknown fields at any depth and with any value: the same picture as without them.',
  rules: ['2.1/rule-2', '9/unknown-fields'],
  share: 0.6,
  async start(ctx) {
    return {
      arbitrary: fc.record({
        // The late element is neither waited for nor shown by virtual time: its strip is left
        // out of the comparison (when its timer fires is the page's), as the oracle leaves it open.
        draft: validDraft({ url: false, declared: ctx.declared }).map(({ ext: { deterministic: _d, ...ext }, ...d }) => ({ ...d, ext, waitForSelector: null })),
        top: unknownFields,
        nested: unknownInViewport,
      }),
      async trial({ draft, top, nested }) {
        const shot = shotOf(draft);
        const plain = body(shot.body);
        const withUnknown: Record<string, unknown> = { ...top, ...shot.body };
        if (shot.body.viewport && Object.keys(nested).length) withUnknown.viewport = { ...nested, ...(shot.body.viewport as object) };
        const req = body(withUnknown);
        const a = await send(ctx, req);
        const b = await send(ctx, plain);
        const ja = await judgeShot(a, shot);
        const jb = await judgeShot(b, shot, 'without the unknown fields: ');
        const checks = [...ja.checks, ...jb.checks];
        if (ja.image && jb.image) {
          const cmp = compareImages(ja.image, jb.image, { threshold: 0.1, maxDiffPixels: Infinity, maxDiffPixelRatio: 1, mask: lateMask(shot, ja.image) });
          const ratio = Number.isNaN(cmp.diffPixels) ? 1 : cmp.diffPixels / cmp.total;
          checks.push({
            name: 'the same picture as without them',
            pass: ratio <= 0.001,
            detail: `${(ratio * 100).toFixed(2)}% of pixels differ (${cmp.detail})`,
          });
        }
        return { requests: [req, plain], checks, responses: [a, b] };
      },
    };
  },
};
