// The one error catalogue: every code the server can send, its HTTP status and when it is sent.
// Render, request, egress and accounts code throw ServiceError (or a subclass); only
// server/http/errors.ts turns them into responses. The error table of docs/api.md is generated from
// this list by a test.
import { HTML_MAX_BYTES, RENDER_BUDGET_MAX_MS } from './kinds/request.ts';

export const ERROR_CATALOGUE = {
  bad_request: {
    status: 400,
    when: 'malformed request field (named in the message); both or neither of url/html; quality with png; url not absolute http(s) or targeting a private/loopback/link-local/metadata address; a redirect or navigation reaching a blocked address',
  },
  selector_not_found: {
    status: 400,
    when: '`selector`, or the selector of an action (named: `actions[2].click`), matches no element (or one with no rendered box)',
  },
  unauthorized: { status: 401, when: 'missing, malformed or unknown API key (with `WWW-Authenticate: Bearer`)' },
  insufficient_credits: { status: 402, when: 'the key has no credits left' },
  link_signature_invalid: {
    status: 403,
    when: 'a signed link (GET /v1/screenshot) whose signature does not match its parameters: one was changed, added or removed, or it was signed with another secret',
  },
  link_key_invalid: { status: 403, when: 'the key that signed the link is unknown or revoked, or has no signing secret this server can read' },
  not_found: { status: 404, when: 'unknown route' },
  method_not_allowed: { status: 405, when: 'wrong method on a known route (with `Allow`)' },
  link_expired: { status: 410, when: 'a signed link whose `expires` time has passed' },
  result_expired: { status: 410, when: "a batch item's picture whose retention (`RESULTS_RETENTION_SECONDS`) has ended" },
  payload_too_large: { status: 413, when: `\`html\` over ${HTML_MAX_BYTES.toLocaleString('en-US')} UTF-8 bytes, or the JSON body over its limit` },
  unsupported_media_type: { status: 415, when: '`Content-Type` is not `application/json`' },
  script_error: {
    status: 422,
    when: "`js`, or an action's `waitForFunction`, threw (or did not compile) in the page: the message names the field and the error's message, never the script",
  },
  target_error: {
    status: 424,
    when: "`failOnTargetError` is set and the target's page answered an HTTP error status (4xx or 5xx; named in the message and in `x-target-status`)",
  },
  rate_limited: { status: 429, when: 'per-key rate limit exceeded (with `Retry-After`)' },
  render_failed: { status: 500, when: 'the page or the browser crashed during the render' },
  internal_error: { status: 500, when: 'an unexpected server fault (logged with the request id)' },
  navigation_failed: { status: 502, when: 'target unreachable: DNS failure, connection refused, TLS error' },
  overloaded: {
    status: 503,
    when: 'render queue full, or too long to start the render within the render budget, or the server is shutting down (with `Retry-After`)',
  },
  client_closed: {
    status: 499,
    when: 'never seen by a client: logged and counted when the caller disconnects before the image is ready (the render is stopped, nothing is billed)',
  },
  render_timeout: {
    status: 504,
    when: `rendering, including waitUntil/waitForSelector, exceeded the render budget (\`RENDER_BUDGET_MS\`: ${RENDER_BUDGET_MAX_MS / 1000} seconds unless configured shorter; the message says which)`,
  },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** What an error tells besides its code and message; the response registry (server/response/) writes them as headers. */
export interface ErrorFacts {
  /** rate_limited, overloaded: seconds to wait before retrying. */
  retryAfterSeconds?: number;
  /** unauthorized: the Bearer challenge (RFC 6750 §3). */
  challenge?: string;
  /** method_not_allowed: the methods the route accepts. */
  allow?: string;
  /** target_error: the HTTP status the target's page answered with. */
  targetStatus?: number;
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly facts: ErrorFacts;
  constructor(code: ErrorCode, message: string, facts: ErrorFacts = {}) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.facts = facts;
  }
  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

export const badRequest = (message: string) => new ServiceError('bad_request', message);

/** spec §4.1 rule 2. Names the field, never quotes it: messages never echo the request (threat model). */
export class SelectorNotFound extends ServiceError {
  constructor(detail = 'matches no element', field = 'selector') {
    super('selector_not_found', `${field} ${detail}`);
  }
}

/** A script of the request (js, waitForFunction) threw in the page: its field and the error's message, never the script. */
export class ScriptError extends ServiceError {
  constructor(field: string, error: string) {
    super('script_error', `${field} failed in the page: ${error}`);
  }
}

/** failOnTargetError: the target's page answered an error status; the status is named, and sent as x-target-status. */
export class TargetError extends ServiceError {
  constructor(status: number) {
    super('target_error', `the target answered HTTP ${status} (failOnTargetError is set, so its page is not captured)`, { targetStatus: status });
  }
}

/** spec §4.1 rule 6, §7 */
export class RenderTimeout extends ServiceError {
  constructor(stage: string, budgetMs: number) {
    super('render_timeout', `rendering exceeded the ${budgetMs / 1000}-second render budget (while ${stage})`);
  }
}

/** spec §4.1 rule 8: a url (or a later main-frame hop) whose target is not public. */
export class TargetBlocked extends ServiceError {
  constructor(message: string) {
    super('bad_request', message);
  }
}

export class NavigationFailed extends ServiceError {
  constructor(message: string) {
    super('navigation_failed', message);
  }
}

export class RenderFailed extends ServiceError {
  constructor(message: string) {
    super('render_failed', message);
  }
}

export class Overloaded extends ServiceError {
  constructor(message: string, retryAfterSeconds: number) {
    super('overloaded', message, { retryAfterSeconds });
  }
}
