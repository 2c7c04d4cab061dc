// The request field `clip`, spread into the one request schema (server/request/schema.ts). What it
// does is in ./index.ts. This file imports only the request kinds.
import type { FieldsOf } from '../kinds/request.ts';

/** The largest coordinate or side of a clip, in CSS pixels (the output ceiling bounds the rest). */
export const CLIP_MAX = 100_000;

const length = (what: string, min: number) =>
  ({
    type: 'integer',
    minimum: min,
    maximum: CLIP_MAX,
    description: `${what} in CSS pixels of the page.`,
    'x-rule': `an integer between ${min} and ${CLIP_MAX}`,
  }) as const;

export const clipField = {
  type: 'object',
  properties: {
    x: length('Left edge of the region', 0),
    y: length('Top edge of the region', 0),
    width: length('Width of the region', 1),
    height: length('Height of the region', 1),
  },
  required: ['x', 'y', 'width', 'height'],
  additionalProperties: false,
  description:
    'Capture exactly this region of the page, in CSS pixels from the top left corner of the document (not of the window): the image is ' +
    'width x height times viewport.deviceScaleFactor, with or without fullPage (fullPage only adds the scroll that loads lazy content ' +
    'first); what lies beyond the page shows its background. Not with selector. A region over the output size limit is a 400.',
  'x-rule': 'an object with integer x, y, width and height',
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ clip: typeof clipField }> {}
}
