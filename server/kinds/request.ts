// The request's kinds, below every room that acts on a request: the spec's own fields (spec §2.1,
// §2.2, §8) and their bounds, and the type of a validated request. A feature room declares its own
// fields in its fields.ts and adds their types to RequestExtensions there (`declare module`), so
// that ScreenshotRequest names every field while this file imports no feature room. The list that
// gathers every room's fields into the one JSON Schema sits above them all
// (server/request/schema.ts), and checks that it gathered exactly the fields declared here.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

export const HTML_MAX_BYTES = 2_000_000; // spec §8
/** spec §8: the whole capture, waits included; RENDER_BUDGET_MS may only shorten it. */
export const RENDER_BUDGET_MAX_MS = 20_000;
export const DAY_SECONDS = 86_400;
/** The longest a capture may be reused (and a CDN may keep a signed link's image): cacheTtl's bound and CACHE_TTL_SECONDS'. */
export const CACHE_TTL_MAX_SECONDS = 30 * DAY_SECONDS;
export const VIEWPORT_MAX = 10000; // spec §8
export const HIDE_SELECTORS_MAX = 50; // spec §8
export const HIDE_SELECTOR_MAX_CHARS = 500; // spec §8
export const SELECTOR_MAX_CHARS = 10000; // not in the spec: a bound so a selector cannot be a payload
/** spec §2.2 default window, stated once: the schema's `default`s and descriptions below use it. */
export const VIEWPORT_DEFAULT = { width: 1280, height: 720, deviceScaleFactor: 1 } as const;
/** spec §2.1 gives quality no default; ours for jpeg and webp, applied by validate.ts. */
export const LOSSY_QUALITY_DEFAULT = 80;

const cssSelector = {
  type: 'string',
  minLength: 1,
  maxLength: SELECTOR_MAX_CHARS,
  'x-rule': `a non-empty CSS selector string of at most ${SELECTOR_MAX_CHARS} characters`,
} as const;

/** A list of CSS selectors with the spec's hideSelectors bounds (§8); other lists of elements reuse them. */
export const selectorList = (description: string) =>
  ({
    type: 'array',
    maxItems: HIDE_SELECTORS_MAX,
    items: {
      type: 'string',
      minLength: 1,
      maxLength: HIDE_SELECTOR_MAX_CHARS,
      'x-rule': `a non-empty CSS selector of at most ${HIDE_SELECTOR_MAX_CHARS} characters`,
    },
    default: [],
    description,
    'x-rule': `an array of at most ${HIDE_SELECTORS_MAX} CSS selector strings`,
  }) as const;

// spec §2.2: width and height are numbers 1..10000. A fractional value is accepted and the window
// is laid out at the nearest whole CSS pixel (validate.ts rounds it), as a browser window has
// whole pixels.
const viewportLength = (what: string, def: number) =>
  ({
    type: 'number',
    minimum: 1,
    maximum: VIEWPORT_MAX,
    description: `Window ${what} in CSS pixels, 1 to ${VIEWPORT_MAX} (default ${def}); a fraction is rounded to the nearest whole pixel.`,
    'x-rule': `a number between 1 and ${VIEWPORT_MAX}`,
  }) as const;

/** The fields of spec §2.1 and §2.2. */
export const specProperties = {
  url: {
    'x-group': 'page',
    type: 'string',
    format: 'uri',
    description:
      'Absolute http or https URL of the page to capture. Exactly one of url and html. Private, loopback, link-local and cloud-metadata targets are refused.',
    'x-rule': 'an absolute http or https URL',
  },
  html: {
    'x-group': 'page',
    type: 'string',
    description: `Markup rendered as the page, at most ${HTML_MAX_BYTES} UTF-8 bytes. Exactly one of url and html. Never stored.`,
    'x-rule': 'a string of HTML',
  },
  fullPage: {
    'x-group': 'picture',
    type: 'boolean',
    default: false,
    description: 'Capture the whole scrollable page instead of the viewport. Ignored when selector is set.',
    'x-rule': 'a boolean',
  },
  format: {
    'x-group': 'picture',
    type: 'string',
    enum: ['png', 'jpeg', 'webp'],
    default: 'png',
    description: 'Image format; PNG is lossless.',
    'x-rule': 'one of "png", "jpeg", "webp"',
  },
  quality: {
    'x-group': 'picture',
    type: 'number',
    minimum: 1,
    maximum: 100,
    description: `Encoder quality 1 to 100, rounded to a whole number; only with format jpeg or webp (default ${LOSSY_QUALITY_DEFAULT} there).`,
    'x-rule': 'a number between 1 and 100',
  },
  viewport: {
    'x-group': 'picture',
    type: 'object',
    description: 'The browser window the page lays out in. width and height are both required when viewport is given.',
    'x-rule': 'an object with width and height',
    properties: {
      width: viewportLength('width', VIEWPORT_DEFAULT.width),
      height: viewportLength('height', VIEWPORT_DEFAULT.height),
      deviceScaleFactor: {
        type: 'number',
        minimum: 0.1,
        maximum: 4,
        default: VIEWPORT_DEFAULT.deviceScaleFactor,
        description: 'Device pixels per CSS pixel, 0.1 to 4 (2 or 3 for retina output); the image is width x height times this.',
        'x-rule': 'a number between 0.1 and 4',
      },
    },
    required: ['width', 'height'],
    default: VIEWPORT_DEFAULT,
  },
  selector: {
    ...cssSelector,
    'x-group': 'picture',
    description: 'Capture only the first element matching this CSS selector (400 selector_not_found if none).',
  },
  omitBackground: {
    'x-group': 'picture',
    type: 'boolean',
    default: false,
    description: 'Transparent background where the page has none (png, webp), instead of white.',
    'x-rule': 'a boolean',
  },
  waitUntil: {
    'x-group': 'waiting',
    type: 'string',
    enum: ['load', 'networkidle0', 'networkidle2'],
    default: 'networkidle2',
    description:
      'When the page counts as loaded: load = the load event; networkidle0 = no request in flight for 500 ms; networkidle2 = at most 2 in flight for 500 ms.',
    'x-rule': 'one of "load", "networkidle0", "networkidle2"',
  },
  waitForSelector: {
    ...cssSelector,
    'x-group': 'waiting',
    description: 'Wait until an element matching this CSS selector is in the document before capturing.',
  },
  blockCookieBanners: {
    'x-group': 'banners',
    type: 'boolean',
    default: true,
    description: 'Reject or hide cookie banners, consent popups and overlays before capture (consent is never given).',
    'x-rule': 'a boolean',
  },
  hideSelectors: {
    ...selectorList(
      `Extra elements to hide: at most ${HIDE_SELECTORS_MAX} CSS selectors of at most ${HIDE_SELECTOR_MAX_CHARS} characters. html and body are never hidden.`,
    ),
    'x-group': 'banners',
  },
  blockAds: {
    'x-group': 'banners',
    type: 'boolean',
    default: false,
    description: 'Also hide common ad slots and ad iframes (best effort).',
    'x-rule': 'a boolean',
  },
} as const;

/** The TypeScript type of an object schema's properties after defaults (a defaulted field is always there). */
export type FieldsOf<P extends Readonly<Record<string, JSONSchema>>> = FromSchema<{ type: 'object'; properties: P }>;

/** The spec's fields after validation and defaults. */
export type SpecRequest = FieldsOf<typeof specProperties>;

/** The extensions' fields (spec §9), one `declare module` block in each room's fields.ts. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface RequestExtensions {}

/** The body after validation and defaults: what the render path receives (only url/html and fields without a default stay optional). */
export type ScreenshotRequest = SpecRequest & RequestExtensions;

export type Viewport = ScreenshotRequest['viewport'];

/** spec §2.2 default window: 1280 x 720 at scale 1. */
export const DEFAULT_VIEWPORT: Readonly<Viewport> = specProperties.viewport.default;

/** At most this many `actions` (server/prepare/), each a named render step of its own (server/prepare/actions.ts). */
export const ACTIONS_MAX = 20;
