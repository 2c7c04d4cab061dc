// Deliberately broken implementations that only the properties find (run-mutants.ts runs
// each one's properties with the fixed seed): each is right on the hand-picked cases' values and
// wrong at an exact limit, on an odd but valid value, or on an unknown field nested where no case
// puts one. Their `cases` match nothing: the properties must kill them alone.
import type { Mutant } from './mutant.ts';
import { body, jsonResponse } from './proxy.ts';

type Body = Record<string, any>;
const NO_CASE = { ids: new Set<string>() };
const viewportOf = (b: Body): Body | null => (b.viewport && typeof b.viewport === 'object' && !Array.isArray(b.viewport) ? b.viewport : null);
const refuse = (message: string) => ({ respond: jsonResponse(400, { error: 'bad_request', message }) });

export const PROPERTY_MUTANTS: Mutant[] = [
  {
    id: 'prop-rejects-exact-limits',
    breaks: '2.2/bounds',
    description: 'rejects the exact limits as out of range (width or height 10000, deviceScaleFactor 0.1 or 4, quality 1 or 100, 50 hideSelectors)',
    cases: NO_CASE,
    properties: ['valid'],
    hooks: body((b) => {
      const vp = viewportOf(b);
      const at =
        (vp && (vp.width === 10000 || vp.height === 10000 || vp.deviceScaleFactor === 0.1 || vp.deviceScaleFactor === 4)) ||
        b.quality === 1 ||
        b.quality === 100 ||
        (Array.isArray(b.hideSelectors) && b.hideSelectors.length === 50);
      return at ? refuse('viewport width must be a number between 1 and 10000') : b;
    }),
  },
  {
    id: 'prop-odd-values-500',
    breaks: '2.3/success',
    description: 'answers 500 to odd but valid values: a fractional viewport side or quality, a selector outside ASCII',
    cases: NO_CASE,
    properties: ['valid'],
    hooks: body((b) => {
      const vp = viewportOf(b);
      const odd =
        (vp && (!Number.isInteger(vp.width) || !Number.isInteger(vp.height))) ||
        (typeof b.quality === 'number' && !Number.isInteger(b.quality)) ||
        (typeof b.selector === 'string' && /[^\x20-\x7e]/.test(b.selector));
      return odd ? { respond: jsonResponse(500, { error: 'render_failed', message: 'internal error' }) } : b;
    }),
  },
  {
    id: 'prop-rejects-nested-unknown',
    breaks: '2.1/rule-2',
    description: 'answers 400 to an unknown field inside viewport (unknown fields at the top level are ignored)',
    cases: NO_CASE,
    properties: ['unknown-fields'],
    hooks: body((b) => {
      const vp = viewportOf(b);
      const extra = vp ? Object.keys(vp).filter((k) => !['width', 'height', 'deviceScaleFactor'].includes(k)) : [];
      return extra.length ? refuse(`viewport has an unknown member ${extra[0]}`) : b;
    }),
  },
  {
    id: 'prop-limit-as-another',
    breaks: '8/viewport-size',
    description: 'renders a 10000 px viewport side as 9999 (the limit treated as one less)',
    cases: NO_CASE,
    properties: ['valid'],
    hooks: body((b) => {
      const vp = viewportOf(b);
      if (!vp) return b;
      return { ...b, viewport: { ...vp, ...(vp.width === 10000 ? { width: 9999 } : {}), ...(vp.height === 10000 ? { height: 9999 } : {}) } };
    }),
  },
];
