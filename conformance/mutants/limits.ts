// Mutants that refuse a body at exactly one inclusive limit (an off-by-one `<` where `<=` was
// meant): right one past it and everywhere else. The generated exact-limit cases of that bound
// (limits/cases.ts) must kill each. One bound of each kind: a number's minimum and maximum, a
// string's length, a list's entries, a map's members, a length in bytes.
import { boundKey, schemaBounds, type Bound } from '../limits/bounds.ts';
import { limitCasesOf } from '../limits/cases.ts';
import type { Mutant } from './mutant.ts';
import { body, jsonResponse } from './proxy.ts';

const KINDS = [
  'viewport.deviceScaleFactor.minimum',
  'quality.maximum',
  'hideSelectors[].maxLength',
  'html.maxBytes',
  'cacheTtl.maximum',
  'cookies.maxItems',
  'headers.maxProperties',
  'css.maxBytes',
];

/** The values found at a bound's path in a body: '[]' is every entry of a list, '{}' every member of a map. */
function valuesAt(v: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return [v];
  const [step, ...rest] = path;
  if (step === '[]') return Array.isArray(v) ? v.flatMap((x) => valuesAt(x, rest)) : [];
  if (step === '{}') return v && typeof v === 'object' ? Object.values(v).flatMap((x) => valuesAt(x, rest)) : [];
  return v && typeof v === 'object' && !Array.isArray(v) ? valuesAt((v as Record<string, unknown>)[step!], rest) : [];
}

/** Whether a value sits exactly at the bound. */
function atLimit(b: Bound, v: unknown): boolean {
  switch (b.keyword) {
    case 'maximum':
    case 'minimum':
      return v === b.limit;
    case 'maxLength':
    case 'minLength':
      return typeof v === 'string' && v.length === b.limit;
    case 'maxBytes':
      return typeof v === 'string' && Buffer.byteLength(v) === b.limit;
    case 'maxItems':
      return Array.isArray(v) && v.length === b.limit;
    case 'maxProperties':
      return !!v && typeof v === 'object' && Object.keys(v).length === b.limit;
  }
}

function refusesAt(b: Bound): Mutant {
  const key = boundKey(b);
  const field = b.path[0]!;
  return {
    id: `limit-refuses-${key.replace(/[[\]{}]/g, '').replace(/\./g, '-')}`,
    breaks: '2.1/rule-3',
    description: `refuses ${b.path.join('.')} at exactly its ${b.keyword} ${b.limit} as out of range`,
    cases: limitCasesOf(key),
    hooks: body((json) =>
      valuesAt(json, b.path).some((v) => atLimit(b, v))
        ? { respond: jsonResponse(400, { error: 'bad_request', message: `${field} must be within its limit` }) }
        : json,
    ),
  };
}

export const LIMIT_MUTANTS: Mutant[] = KINDS.map((k) => {
  const b = schemaBounds().find((x) => boundKey(x) === k);
  if (!b) throw new Error(`the schema has no bound ${k}`);
  return refusesAt(b);
});
