// The request field of tall and endless pages, spread into the one request schema
// (server/request/schema.ts), and the endless-page rule's one number. What they do is in
// ./index.ts. This file is shipped with the conformance suite (package.json "files"): it imports
// only the request kinds (server/kinds/).
import type { FieldsOf } from '../kinds/request.ts';

/** The largest side of an output image (PNG, JPEG) at the smallest deviceScaleFactor (0.1), in CSS px. */
export const FULL_PAGE_MAX_HEIGHT_MAX = 655_350;

/**
 * The endless-page rule: a page that, while the lazy-content scroll runs, grows beyond its height
 * when the scroll started by more than this many viewports, and to more than twice that height,
 * is endless (a feed that appends items whenever it is scrolled near its end).
 */
export const ENDLESS_GROWTH_VIEWPORTS = 10;

export const fullPageMaxHeightField = {
  type: 'integer',
  minimum: 1,
  maximum: FULL_PAGE_MAX_HEIGHT_MAX,
  description:
    'fullPage only: the tallest capture wanted, in CSS pixels. A taller page is captured from its top down to exactly this height ' +
    '(x-capture-truncated gives its full height, reason=height), and the lazy-content scroll stops there. It replaces the endless-page ' +
    `rule (a page that keeps growing as it is scrolled, by more than ${ENDLESS_GROWTH_VIEWPORTS} viewports and to more than twice its height, is ` +
    'cut where it had grown to: reason=endless). Default: no bound but the output ceiling (MAX_OUTPUT_PIXELS, 65535 px per side).',
  'x-rule': `an integer number of CSS pixels between 1 and ${FULL_PAGE_MAX_HEIGHT_MAX}`,
} as const;

/** Cross-field rule (the schema's allOf): the bound belongs to a full-page capture. */
export const fullPageMaxHeightRule = {
  if: { required: ['fullPageMaxHeight'] },
  then: { required: ['fullPage'], properties: { fullPage: { const: true } } },
  'x-message': 'fullPageMaxHeight is only allowed with fullPage: true',
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ fullPageMaxHeight: typeof fullPageMaxHeightField }> {}
}
