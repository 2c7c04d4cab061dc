// The request fields of the page environment: for url mode, headers and cookies, which
// are sent to the target's own origin only (./index.ts). Spread into
// the one request schema (server/request/schema.ts); the bounds below are stated there, so
// validation, /openapi.json, the MCP tool and the playground know them.
import type { FieldsOf } from '../kinds/request.ts';

export const HEADERS_MAX = 20;
export const HEADER_NAME_MAX_CHARS = 64;
export const HEADER_VALUE_MAX_CHARS = 4096;
export const COOKIES_MAX = 20;
export const COOKIE_NAME_MAX_CHARS = 128;
export const COOKIE_VALUE_MAX_CHARS = 4096;

/**
 * Header names a caller may not set: the Fetch standard's forbidden request headers (the browser
 * owns them: Host, Cookie, Content-Length, Origin, Referer, ...), User-Agent (the userAgent field
 * sets it) and the method-override headers. Prefixes Proxy- and Sec- as in Fetch.
 */
export const FORBIDDEN_HEADERS = [
  'accept-charset',
  'accept-encoding',
  'access-control-request-headers',
  'access-control-request-method',
  'connection',
  'content-length',
  'cookie',
  'cookie2',
  'date',
  'dnt',
  'expect',
  'host',
  'keep-alive',
  'origin',
  'referer',
  'set-cookie',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'via',
  'user-agent',
  'x-http-method',
  'x-http-method-override',
  'x-method-override',
] as const;
export const FORBIDDEN_HEADER_PREFIXES = ['proxy-', 'sec-'] as const;

/** `host` -> `[Hh][Oo][Ss][Tt]`: JSON Schema patterns have no case-insensitive flag. */
const caseless = (s: string) => [...s].map((c) => (/[a-z]/.test(c) ? `[${c.toUpperCase()}${c}]` : c)).join('');

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]";
/** An HTTP token (RFC 9110 §5.6.2) of at most 64 characters that is not a forbidden name. */
export const HEADER_NAME_PATTERN = `^(?!(?:${FORBIDDEN_HEADERS.map(caseless).join('|')})$)(?!(?:${FORBIDDEN_HEADER_PREFIXES.map(caseless).join('|')}))${TOKEN}{1,${HEADER_NAME_MAX_CHARS}}$`;

const FORBIDDEN_IN_WORDS =
  'Host, Cookie (use cookies), User-Agent (use userAgent), Origin, Referer, Content-Length, Connection, Proxy-*, Sec-* and the other headers the browser controls';

export const headersField = {
  type: 'object',
  maxProperties: HEADERS_MAX,
  propertyNames: { pattern: HEADER_NAME_PATTERN },
  additionalProperties: {
    type: 'string',
    maxLength: HEADER_VALUE_MAX_CHARS,
    pattern: '^[\\x20-\\x7E\\t]*$',
    'x-rule': `a string of at most ${HEADER_VALUE_MAX_CHARS} visible ASCII characters`,
  },
  description:
    `url mode only: extra request headers sent to the target's own origin (same scheme, host and port) and nowhere else: not to ` +
    `third-party subresources or iframes, not after a redirect to another origin. At most ${HEADERS_MAX}; names are HTTP tokens ` +
    `except ${FORBIDDEN_IN_WORDS}; values at most ${HEADER_VALUE_MAX_CHARS} visible ASCII characters. Never logged or stored (the cache key holds a hash).`,
  'x-rule': `an object of at most ${HEADERS_MAX} header names (HTTP tokens of at most ${HEADER_NAME_MAX_CHARS} characters, not ${FORBIDDEN_IN_WORDS}) with string values`,
} as const;

export const cookiesField = {
  type: 'array',
  maxItems: COOKIES_MAX,
  items: {
    type: 'object',
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: COOKIE_NAME_MAX_CHARS,
        pattern: `^${TOKEN}+$`,
        description: 'The cookie name (an HTTP token).',
        'x-rule': `an HTTP token of at most ${COOKIE_NAME_MAX_CHARS} characters`,
      },
      value: {
        type: 'string',
        maxLength: COOKIE_VALUE_MAX_CHARS,
        // RFC 6265 §4.1.1 cookie-octet: visible ASCII except DQUOTE, comma, semicolon and backslash.
        pattern: '^[\\x21\\x23-\\x2B\\x2D-\\x3A\\x3C-\\x5B\\x5D-\\x7E]*$',
        description: 'The cookie value (RFC 6265 cookie-octets: no spaces, quotes, commas, semicolons or backslashes).',
        'x-rule': `at most ${COOKIE_VALUE_MAX_CHARS} RFC 6265 cookie-octets (visible ASCII except " , ; \\)`,
      },
    },
    required: ['name', 'value'],
    additionalProperties: false,
    'x-rule': 'an object with exactly name and value (no domain or path: cookies go to the target origin only)',
  },
  description:
    `url mode only: cookies sent to the target's own origin (same scheme, host and port) and nowhere else, as a Cookie request header ` +
    `merged with the cookies the page sets itself (page scripts cannot read them, like HttpOnly cookies). At most ${COOKIES_MAX} ` +
    '{name, value} pairs. Never logged or stored (the cache key holds a hash).',
  'x-rule': `an array of at most ${COOKIES_MAX} {name, value} objects`,
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ headers: typeof headersField; cookies: typeof cookiesField }> {}
}
