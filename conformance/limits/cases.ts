// Every limit of the schema at its exact value and one past it (bounds.ts, values.ts), as ordinary
// cases: the exact value must give a picture (the plain page, green; its exact size where the
// window alone sets it), one past must be a 400 bad_request naming the field. A spec field's limit
// is `core` (but the oversize html, whose answer the spec does not show: any 4xx); a limit of a
// spec field that the spec does not state (a selector's length) is `reference`; an extension's is
// `extensions`, run where the implementation declares the field. A field whose values have a
// meaning beyond their syntax (a time zone, a language tag) is judged one past its limit only: no
// string of exactly that length need be a real one.
import type { Case, Expectation, Profile } from '../model/model.ts';
import { RULES_BY_ID } from '../model/rules.ts';
import { isSpecField, OPEN_BOUNDS } from '../properties/fields.ts';
import { boundKey, schemaBounds, type Bound } from './bounds.ts';
import { WHITE } from '../cases/helpers.ts';
import { bodyWith, PLAIN_GREEN, SLOW_AT_LIMIT, valuesAt, where } from './values.ts';

/** The §8 rule a spec field's limit is, where it has one of its own. */
const SECTION_8: Readonly<Record<string, string>> = {
  html: '8/html-size',
  viewport: '8/viewport-size',
  'viewport.deviceScaleFactor': '8/scale',
  quality: '8/quality',
  hideSelectors: '8/hideSelectors',
};

function profileOf(b: Bound): Profile {
  const field = b.path[0]!;
  if (!isSpecField(field)) return 'extensions';
  return OPEN_BOUNDS.has(`${b.path.join('.')}.${b.keyword}`) ? 'reference' : 'core';
}

function rulesOf(b: Bound): string[] {
  const field = b.path[0]!;
  const own = [SECTION_8[b.path.join('.')] ?? SECTION_8[field], `2.1/${field}`, `X/${field}`, field === 'viewport' ? '2.2/bounds' : undefined];
  const found = own.filter((r): r is string => r !== undefined && RULES_BY_ID.has(r));
  return found.length ? found : ['2.1/rule-3'];
}

/** The name the error message must hold: a member of an object by its own name, anything inside a list or a map by the list's. */
function nameOf(b: Bound): string {
  const inside = b.path[1];
  return inside !== undefined && inside !== '[]' && inside !== '{}' ? b.path[b.path.length - 1]! : b.path[0]!;
}

/** The picture a body gives when only the window sets its size: width x height times the scale. */
function sizeOf(body: Record<string, unknown>): { width?: number; height?: number } {
  if (body.fullPage === true || 'selector' in body || 'clip' in body || 'device' in body) return {};
  const vp = body.viewport as { width: number; height: number; deviceScaleFactor?: number };
  const s = vp.deviceScaleFactor ?? 1;
  return { width: Math.round(vp.width * s), height: Math.round(vp.height * s) };
}

const describe = (v: unknown): string => {
  if (Array.isArray(v)) return `${v.length} entries`;
  if (typeof v === 'string') return `${v.length} characters`;
  if (v && typeof v === 'object') return '$html' in v ? `${(v as { $html: { bytes: number } }).$html.bytes} bytes` : `${Object.keys(v).length} members`;
  return String(v);
};

function limitCases(b: Bound): Case[] {
  const profile = profileOf(b);
  const key = boundKey(b);
  const field = b.path[0]!;
  const { exact, past } = valuesAt(b);
  const at = (value: unknown) => bodyWith(b, value);
  const base = {
    rules: rulesOf(b),
    profile,
    ...(profile === 'extensions' ? { fields: [field] } : {}),
  };
  const out: Case[] = [];
  const semantic = b.node.format !== undefined && b.node.format !== 'uri';
  if (!semantic) {
    const { body, url } = at(exact);
    const format = (body.format as 'png' | 'jpeg' | 'webp' | undefined) ?? 'png';
    // a page of exactly so many bytes (resolve.ts $html) is white; every other exact value is on the plain page
    const sized = typeof body.html === 'object' && body.html !== null && '$html' in body.html;
    const expect: Expectation = SLOW_AT_LIMIT.has(where(b.path))
      ? { status: [200, 504] }
      : {
          status: 200,
          image: { type: format, ...sizeOf(body) },
          probes: [
            {
              kind: 'color',
              region: { x: 0.25, y: 0.25, w: 0.5, h: 0.5, unit: 'fraction' },
              rgb: sized ? WHITE : PLAIN_GREEN,
              tolerance: format === 'png' ? 24 : 64,
              label: sized ? 'the page, white' : 'the plain page, green',
            },
          ],
        };
    out.push({
      ...base,
      id: `limits.${key}.exact`,
      must: `The service MUST accept ${b.path.join('.')} at exactly its ${b.keyword} (${describe(exact)}) and capture the page.`,
      ...(url ? { needs: ['fixtures' as const] } : {}),
      request: { body },
      expect,
    });
  }
  const { body, url } = at(past);
  const oversizeHtml = profile === 'core' && b.keyword === 'maxBytes' && field === 'html';
  out.push({
    ...base,
    id: `limits.${key}.past`,
    rules: [...base.rules, ...(oversizeHtml ? [] : ['2.1/rule-3', '7/row-4']), '7/failure-body'],
    must: oversizeHtml
      ? `The service MUST refuse html one byte past its limit (${describe(past)}).`
      : `The service MUST refuse ${b.path.join('.')} one past its ${b.keyword} (${describe(past)}) with 400 bad_request naming ${nameOf(b)}.`,
    ...(url ? { needs: ['fixtures' as const] } : {}),
    request: { body },
    expect: oversizeHtml ? { status: '4xx' } : { status: 400, error: 'bad_request', message: `\\b${nameOf(b)}\\b` },
  });
  return out;
}

let cases: Case[] | undefined;

/** The exact-limit cases of every bound of the schema (computed once). */
export function limitsCases(): Case[] {
  cases ??= schemaBounds().flatMap(limitCases);
  return cases;
}

/**
 * The cases of the bounds whose key (bounds.ts boundKey: `viewport.width.maximum`) starts with
 * `prefix`: what a mutant that breaks those limits runs against (mutants/), found from the
 * generator as the pairwise mutants' cases are, so that a new bound of the field is in the set.
 */
export function limitCasesOf(prefix: string): { ids: ReadonlySet<string> } {
  const ids = limitsCases()
    .filter((c) => c.id.startsWith(`limits.${prefix}`))
    .map((c) => c.id);
  if (ids.length === 0) throw new Error(`no limit case of ${prefix}`);
  return { ids: new Set(ids) };
}
