// Deliberately broken implementations: each is a proxy in front of the reference server that breaks
// exactly ONE rule. The suite must reject every one (run-mutants.ts). `cases` is the subset of cases
// the mutant is run against (the cases relevant to the rule it breaks), to keep the run affordable:
// the cases tagged with its id (Case.tags, written on the case), or for a pair mutant the generated
// cases holding its pair; run-mutants.ts also checks that the same subset passes against the
// unbroken server, and self-test/mutants.test.ts that no mutant is left without a case.
import { EXTENSION_MUTANTS } from './extensions.ts';
import { LIMIT_MUTANTS } from './limits.ts';
import type { Mutant } from './mutant.ts';
import { PAIR_MUTANTS } from './pairs.ts';
import { PROPERTY_MUTANTS } from './properties.ts';
import { RELATION_MUTANTS } from './relations.ts';
import { SPEC_CAPTURE_MUTANTS } from './spec-capture.ts';
import { SPEC_REQUEST_MUTANTS } from './spec-request.ts';

export { selects, type Mutant, type MutantCases } from './mutant.ts';

export const MUTANTS: Mutant[] = [
  ...SPEC_CAPTURE_MUTANTS,
  ...SPEC_REQUEST_MUTANTS,
  ...EXTENSION_MUTANTS,
  // Pairs: each option right alone, one pair broken (pairs.ts; the pairwise cases holding it).
  ...PAIR_MUTANTS,
  // Exact limits, odd valid values, nested unknown fields: only the properties find them.
  ...PROPERTY_MUTANTS,
  // Relations between two captures: only the relation properties find them (relations.ts).
  ...RELATION_MUTANTS,
  // One inclusive limit refused at exactly its value: the generated exact-limit cases find them.
  ...LIMIT_MUTANTS,
];
