// What each profile's pairwise cases cover: the parameters, the constraints, which pairs must
// meet, and the seed. `core`: every pair of the spec's values. `extensions`: every pair in which
// an extension field is sent (pairs of spec values alone are core's). `reference`: every pair of
// the formats whose omitBackground the spec leaves open (JPEG, WebP: DESIGN §3 decides) with
// every other value, omitBackground always on.
import type { Constraint, Pair, Parameter, Visibility } from './covering.ts';
import { EXT_CONSTRAINTS, EXT_PARAMS } from './extension-values.ts';
import type { OracleProfile } from './oracle.ts';
import { SPEC_CONSTRAINTS, SPEC_PARAMS, type Param } from './parameters.ts';
import { visibilityOf } from './visibility.ts';

/** The generator's seed: the same seed, the same cases. */
export const SEED = 20250131;

export interface Plan {
  profile: OracleProfile;
  /** Case ids are `<prefix>.<nn>`. */
  prefix: string;
  params: readonly Param[];
  constraints: readonly Constraint[];
  /** Where each value's effect shows: a pair counts only there (visibility.ts). */
  visibility: readonly Visibility[];
  required?: (p: Pair, params: readonly Parameter[]) => boolean;
}

/** A parameter with only some of its values. */
function only(p: Param, ids: readonly string[]): Param {
  return { ...p, values: p.values.filter((x) => ids.includes(x.id)) };
}

const SPEC = Object.values(SPEC_PARAMS) as readonly Param[];
const extensionSent = (params: readonly Parameter[], i: number, v: number) => (params[i] as Param).field !== undefined && params[i]!.values[v]!.id !== 'absent';

const plan = (p: Omit<Plan, 'visibility'>): Plan => ({ ...p, visibility: visibilityOf(p.params, p.profile) });

export const PLANS: readonly Plan[] = [
  plan({ profile: 'core', prefix: 'pairs.core', params: SPEC, constraints: SPEC_CONSTRAINTS }),
  plan({
    profile: 'extensions',
    prefix: 'pairs.ext',
    params: [...SPEC, ...EXT_PARAMS],
    constraints: [...SPEC_CONSTRAINTS, ...EXT_CONSTRAINTS],
    required: (p, params) => extensionSent(params, p.a, p.va) || extensionSent(params, p.b, p.vb),
  }),
  plan({
    profile: 'reference',
    prefix: 'pairs.ref',
    params: SPEC.map((p) => (p.name === 'omitBackground' ? only(p, ['on']) : p.name === 'format' ? only(p, ['jpeg', 'webp']) : p)),
    constraints: SPEC_CONSTRAINTS,
    required: (p, params) => params[p.a]!.name === 'format' || params[p.b]!.name === 'format',
  }),
];
