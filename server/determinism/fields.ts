// The request field of deterministic pictures, spread into the one request schema
// (server/request/schema.ts). What it does is in ./index.ts.
import type { FieldsOf } from '../kinds/request.ts';
export const deterministicField = {
  type: 'boolean',
  default: false,
  description:
    'Freeze what changes between two captures of the same page, so that they are byte-identical: time is virtual (Date and performance.now ' +
    'start at 2025-01-01T00:00:00Z, timers and animation frames run ahead instantly and stop after 5 s of page time), Math.random is seeded, ' +
    'CSS animations and transitions are finished (endless ones cancelled), the caret is hidden, prefers-reduced-motion is reduce and the time ' +
    'zone UTC (unless reducedMotion or timezone say otherwise), web fonts and images are loaded and decoded, animated images show their first frame, videos their poster (or first frame).',
  'x-rule': 'a boolean',
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ deterministic: typeof deterministicField }> {}
}
