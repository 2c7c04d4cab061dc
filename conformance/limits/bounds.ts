// Every limit of the request schema the suite ships (data/reference-request.json), read from the
// schema itself so that a new bounded field is judged without anyone listing it: numbers'
// minimum and maximum, strings' maxLength (and a minLength above 1), lists' maxItems, objects'
// maxProperties, and the bounds in UTF-8 bytes (`byteBounds`, which JSON Schema cannot say).
// A minLength of 1 is left out: one below it is the empty string, which properties.malformed
// draws for every field.
import reference from '../data/reference-request.json' with { type: 'json' };
import type { SchemaNode } from '../properties/fields.ts';

export type LimitNode = SchemaNode & {
  oneOf?: readonly LimitNode[];
  additionalProperties?: LimitNode | boolean;
  maxProperties?: number;
  uniqueItems?: boolean;
  description?: string;
  items?: LimitNode;
  properties?: Record<string, LimitNode>;
};

/** One step of a path into the body: a property name, '[]' (an entry of a list) or '{}' (any member of a map). */
export type Step = string;

export type Keyword = 'maximum' | 'minimum' | 'maxLength' | 'minLength' | 'maxItems' | 'maxProperties' | 'maxBytes';

export interface Bound {
  /** Where the bounded value sits: ['viewport', 'width'], ['hideSelectors', '[]'], ['actions', '[]', 'click']. */
  path: readonly Step[];
  keyword: Keyword;
  /** The inclusive limit. */
  limit: number;
  node: LimitNode;
}

export const SCHEMA = reference.schema as unknown as LimitNode & { properties: Record<string, LimitNode>; allOf?: readonly unknown[] };
const BYTE_BOUNDS = (reference as { byteBounds?: Record<string, number> }).byteBounds ?? {};

/** The key that names a bound in case ids, tags and mutants: `viewport.width.maximum`, `hideSelectors[].maxLength`. */
export const boundKey = (b: Pick<Bound, 'path' | 'keyword'>) => `${b.path.join('.').replace(/\.(\[\]|\{\})/g, '$1')}.${b.keyword}`;

function walk(node: LimitNode, path: Step[], out: Bound[]): void {
  const at = (keyword: Keyword, limit: number | undefined) => {
    if (limit !== undefined) out.push({ path, keyword, limit, node });
  };
  const type = node.type;
  if (type === 'number' || type === 'integer') {
    at('minimum', node.minimum);
    at('maximum', node.maximum);
  }
  if (type === 'string') {
    if ((node.minLength ?? 0) > 1) at('minLength', node.minLength);
    at('maxLength', node.maxLength);
  }
  if (type === 'array') at('maxItems', node.maxItems);
  if (type === 'object') at('maxProperties', node.maxProperties);
  for (const [k, sub] of Object.entries(node.properties ?? {})) walk(sub, [...path, k], out);
  if (node.items) walk(node.items, [...path, '[]'], out);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(node.additionalProperties, [...path, '{}'], out);
}

let all: Bound[] | undefined;

/** Every bound of the schema, in the schema's order of fields. */
export function schemaBounds(): readonly Bound[] {
  if (all) return all;
  const out: Bound[] = [];
  for (const [field, node] of Object.entries(SCHEMA.properties)) {
    walk(node, [field], out);
    if (BYTE_BOUNDS[field] !== undefined) out.push({ path: [field], keyword: 'maxBytes', limit: BYTE_BOUNDS[field], node });
  }
  all = out;
  return out;
}
