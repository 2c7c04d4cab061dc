// The request field `failOnTargetError`, spread into the one request schema
// (server/request/schema.ts). What it does is in ./index.ts. This file imports nothing.

export const failOnTargetErrorField = {
  type: 'boolean',
  default: false,
  description:
    "url mode: when the target's page answers with an HTTP error status (4xx or 5xx, after redirects), answer 424 target_error naming " +
    'that status (with x-target-status), free, instead of a picture of the error page. Ignored with html.',
  'x-rule': 'a boolean',
} as const;
