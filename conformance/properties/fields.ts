// The request fields the properties generate, read from the one request schema the suite ships
// (data/reference-request.json, what the MCP cases check the reference's tool against): the spec's
// fields always, the extension fields only where the implementation's OpenAPI document declares
// them (declared-fields.ts, as the `extensions` cases and the pairwise `pairs.ext` cases run). A
// field's malformed values are derived from its schema node (type, enum, bounds, list and length
// limits), except the bounds the spec does not state (OPEN_BOUNDS): another implementation may
// rightly accept those.
import fc from 'fast-check';
import reference from '../data/reference-request.json' with { type: 'json' };

export type SchemaNode = {
  type?: string;
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: readonly string[];
  format?: string;
};

export const REQUEST_SCHEMA = reference.schema as unknown as { properties: Record<string, SchemaNode> };

/** The spec's request fields (§2.1); every other property of the schema is an extension (§9). */
export const SPEC_FIELDS = [
  'url',
  'html',
  'fullPage',
  'format',
  'quality',
  'viewport',
  'selector',
  'omitBackground',
  'waitUntil',
  'waitForSelector',
  'blockCookieBanners',
  'hideSelectors',
  'blockAds',
] as const;

/** Every field name the schema knows (spec and extensions): a generated unknown field is none of these. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(REQUEST_SCHEMA.properties));

/**
 * Bounds of spec fields that are the reference's, not the spec's (a selector's length): never
 * used to make a value malformed, since the spec lets an implementation accept it.
 */
export const OPEN_BOUNDS: ReadonlySet<string> = new Set(['selector.maxLength', 'waitForSelector.maxLength']);

export const isSpecField = (f: string) => (SPEC_FIELDS as readonly string[]).includes(f);

/** The fields a property may touch: the spec's, and the declared extensions the schema knows. */
export function fieldsFor(declared: ReadonlySet<string> | undefined): string[] {
  return Object.keys(REQUEST_SCHEMA.properties).filter((f) => isSpecField(f) || declared?.has(f));
}

/** A field made malformed: where in the body, the value, and the name the message must hold. */
export interface Malformed {
  /** Body path: ['viewport', 'width'], ['hideSelectors'], ... */
  path: string[];
  value: unknown;
  /** What is wrong, in a few words. */
  what: string;
  /** The name the error message must contain (the leaf field; a list's name for its items). */
  names: string;
}

const WRONG_TYPE: Record<string, readonly unknown[]> = {
  number: ['12', true, null, [], {}, ''],
  integer: ['12', true, null, [], {}],
  boolean: ['true', 1, 0, null, 'yes', []],
  string: [42, true, null, [], {}, 0],
  array: ['#a', 7, {}, null, true],
  object: ['big', 7, [], null, true],
};

/** Every malformed variant of one schema node (a field or a nested property), as arbitraries. */
function variants(node: SchemaNode, path: string[], names: string, deep: boolean): fc.Arbitrary<Malformed>[] {
  const key = path.join('.');
  const out: fc.Arbitrary<Malformed>[] = [];
  const m = (value: unknown, what: string, n = names): Malformed => ({ path, value, what, names: n });
  const type = node.type ?? 'string';
  out.push(fc.constantFrom(...(WRONG_TYPE[type] ?? WRONG_TYPE.string!)).map((v) => m(v, `not a ${type}`)));
  if (node.enum) {
    const strings = node.enum.filter((e): e is string => typeof e === 'string');
    const near = strings.flatMap((e) => [e.toUpperCase(), ` ${e}`, `${e}x`, e.slice(0, -1)]).filter((s) => !strings.includes(s));
    out.push(
      fc
        .oneof(fc.constantFrom('', 'gif', 'ünïcödé', ...near), fc.string({ maxLength: 12 }))
        .filter((s) => !strings.includes(s))
        .map((v) => m(v, `not one of ${strings.join(', ')}`)),
    );
  }
  if (type === 'number' || type === 'integer') {
    if (node.minimum !== undefined) {
      const min = node.minimum;
      out.push(fc.constantFrom(min - 1, min - 0.5, min - 1e-6, min - 1e6, -min - 1).map((v) => m(v, `below ${min}`)));
    }
    if (node.maximum !== undefined) {
      const max = node.maximum;
      out.push(fc.constantFrom(max + 1, max + 0.5, max + 1e-6, max * 1000 + 1, 1e300).map((v) => m(v, `above ${max}`)));
    }
    if (type === 'integer') out.push(fc.constantFrom(0.5, 1.25).map((v) => m((node.minimum ?? 0) + v, 'not an integer')));
  }
  if (type === 'string') {
    if ((node.minLength ?? 0) >= 1) out.push(fc.constant(m('', 'empty')));
    if (node.maxLength !== undefined && !OPEN_BOUNDS.has(`${key}.maxLength`) && node.maxLength <= 100_000)
      out.push(fc.constant(m(`.${'x'.repeat(node.maxLength)}`, `${node.maxLength + 1} characters`)));
    if (node.format === 'uri')
      out.push(
        fc.constantFrom('example.com/page', '/pages/x.html', 'ftp://example.com/', 'javascript:alert(1)', '').map((v) => m(v, 'not an absolute http(s) URL')),
      );
  }
  if (deep && type === 'array' && node.items && node.items.type !== 'object') {
    const item = node.items;
    const ok = validOf(item);
    if (node.maxItems !== undefined)
      out.push(
        fc.constant(
          m(
            Array.from({ length: node.maxItems + 1 }, (_, i) => ok(i)),
            `${node.maxItems + 1} entries`,
          ),
        ),
      );
    for (const bad of variants(item, [...path, '[]'], names, false))
      out.push(
        fc.tuple(bad, fc.nat({ max: 3 })).map(([b, at]) => {
          const list: unknown[] = Array.from({ length: at + 1 }, (_, i) => ok(i));
          list[at] = b.value;
          return m(list, `an entry ${b.what}`);
        }),
      );
  }
  if (deep && type === 'object' && node.properties) {
    for (const r of node.required ?? []) out.push(fc.constant({ path: [...path, r], value: undefined, what: 'missing', names: r }));
    for (const [k, sub] of Object.entries(node.properties)) out.push(...variants(sub, [...path, k], k, false));
  }
  return out;
}

/** A valid value of a list item (for lists whose other entries must be fine). */
function validOf(item: SchemaNode): (i: number) => unknown {
  if (item.enum) return (i) => item.enum![i % item.enum!.length];
  if (item.type === 'string') return (i) => `.ok-${i}`; // a selector matching nothing, a pattern, a name
  if (item.type === 'number' || item.type === 'integer') return () => item.minimum ?? 1;
  return () => 'x';
}

/**
 * One malformed value of `field`, from its schema: a spec field also inside it (a viewport's
 * width, a list's entry, a missing required member); an extension field at its top level only
 * (its members may need others: a clip's four edges, a cookie's url).
 */
export function malformedOf(field: string): fc.Arbitrary<Malformed> {
  const node = REQUEST_SCHEMA.properties[field];
  if (!node) throw new Error(`the schema has no field ${field}`);
  return fc.oneof(...variants(node, [field], field, isSpecField(field)));
}
