// The pairwise cases: one ordinary case (model.ts) per row of each profile's covering array
// (plans.ts, covering.ts), with the request its values write and the oracle computed for them
// (oracle.ts). Generated once per process; the same seed gives the same cases.
import type { Case, Profile } from '../model/model.ts';
import { coveringArray, type Row } from './covering.ts';
import { Validity } from './validity.ts';
import type { ExtSent } from './extension-values.ts';
import { CARD } from './fixture.ts';
import { oracle } from './oracle.ts';
import { specCombo, type Body, type Param } from './parameters.ts';
import { PLANS, SEED, type Plan } from './plans.ts';

export interface Generated {
  plan: Plan;
  /** Each case with the value ids of its row (parameter name -> value id). */
  rows: Array<{ case: Case; ids: Record<string, string>; row: Row }>;
  possible: number;
  /** The plan's constraints and visibility, to ask where a pair counts. */
  validity: Validity;
}

const idsOf = (params: readonly Param[], row: Row): Record<string, string> => Object.fromEntries(params.map((p, i) => [p.name, p.values[row[i]!]!.id]));

/** The request body a row of value ids writes. */
export function bodyOf(params: readonly Param[], ids: Readonly<Record<string, string>>): Body {
  const body: Body = {};
  for (const p of params) p.write(body, p.values.find((x) => x.id === ids[p.name])!.value);
  return body;
}

function caseOf(plan: Plan, ids: Record<string, string>, n: number, count: number): Case {
  const values = plan.params.map((p) => p.values.find((x) => x.id === ids[p.name])!);
  const ext = plan.params.flatMap((p, i) => (p.field !== undefined && values[i]!.value !== null ? [values[i]!.value as NonNullable<ExtSent>] : []));
  const combo = specCombo(ids);
  const expect = oracle({ combo, ext, profile: plan.profile });
  const image = expect.image!;
  const what = combo.selector
    ? `the ${CARD.selector} element${combo.fullPage ? ' (fullPage ignored)' : ''}`
    : combo.fullPage
      ? 'the whole page'
      : 'the viewport';
  const words = values.map((x) => x.words).filter((w): w is string => w !== null);
  const who = plan.profile === 'reference' ? 'reference server' : 'service';
  const modeRule = combo.selector ? '4.1/rule-2' : '4.1/rule-1';
  const rules = [...new Set([modeRule, ...values.flatMap((x) => x.rules), '2.3/content-type', '2.3/success'])];
  const fields = ext.map((e) => e.field);
  return {
    id: `${plan.prefix}.${String(n).padStart(String(count).length, '0')}`,
    must: `The ${who} MUST capture ${what} of the pairwise fixture as a ${image.width}x${image.height} ${image.type.toUpperCase()} for ${words.length ? words.join(', ') : 'the defaults'}, every strip as the spec puts it.`,
    rules,
    profile: plan.profile as Profile,
    ...(ids.source === 'url' ? { needs: ['fixtures' as const] } : {}),
    ...(fields.length ? { fields } : {}),
    request: { body: bodyOf(plan.params, ids) },
    expect,
  };
}

export function generate(plan: Plan): Generated {
  const array = coveringArray(plan.params, { seed: SEED, constraints: plan.constraints, visibility: plan.visibility, required: plan.required });
  const rows = array.rows.map((r, i) => {
    const ids = idsOf(plan.params, r);
    return { case: caseOf(plan, ids, i + 1, array.rows.length), ids, row: r };
  });
  return { plan, rows, possible: array.possible, validity: new Validity(plan.params, plan.constraints, plan.visibility) };
}

let generated: Generated[] | undefined;

/** Every profile's generated cases (computed once). */
export function pairwiseGenerated(): Generated[] {
  generated ??= PLANS.map(generate);
  return generated;
}

export function pairwiseCases(): Case[] {
  return pairwiseGenerated().flatMap((g) => g.rows.map((r) => r.case));
}

/** At most this many cases per mutant: any judged case fails a mutant that breaks its pair; several make the kill not hang on one. */
const MUTANT_CASES = 6;

/**
 * The generated cases (of these profiles) holding every one of these values (parameter name ->
 * value id or ids) where each pair of them is judged (validity.ts visibility), at most
 * MUTANT_CASES: the cases a mutant that breaks where those values meet must fail (mutants.ts).
 */
export function pairwiseCasesWith(match: Readonly<Record<string, string | readonly string[]>>, profiles?: readonly Profile[]): { ids: ReadonlySet<string> } {
  const names = Object.keys(match);
  const ids = pairwiseGenerated()
    .filter((g) => !profiles || profiles.includes(g.plan.profile as Profile))
    .flatMap((g) =>
      g.rows
        .filter((r) => names.every((name) => r.ids[name] !== undefined && [match[name]!].flat().includes(r.ids[name]!)))
        .filter((r) => {
          const at = names.map((name) => g.plan.params.findIndex((p) => p.name === name)).sort((x, y) => x - y);
          return at.every((a, i) => at.slice(i + 1).every((b) => g.validity.counts(r.row, { a, va: r.row[a]!, b, vb: r.row[b]! })));
        })
        .map((r) => r.case.id),
    )
    .slice(0, MUTANT_CASES);
  if (ids.length === 0) throw new Error(`no pairwise case judges ${JSON.stringify(match)}`);
  return { ids: new Set(ids) };
}
