// The fields POST /v1/compare adds to a capture request: the baseline to compare with, and how to
// compare (docs/compare.md). Spread into the compare request's schema (./schema.ts), which is the
// capture request's schema (server/request/schema.ts) plus these.
import { HIDE_SELECTORS_MAX, selectorList } from '../kinds/request.ts';

/** Decoded bytes of a `baseline.image`; over this the answer is 413 payload_too_large. Its base64 text fits the JSON body limit (server/http/app.ts). */
export const BASELINE_IMAGE_MAX_BYTES = 10_000_000;
export const IGNORE_REGIONS_MAX = 100;
export const DEFAULT_THRESHOLD = 0.1;

const pixels = (what: string, min: number) => ({ type: 'integer', minimum: min, description: what, 'x-rule': `an integer of at least ${min}` }) as const;

/** The comparison's own fields (the baseline is defined beside the schema: it holds a capture request). */
export const comparisonFields = {
  threshold: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    default: DEFAULT_THRESHOLD,
    description:
      "How different two pixels may be and still count as the same: a perceptual colour distance (pixelmatch's YIQ metric) from 0 (any change counts) to 1.",
    'x-rule': 'a number between 0 and 1',
  },
  ignoreSelectors: selectorList(
    `Elements left out of the comparison (a clock, an ad slot, a carousel): at most ${HIDE_SELECTORS_MAX} CSS selectors. The box of every element ` +
      "each matches, as the page laid it out when it was captured, is masked in both pictures (each page's own boxes when the baseline is a " +
      "request; the current page's when it is an image). A selector that matches nothing masks nothing. A capture with ignoreSelectors is never " +
      "a cached one (the page's layout is measured), so it is always rendered and billed.",
  ),
  ignoreRegions: {
    type: 'array',
    maxItems: IGNORE_REGIONS_MAX,
    items: {
      type: 'object',
      properties: {
        x: pixels('Left edge, in picture pixels (device pixels: CSS pixels times deviceScaleFactor).', 0),
        y: pixels('Top edge, in picture pixels.', 0),
        width: pixels('Width, in picture pixels.', 1),
        height: pixels('Height, in picture pixels.', 1),
      },
      required: ['x', 'y', 'width', 'height'],
      'x-rule': 'an object with integer x, y, width and height',
    },
    default: [],
    description: `Rectangles left out of the comparison, in picture pixels from the top left corner (at most ${IGNORE_REGIONS_MAX}).`,
    'x-rule': `an array of at most ${IGNORE_REGIONS_MAX} rectangles`,
  },
  includeAA: {
    type: 'boolean',
    default: false,
    description: 'Count pixels that differ only by anti-aliasing (the edges of text and shapes, which vary with rasterisation) as differences.',
    'x-rule': 'a boolean',
  },
} as const;

export const baselineImageField = {
  type: 'string',
  minLength: 1,
  description:
    `A previous picture: PNG, JPEG or WebP bytes in base64 (a \`data:image/...;base64,\` prefix is allowed), at most ${BASELINE_IMAGE_MAX_BYTES.toLocaleString('en-US')} bytes ` +
    'decoded (413 over that). Not allowed in a signed link.',
  'x-rule': 'a base64 PNG, JPEG or WebP image',
} as const;
