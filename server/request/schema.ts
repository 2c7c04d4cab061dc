// The one JSON Schema for the request body (spec §2.1, §2.2, §8). It is the validation
// (server/request/validate.ts), the TypeScript type (FromSchema below), GET /openapi.json and the
// MCP tool's input schema. `x-rule` is the human wording of each field's rule: error messages are
// "<field> must be <x-rule>", so that every message names its field (spec §2.1 rule 3).
import type { FromSchema } from 'json-schema-to-ts';

export const HTML_MAX_BYTES = 2_000_000; // spec §8
export const VIEWPORT_MAX = 10000; // spec §8
export const HIDE_SELECTORS_MAX = 50; // spec §8
export const HIDE_SELECTOR_MAX_CHARS = 500; // spec §8
export const SELECTOR_MAX_CHARS = 10000; // not in the spec: a bound so a selector cannot be a payload

const cssSelector = {
  type: 'string',
  minLength: 1,
  maxLength: SELECTOR_MAX_CHARS,
  'x-rule': `a non-empty CSS selector string of at most ${SELECTOR_MAX_CHARS} characters`,
} as const;

export const screenshotRequestSchema = {
  $id: 'ScreenshotRequest',
  title: 'ScreenshotRequest',
  description: 'Body of POST /v1/screenshot. Exactly one of url and html. Unknown fields are ignored.',
  type: 'object',
  properties: {
    url: { type: 'string', description: 'Absolute http or https URL of the page to capture.', 'x-rule': 'an absolute http or https URL' },
    html: { type: 'string', description: `Markup rendered as the page; at most ${HTML_MAX_BYTES} UTF-8 bytes.`, 'x-rule': 'a string of HTML' },
    fullPage: { type: 'boolean', default: false, description: 'Capture the whole scrollable page. Ignored when selector is set.', 'x-rule': 'a boolean' },
    format: { type: 'string', enum: ['png', 'jpeg', 'webp'], default: 'png', description: 'Image format; PNG is lossless.', 'x-rule': 'one of "png", "jpeg", "webp"' },
    quality: { type: 'number', minimum: 1, maximum: 100, description: 'Encoder quality 1 to 100; only with format jpeg or webp.', 'x-rule': 'a number between 1 and 100' },
    viewport: {
      type: 'object',
      description: 'Browser window the page lays out in; default 1280 x 720 at scale 1.',
      'x-rule': 'an object with width and height',
      properties: {
        width: { type: 'integer', minimum: 1, maximum: VIEWPORT_MAX, 'x-rule': `an integer between 1 and ${VIEWPORT_MAX}` },
        height: { type: 'integer', minimum: 1, maximum: VIEWPORT_MAX, 'x-rule': `an integer between 1 and ${VIEWPORT_MAX}` },
        deviceScaleFactor: { type: 'number', minimum: 0.1, maximum: 4, default: 1, 'x-rule': 'a number between 0.1 and 4' },
      },
      required: ['width', 'height'],
    },
    selector: { ...cssSelector, description: 'Capture only the first element matching this CSS selector.' },
    omitBackground: { type: 'boolean', default: false, description: 'Transparent background where the page has none (png, webp).', 'x-rule': 'a boolean' },
    waitUntil: { type: 'string', enum: ['load', 'networkidle0', 'networkidle2'], default: 'networkidle2', description: 'load: the load event; networkidle0: no request in flight for 500 ms; networkidle2: at most 2 for 500 ms.', 'x-rule': 'one of "load", "networkidle0", "networkidle2"' },
    waitForSelector: { ...cssSelector, description: 'Wait until an element matching this selector is in the document before capturing.' },
    blockCookieBanners: { type: 'boolean', default: true, description: 'Reject or hide cookie banners, consent popups and overlays before capture.', 'x-rule': 'a boolean' },
    hideSelectors: {
      type: 'array',
      maxItems: HIDE_SELECTORS_MAX,
      items: { type: 'string', minLength: 1, maxLength: HIDE_SELECTOR_MAX_CHARS, 'x-rule': `a non-empty CSS selector of at most ${HIDE_SELECTOR_MAX_CHARS} characters` },
      description: `Extra elements to hide; at most ${HIDE_SELECTORS_MAX} selectors of at most ${HIDE_SELECTOR_MAX_CHARS} characters.`,
      'x-rule': `an array of at most ${HIDE_SELECTORS_MAX} CSS selector strings`,
    },
    blockAds: { type: 'boolean', default: false, description: 'Also hide common ad slots and ad iframes (best effort).', 'x-rule': 'a boolean' },
  },
} as const;

/** The body as sent (every field optional). */
export type ScreenshotRequestBody = FromSchema<typeof screenshotRequestSchema>;

/** The body after validation and defaults: what the render path receives. */
export interface ScreenshotRequest {
  url?: string;
  html?: string;
  fullPage: boolean;
  format: 'png' | 'jpeg' | 'webp';
  quality?: number;
  viewport: { width: number; height: number; deviceScaleFactor: number };
  selector?: string;
  omitBackground: boolean;
  waitUntil: 'load' | 'networkidle0' | 'networkidle2';
  waitForSelector?: string;
  blockCookieBanners: boolean;
  hideSelectors: string[];
  blockAds: boolean;
}

export const DEFAULT_VIEWPORT = { width: 1280, height: 720, deviceScaleFactor: 1 } as const;

/** The schema without the `x-rule` annotations, for OpenAPI and MCP clients. */
export function publicSchema(): Record<string, unknown> {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'x-rule' && k !== '$id').map(([k, x]) => [k, strip(x)]));
    }
    return v;
  };
  return strip(screenshotRequestSchema) as Record<string, unknown>;
}
