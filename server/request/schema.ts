// The one JSON Schema of the request body (spec §2.1, §2.2, §8). Everything else derives from it:
// - validation, defaults and normalisation (validate.ts: ajv with useDefaults),
// - the TypeScript types (ScreenshotRequestBody as sent, ScreenshotRequest after defaults),
// - GET /openapi.json (server/http/openapi.ts) and the MCP tool's input schema (server/mcp/tool.ts),
// - the conformance suite's knowledge of fields and defaults.
// Adding an optional field means adding it here (type, bounds, `default`, `description`, `x-rule`)
// and using it where it acts; nothing else. See CONTRIBUTING.md.
//
// `x-rule` is the wording of a field's rule: a field error reads "<field> must be <x-rule>", so that
// every message names its field (spec §2.1 rule 3). Cross-field rules live in `allOf`, each with an
// `x-message` that is the whole error message when that rule fails. `x-max-bytes` bounds a string
// in UTF-8 bytes (JSON Schema's maxLength counts characters). `x-group` says which group of options
// a field belongs to (./groups.ts). The annotations are stripped from what clients see
// (publicSchema()), but for the groups that /openapi.json keeps for forms.
import type { FromSchema } from 'json-schema-to-ts';
import { blockResourceTypesField, blockUrlsField } from '../blocking/fields.ts';
import { clipField } from '../clip/fields.ts';
import { deterministicField } from '../determinism/fields.ts';
import { cacheTtlField } from '../http-caching/fields.ts';
import { emulationCrossFieldRules, emulationFields } from '../emulation/fields.ts';
import { cookiesField, headersField } from '../page-env/fields.ts';
import { actionsField, cssField, delayField, jsField } from '../prepare/fields.ts';
import { failOnTargetErrorField } from '../target-error/fields.ts';
import { fullPageMaxHeightField, fullPageMaxHeightRule } from '../tall-pages/fields.ts';
import { captureOnTimeoutField } from '../wait-timeout/fields.ts';
import { FIELD_GROUPS, inGroup, type FieldGroup } from './groups.ts';

export const HTML_MAX_BYTES = 2_000_000; // spec §8
/** spec §8: the whole capture, waits included; RENDER_BUDGET_MS may only shorten it. */
export const RENDER_BUDGET_MAX_MS = 20_000;
export const VIEWPORT_MAX = 10000; // spec §8
export const HIDE_SELECTORS_MAX = 50; // spec §8
export const HIDE_SELECTOR_MAX_CHARS = 500; // spec §8
export const SELECTOR_MAX_CHARS = 10000; // not in the spec: a bound so a selector cannot be a payload
/** spec §2.2 default window, stated once: the schema's `default`s and descriptions below use it. */
const VIEWPORT_DEFAULT = { width: 1280, height: 720, deviceScaleFactor: 1 } as const;
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
const specProperties = {
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

/**
 * Extensions beyond the spec (§9: unknown fields are ignored, so spec clients never see them),
 * each defined beside the code that acts on it (its room's fields.ts).
 */
const extensionProperties = {
  ...inGroup('caching', { cacheTtl: cacheTtlField }),
  ...inGroup('picture', { deterministic: deterministicField }),
  ...inGroup('visitor', emulationFields), // device, timezone, locale, geolocation, colorScheme, mediaType, reducedMotion, javaScriptEnabled, userAgent
  ...inGroup('page', { headers: headersField, cookies: cookiesField }),
  ...inGroup('waiting', { captureOnTimeout: captureOnTimeoutField }),
  ...inGroup('prepare', { css: cssField, js: jsField, actions: actionsField }),
  ...inGroup('prepare', { blockResourceTypes: blockResourceTypesField, blockUrls: blockUrlsField }),
  ...inGroup('picture', { clip: clipField }),
  ...inGroup('waiting', { delay: delayField }), // a room of its own (prepare) but a wait to the person setting it
  ...inGroup('page', { failOnTargetError: failOnTargetErrorField }),
  ...inGroup('picture', { fullPageMaxHeight: fullPageMaxHeightField }),
} as const;

// Every field names its group (./groups.ts): a field without one does not type-check.
const properties = { ...specProperties, ...extensionProperties } as const satisfies Record<string, { readonly 'x-group': FieldGroup }>;

/** The spec's field names, and the extensions' (docs, the conformance suite's profiles). */
export const SPEC_FIELDS: readonly string[] = Object.keys(specProperties);
export const EXTENSION_FIELDS: readonly string[] = Object.keys(extensionProperties);

/** Rules across fields (spec §2.1 rule 1, §4.1 rule 7), checked by the schema itself. */
const crossFieldRules = [
  { anyOf: [{ required: ['url'] }, { required: ['html'] }], 'x-message': 'exactly one of url and html is required' },
  { not: { required: ['url', 'html'] }, 'x-message': 'exactly one of url and html must be given, not both' },
  {
    if: { required: ['quality'] },
    then: { required: ['format'], properties: { format: { enum: ['jpeg', 'webp'] } } },
    'x-message': 'quality is only allowed with format "jpeg" or "webp"',
  },
  // Extension: what is sent to the target origin needs a target origin.
  {
    if: { anyOf: [{ required: ['headers'] }, { required: ['cookies'] }] },
    then: { required: ['url'] },
    'x-message': 'headers and cookies are only allowed with url (they are sent to the target origin only)',
  },
  ...emulationCrossFieldRules,
  // Extension: clip is a region of the page, selector one element's box; together they say two things.
  {
    not: { required: ['clip', 'selector'] },
    'x-message': "clip and selector cannot be combined (clip is a region of the page, selector captures an element's box)",
  },
  // Extension: with the page's scripts off its timers never fire, so a js that awaits one would
  // hold the render until the budget (measured: 504); said at once instead.
  {
    if: { required: ['javaScriptEnabled'], properties: { javaScriptEnabled: { const: false } } },
    then: { not: { required: ['js'] } },
    'x-message': 'js is not allowed with javaScriptEnabled false (the page runs no timers or event handlers then)',
  },
  fullPageMaxHeightRule,
] as const;

export const screenshotRequestSchema = {
  $id: 'ScreenshotRequest',
  title: 'ScreenshotRequest',
  description: 'A capture request. Exactly one of url and html; quality only with format jpeg or webp. Unknown fields are ignored (spec §9).',
  type: 'object',
  properties,
  allOf: crossFieldRules,
} as const;

const shape = { type: 'object', properties } as const;

/** The body as sent: every field optional. */
export type ScreenshotRequestBody = FromSchema<typeof shape, { keepDefaultedPropertiesOptional: true }>;

/** The body after validation and defaults: what the render path receives (only url/html and fields without a default stay optional). */
export type ScreenshotRequest = FromSchema<typeof shape>;

export type Viewport = ScreenshotRequest['viewport'];

/** spec §2.2 default window: 1280 x 720 at scale 1. */
export const DEFAULT_VIEWPORT: Readonly<Viewport> = properties.viewport.default;

/** The field names and their defaults, as the schema states them (for clients and the suite). */
export const REQUEST_DEFAULTS: Readonly<Record<string, unknown>> = Object.fromEntries(
  Object.entries(properties).flatMap(([k, v]) => ('default' in v ? [[k, v.default]] : [])),
);

/** The cross-field rules in words, for places that cannot carry `allOf` (tool schemas). */
export const CROSS_FIELD_RULES: readonly string[] = crossFieldRules.map((r) => r['x-message']);

/**
 * The schema (this one, or one built on it: the compare request's) without our annotations (`x-rule`, `x-message`, `$id`), as OpenAPI and
 * MCP clients see it. `{ groups: true }` (GET /openapi.json) keeps each field's `x-group` and lists the groups as `x-groups`, for forms.
 */
export function publicSchema(schema: object = screenshotRequestSchema, { groups = false } = {}): Record<string, unknown> {
  const kept = (k: string) => (groups && k === 'x-group') || (!k.startsWith('x-') && k !== '$id');
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => kept(k))
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  const out = strip(schema) as Record<string, unknown>;
  return groups ? { ...out, 'x-groups': FIELD_GROUPS } : out;
}
