// The request field of captures that still arrive when a page never settles, spread into the one
// request schema (server/request/schema.ts). What it does is in server/toolkit/waits.ts, which
// every wait of the pipeline uses, and which keeps the capture reserve this description quotes.
import type { FieldsOf } from '../kinds/request.ts';
import { CAPTURE_RESERVE_MAX_MS, CAPTURE_RESERVE_SHARE } from '../toolkit/waits.ts';

export const captureOnTimeoutField = {
  type: 'boolean',
  default: false,
  description:
    "When a wait does not finish in time (the load event, waitUntil's network idle, waitForSelector, fullPage's lazy content, delay), capture " +
    `the page as it is instead of failing with 504 render_timeout: the waits end ${CAPTURE_RESERVE_MAX_MS / 1000} s before the render ` +
    `budget (${CAPTURE_RESERVE_SHARE * 100}% of a budget shorter than ${CAPTURE_RESERVE_MAX_MS / CAPTURE_RESERVE_SHARE / 1000} s), the clean-up and the ` +
    'capture run in what is left, and the capture is billed as usual. The response header x-wait-timed-out names the waits that ' +
    'did not finish (load, idle, selector, lazy-scroll, lazy-idle, delay). A document that never started arriving is still a 504. Such a ' +
    'capture is never stored in the result cache.',
  'x-rule': 'a boolean',
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ captureOnTimeout: typeof captureOnTimeoutField }> {}
}
