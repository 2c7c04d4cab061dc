// The headers of a comparison answer (POST /v1/compare and its signed links, docs/compare.md),
// each written from the comparison's facts (./facts.ts CompareFacts). The same figures are the
// members of its JSON answer (Accept: application/json) and of the MCP tool's `_meta`.
import type { ResponseHeader } from './header.ts';

const size = (s: { width: number; height: number }) => `${s.width}x${s.height}`;
const SIZE = { type: 'string', pattern: '^[1-9][0-9]*x[1-9][0-9]*$', examples: ['1280x720'] } as const;

/** A share in plain decimals (never 1e-7): exact to 8 places, trailing zeros dropped. */
export const ratioText = (r: number) => (r === 0 ? '0' : r.toFixed(8).replace(/0+$/, '').replace(/\.$/, ''));

export const COMPARE_HEADERS = {
  diffPixels: {
    name: 'x-diff-pixels',
    description:
      'How many pixels differ between the current picture and the baseline, outside the masks (ignoreRegions, ignoreSelectors); pixels only one of two pictures of different sizes has count. 0: no visible change.',
    schema: { type: 'integer', minimum: 0 },
    sent: ['diff'],
    expose: true,
    playground: true,
    fromCompare: (f) => String(f.diffPixels),
  },
  diffRatio: {
    name: 'x-diff-ratio',
    description: 'x-diff-pixels as a share of the compared area (the larger width times the larger height), 0 to 1, in plain decimals (at most 8 places).',
    schema: { type: 'string', pattern: '^(0|1|0\\.[0-9]{1,8})$', examples: ['0.0125'] },
    sent: ['diff'],
    expose: true,
    playground: true,
    fromCompare: (f) => ratioText(f.ratio),
  },
  diffRegions: {
    name: 'x-diff-regions',
    description:
      'The changed regions as a JSON array of `{"x","y","width","height"}` in picture pixels, in reading order: differing pixels less than about 16 pixels apart are one region. ' +
      'At most 50 (the largest) when there are more.',
    schema: { type: 'string', contentMediaType: 'application/json', examples: ['[{"x":40,"y":120,"width":200,"height":18}]'] },
    sent: ['diff'],
    expose: true,
    playground: true,
    fromCompare: (f) => JSON.stringify(f.regions),
  },
  currentSize: {
    name: 'x-current-size',
    description: "The current capture's size in pixels, `<width>x<height>`. The diff picture has the larger width and height of the two pictures.",
    schema: SIZE,
    sent: ['diff'],
    expose: true,
    playground: true,
    fromCompare: (f) => size(f.current),
  },
  baselineSize: {
    name: 'x-baseline-size',
    description:
      "The baseline's size in pixels, `<width>x<height>`: when it is not x-current-size, the pictures are compared where they overlap (top left corners together) and the rest counts as changed.",
    schema: SIZE,
    sent: ['diff'],
    expose: true,
    playground: true,
    fromCompare: (f) => size(f.baseline),
  },
} as const satisfies Record<string, ResponseHeader>;
