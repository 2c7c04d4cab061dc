// What a deliberately broken implementation is (mutants.ts lists them): a proxy in front of the
// reference server that breaks one rule, and the cases it must fail.
import type { Case } from '../model/model.ts';
import type { ProxyHooks } from './proxy.ts';

export interface Mutant {
  id: string;
  /** The rule it breaks (a rule id from rules.ts) and how. */
  breaks: string;
  description: string;
  cases: MutantCases;
  /** Properties (properties/list.ts ids) also run against it, with run-mutants.ts's fixed seed. */
  properties?: readonly string[];
  hooks: ProxyHooks;
}

/** The cases a mutant runs against: those carrying a tag, or a set computed from the generator (pairwise). */
export type MutantCases = { tag: string } | { ids: ReadonlySet<string> };

/** Whether the mutant runs against this case. */
export function selects(m: Pick<Mutant, 'cases'>, c: Pick<Case, 'id' | 'tags'>): boolean {
  return 'tag' in m.cases ? (c.tags ?? []).includes(m.cases.tag) : m.cases.ids.has(c.id);
}
