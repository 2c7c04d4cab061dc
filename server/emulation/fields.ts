// The request fields that emulate the visitor: who looks at the page (a device preset, a time
// zone, a locale, a position) and how their browser is set (colour scheme, print media, reduced
// motion, a user agent, scripts on or off). Spread into the one request schema
// (server/request/schema.ts), so validation, /openapi.json, the MCP tool and the playground know
// them. What they do is in ./index.ts; how a preset combines with viewport and userAgent, and
// deterministic with timezone and reducedMotion, is in ./resolve.ts.
// This file is shipped with the conformance suite (package.json "files"): it imports only
// puppeteer-core, a dependency of that package too.
import type { FieldsOf } from '../kinds/request.ts';
import { KnownDevices } from 'puppeteer-core';

export const USER_AGENT_MAX_CHARS = 512;
/** Longer than any IANA zone name (America/Argentina/ComodRivadavia is 30) and any tag we accept. */
export const TIMEZONE_MAX_CHARS = 64;
export const LOCALE_MAX_CHARS = 35;
export const ACCURACY_MAX_METRES = 100_000;

/** The preset names: the device descriptors of the installed puppeteer-core (./devices.ts has their values). */
export const DEVICE_NAMES = Object.keys(KnownDevices) as Array<keyof typeof KnownDevices>;

/** The ajv formats of timezone and locale; what they accept is in ./formats.ts (registered by server/request/validate.ts). */
export const TIMEZONE_FORMAT = 'iana-time-zone';
export const LOCALE_FORMAT = 'bcp47-language-tag';

export const deviceField = {
  type: 'string',
  enum: DEVICE_NAMES,
  description:
    'A device preset by name (GET /v1/devices lists them with their values; the list follows the device descriptors of the ' +
    "puppeteer-core release the server runs): its viewport (width, height, deviceScaleFactor), a mobile viewport (the page's " +
    '<meta name="viewport"> applies), touch, and its user agent, together. An explicit viewport or userAgent wins over the ' +
    "preset's: each of viewport.width, viewport.height and viewport.deviceScaleFactor that is sent replaces the preset's own, and " +
    'the preset stays a mobile touch device.',
  'x-rule': 'the name of a device preset (GET /v1/devices lists them)',
  'x-suggest': true,
} as const;

export const timezoneField = {
  type: 'string',
  minLength: 1,
  maxLength: TIMEZONE_MAX_CHARS,
  pattern: '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$',
  format: TIMEZONE_FORMAT,
  description:
    "An IANA time zone (Asia/Tokyo, America/New_York, UTC): the page's Date, Intl and getTimezoneOffset(), in every frame and " +
    "dedicated worker, from the first script on. Default: the server's, UTC with deterministic.",
  'x-rule': 'an IANA time zone name such as "Europe/Zurich"',
} as const;

export const localeField = {
  type: 'string',
  minLength: 2,
  maxLength: LOCALE_MAX_CHARS,
  // language, optional script, optional region, variants; no extensions or private use (an
  // Accept-Language header and navigator.language carry none)
  pattern: '^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$',
  format: LOCALE_FORMAT,
  description:
    'A BCP 47 language tag (de-CH, pt-BR, zh-Hant-TW): navigator.language and navigator.languages, the default locale of Intl ' +
    '(dates, numbers) and the Accept-Language of every request, all the same, in every frame and dedicated worker, from the ' +
    "first script on. Default: the browser's (en-US).",
  'x-rule': 'a BCP 47 language tag such as "de-CH" (language, optional script, region and variants)',
} as const;

export const geolocationField = {
  type: 'object',
  properties: {
    latitude: { type: 'number', minimum: -90, maximum: 90, description: 'Degrees north, -90 to 90.', 'x-rule': 'a number between -90 and 90' },
    longitude: { type: 'number', minimum: -180, maximum: 180, description: 'Degrees east, -180 to 180.', 'x-rule': 'a number between -180 and 180' },
    accuracy: {
      type: 'number',
      minimum: 0,
      maximum: ACCURACY_MAX_METRES,
      default: 0,
      description: `Accuracy radius in metres, 0 to ${ACCURACY_MAX_METRES} (default 0).`,
      'x-rule': `a number of metres between 0 and ${ACCURACY_MAX_METRES}`,
    },
  },
  required: ['latitude', 'longitude'],
  additionalProperties: false,
  description:
    "url mode only: the position navigator.geolocation reports, granted to the target's own origin (the origin of url: same " +
    "scheme, host and port) and to no other: another origin's frame, or the page after a redirect to another origin, is " +
    'refused, unless the page itself delegates to a frame with allow="geolocation". Browsers give positions to secure contexts ' +
    'only (https, or a loopback host). Without this field a page that asks for the position is refused at once.',
  'x-rule': 'an object with latitude, longitude and optionally accuracy',
} as const;

export const mediaTypeField = {
  type: 'string',
  enum: ['screen', 'print'],
  default: 'screen',
  description: "The CSS media type the page is laid out for: print applies the page's print style sheet (@media print) to the capture.",
  'x-rule': 'one of "screen", "print"',
} as const;

export const reducedMotionField = {
  type: 'string',
  enum: ['reduce', 'no-preference'],
  description: 'Emulate prefers-reduced-motion. Default: no-preference, reduce with deterministic.',
  'x-rule': 'one of "reduce", "no-preference"',
} as const;

export const javaScriptEnabledField = {
  type: 'boolean',
  default: true,
  description:
    'false renders the page without its scripts, in every frame, as a browser with JavaScript turned off: <noscript> content shows. ' +
    'The clean-up of banners still runs (it hides what the markup shows; consent platforms need scripts to show a banner at all).',
  'x-rule': 'a boolean',
} as const;

export const colorSchemeField = {
  type: 'string',
  enum: ['light', 'dark'],
  description: "Emulate prefers-color-scheme: light or dark. Default: the browser's (light).",
  'x-rule': 'one of "light", "dark"',
} as const;

export const userAgentField = {
  type: 'string',
  minLength: 1,
  maxLength: USER_AGENT_MAX_CHARS,
  pattern: '^[\\x20-\\x7E]+$',
  description: `The User-Agent the page sees (navigator.userAgent and every request), at most ${USER_AGENT_MAX_CHARS} visible ASCII characters. Default: the device preset's, else the browser's.`,
  'x-rule': `a string of 1 to ${USER_AGENT_MAX_CHARS} visible ASCII characters`,
} as const;

/** Rules across fields, spread into the schema's (an `x-message` is the whole error message). */
export const emulationCrossFieldRules = [
  {
    if: { required: ['geolocation'] },
    then: { required: ['url'] },
    'x-message': 'geolocation is only allowed with url (it is granted to the target origin only)',
  },
] as const;

/** The fields, in the order the schema lists them. */
export const emulationFields = {
  device: deviceField,
  timezone: timezoneField,
  locale: localeField,
  geolocation: geolocationField,
  colorScheme: colorSchemeField,
  mediaType: mediaTypeField,
  reducedMotion: reducedMotionField,
  javaScriptEnabled: javaScriptEnabledField,
  userAgent: userAgentField,
} as const;

/** Their types, part of every ScreenshotRequest (server/kinds/request.ts). */
declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<typeof emulationFields> {}
}
