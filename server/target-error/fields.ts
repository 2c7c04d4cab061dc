// The request field `failOnTargetError`, spread into the one request schema
// (server/request/schema.ts). What it does is in ./index.ts. This file imports only the request kinds.
import type { FieldsOf } from '../kinds/request.ts';

export const failOnTargetErrorField = {
  type: 'boolean',
  default: false,
  description:
    "url mode: when the target's page answers with an HTTP error status (4xx or 5xx, after redirects), answer 424 target_error naming " +
    'that status (with x-target-status), free, instead of a picture of the error page. Ignored with html.',
  'x-rule': 'a boolean',
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ failOnTargetError: typeof failOnTargetErrorField }> {}
}
