// Validation and normalisation of the request body against the one schema (spec §2.1 rules 1-3,
// §4.1 rule 7, §8). ajv checks every rule the schema states, cross-field rules included, and fills
// in the schema's defaults; this module only words the errors and normalises what a schema cannot
// (the URL's href, whole-pixel viewports, what the emulation fields mean together). All field errors of a request are collected into one 400
// whose message names each field. Messages never quote the submitted values.
import { Ajv, type ErrorObject } from 'ajv';
import { EMULATION_FORMATS } from '../emulation/formats.ts';
import { resolveEmulation } from '../emulation/resolve.ts';
import { badRequest, ServiceError } from '../errors.ts';
import { closest } from './closest.ts';
import { screenshotRequestSchema, HTML_MAX_BYTES, LOSSY_QUALITY_DEFAULT, type ScreenshotRequest } from './schema.ts';

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, useDefaults: true }); // cross-field rules require fields declared at the top;
ajv.addKeyword({ keyword: 'x-rule', schemaType: 'string' });
ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
ajv.addKeyword({ keyword: 'x-group', schemaType: 'string' }); // where a form shows the field (groups.ts)
// A string's bound in UTF-8 bytes (css, js); its error names the field like any other.
ajv.addKeyword({
  keyword: 'x-max-bytes',
  type: 'string',
  schemaType: 'number',
  validate: (max: number, data: string) => Buffer.byteLength(data, 'utf8') <= max,
  errors: false,
});
// `x-suggest` on an enum too long to spell in its rule (device): the 400 names the closest values.
ajv.addKeyword({ keyword: 'x-suggest', schemaType: 'boolean' });
// `format: uri` on `url`: what a capture can navigate to, an absolute http(s) URL with a host.
ajv.addFormat('uri', { type: 'string', validate: isHttpUrl });
// timezone and locale: what the browser can apply (server/emulation/formats.ts).
for (const [name, validate] of Object.entries(EMULATION_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
const FIELDS = Object.keys(screenshotRequestSchema.properties);
/** The capture request's field names. */
export const SCREENSHOT_FIELDS: readonly string[] = FIELDS;

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** A JSON Schema whose fields carry `x-rule` and whose cross-field rules (`allOf`) carry `x-message`. */
type RuledSchema = { properties: object; allOf?: readonly unknown[] };

/** The field a JSON pointer of the instance names (/viewport/width, /hideSelectors/3), its rule and schema. */
function ruleAt(root: RuledSchema, instancePath: string): { field: string; rule: string; schema: any } {
  let schema: any = root;
  const names: string[] = [];
  for (const p of instancePath.split('/').slice(1)) {
    if (schema?.type === 'array') {
      schema = schema.items;
      names[names.length - 1] += `[${p}]`;
    } else if (schema?.properties?.[p] === undefined && typeof schema?.additionalProperties === 'object') {
      schema = schema.additionalProperties; // a map (headers): the key is the caller's, never quoted
      names.push('*');
    } else {
      schema = schema?.properties?.[p];
      names.push(p);
    }
  }
  return { field: names.join('.') || 'body', rule: schema?.['x-rule'] ?? 'valid', schema };
}

/** The value a JSON pointer names in the body. */
const valueAt = (body: unknown, instancePath: string): unknown =>
  instancePath
    .split('/')
    .slice(1)
    .reduce<any>((v, p) => v?.[p], body);

function messageFor(root: RuledSchema, e: ErrorObject, body: unknown): string | undefined {
  // A cross-field rule, of the body or of an object within it (a compare request's
  // baseline.request, a batch's requests[3]): its x-message, after that object's name when it is
  // not the body. The schema path finds the rule; the instance path names the object (an item's index).
  const crossField = /^#((?:\/(?:properties\/[^/]+|items))*)\/allOf\/(\d+)\//.exec(e.schemaPath);
  if (crossField) {
    const steps = crossField[1]!.split('/').slice(1);
    let owner: any = root;
    let depth = 0;
    for (let k = 0; k < steps.length; k++, depth++) owner = steps[k] === 'items' ? owner?.items : owner?.properties?.[steps[++k]!];
    const message: string = owner?.allOf?.[Number(crossField[2])]?.['x-message'] ?? 'is not valid';
    if (depth === 0) return message;
    const at = e.instancePath
      .split('/')
      .slice(0, depth + 1)
      .join('/');
    return `${ruleAt(root, at).field}: ${message}`;
  }
  // A branch of a field's oneOf (one action per object): the oneOf's own error names the field.
  if (/\/oneOf\/\d+\//.test(e.schemaPath)) return undefined;
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    // A field the body itself requires (a batch's requests): its rule, as if sent wrong.
    if (e.instancePath === '') return `${missing} must be ${ruleAt(root, `/${missing}`).rule}`;
    const parent = ruleAt(root, e.instancePath).field;
    return `${parent}.${missing} is required when ${parent} is given`;
  }
  const { field, rule, schema } = ruleAt(root, e.instancePath);
  const typed = valueAt(body, e.instancePath);
  // not "; ": that joins one field's message to the next (clients split on it, as the playground does)
  if (e.keyword === 'enum' && schema?.['x-suggest'] && typeof typed === 'string') {
    return `${field} must be ${rule}: the closest are ${closest(typed, schema.enum)
      .map((n) => JSON.stringify(n))
      .join(', ')}`;
  }
  return `${field} must be ${rule}`;
}

/**
 * A checker for another body schema built on this one (POST /v1/compare's: the capture fields and
 * its own), with the same keywords and the same field-naming messages: it returns a copy of the
 * body with the schema's defaults, or throws one 400 naming every bad field.
 */
export function compileBodyCheck(root: RuledSchema): (body: unknown) => Record<string, unknown> {
  const checkBody = ajv.compile(root);
  return (body) => {
    // A copy: ajv writes the defaults into what it checks, and the caller's object stays as sent.
    const copy: unknown = body !== null && typeof body === 'object' && !Array.isArray(body) ? structuredClone(body) : body;
    if (copy === null || typeof copy !== 'object' || Array.isArray(copy)) throw badRequest('body must be a JSON object');
    if (!checkBody(copy))
      throw badRequest([...new Set((checkBody.errors ?? []).map((e) => messageFor(root, e, copy)).filter((m) => m !== undefined))].join('; '));
    return copy as Record<string, unknown>;
  };
}

const check = compileBodyCheck(screenshotRequestSchema);

/** Validates a parsed JSON body; returns the normalised request or throws one 400/413 naming every bad field. */
export function validateRequest(body: unknown): ScreenshotRequest {
  const b = check(body) as Record<string, unknown> & ScreenshotRequest;
  if (b.html !== undefined && Buffer.byteLength(b.html, 'utf8') > HTML_MAX_BYTES) {
    throw new ServiceError('payload_too_large', `html must be at most ${HTML_MAX_BYTES} bytes (UTF-8)`);
  }
  // Unknown fields are ignored (spec §2.1 rule 2): only the schema's fields go further.
  const req = Object.fromEntries(FIELDS.filter((k) => b[k] !== undefined).map((k) => [k, b[k]])) as ScreenshotRequest;
  if (req.url !== undefined) req.url = new URL(req.url).href; // navigate with the normalised href (threat model)
  resolveEmulation(req, body as Record<string, unknown>); // a device preset's viewport and userAgent, where not sent
  if (req.format !== 'png') req.quality = Math.round(req.quality ?? LOSSY_QUALITY_DEFAULT);
  const vp = req.viewport;
  req.viewport = { width: Math.round(vp.width), height: Math.round(vp.height), deviceScaleFactor: vp.deviceScaleFactor };
  return req;
}
