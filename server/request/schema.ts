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
import { specProperties, type ScreenshotRequest } from '../kinds/request.ts';
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

// The spec's fields and bounds, and the request's type, live below the rooms (server/kinds/);
// named here too for the many readers of the schema.
export {
  DEFAULT_VIEWPORT,
  HIDE_SELECTOR_MAX_CHARS,
  HIDE_SELECTORS_MAX,
  HTML_MAX_BYTES,
  LOSSY_QUALITY_DEFAULT,
  RENDER_BUDGET_MAX_MS,
  SELECTOR_MAX_CHARS,
  selectorList,
  VIEWPORT_MAX,
  type ScreenshotRequest,
  type Viewport,
} from '../kinds/request.ts';

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

/**
 * The gathered fields are exactly the declared ones: a room that declares a field in its fields.ts
 * (RequestExtensions, server/kinds/request.ts) but is not gathered above, or the other way round,
 * fails the type check here.
 */
type Gathered = FromSchema<typeof shape>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The named fields (an object schema's type also has an index signature for unknown fields). */
type Named<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
const gatheredAll: Same<Gathered, ScreenshotRequest> & Same<Named<Gathered>, Named<ScreenshotRequest>> = true;
void gatheredAll;

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
