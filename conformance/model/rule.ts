// What a rule of the coverage manifest is (rules.ts lists them): an id, where it comes from, and
// the rule as quoted from there.
import type { Clause } from './model.ts';

export type RuleSource = Clause['source'];

export interface Rule {
  id: string;
  source: RuleSource;
  /** The rule as written in its source (quoted, possibly shortened with "..."). */
  quote: string;
  /** Only for non-spec rules: why no conformance case checks it (the server's own tests do). */
  untested?: string;
}

export const spec = (id: string, quote: string): Rule => ({ id, source: 'spec', quote });
export const design = (id: string, quote: string, untested?: string): Rule => ({ id, source: 'design', quote, ...(untested ? { untested } : {}) });
export const threat = (id: string, quote: string): Rule => ({ id, source: 'threat-model', quote });
/** A request field beyond the spec: `quote` is its contract as the field's description states it. */
export const ext = (id: string, quote: string): Rule => ({ id, source: 'extension', quote });
