// Pairwise coverage of a set of cases, per profile: which value classes each generated case's
// request body holds (read back from the body, so an export's cases are counted as they are, not
// as the generator meant them), and how many of the pairs the profile must cover they hold
// (covering.ts pairCoverage, under the same constraints). `--coverage` prints it.
import type { Case } from '../model/model.ts';
import { pairCoverage, type Row } from './covering.ts';
import type { Body, Param } from './parameters.ts';
import { PLANS, SEED, type Plan } from './plans.ts';

const at = (body: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), body);
const projection = (p: Param, body: unknown) => JSON.stringify(p.paths.map((path) => at(body, path) ?? null));

/** The value class of each parameter a body holds, as a row; null when some parameter's value is none of its classes. */
export function classify(params: readonly Param[], body: unknown): Row | null {
  const row: Row = [];
  for (const p of params) {
    const seen = projection(p, body);
    const i = p.values.findIndex((x) => {
      const written: Body = {};
      p.write(written, x.value);
      return projection(p, written) === seen;
    });
    if (i < 0) return null;
    row.push(i);
  }
  return row;
}

export interface PairwiseReport {
  plan: Plan;
  cases: number;
  /** Generated cases whose body holds a value no class describes (not counted). */
  unreadable: string[];
  covered: number;
  possible: number;
  /** Required pairs that no valid case can judge (constraints, visibility): not counted as possible. */
  excluded: number;
}

export function pairwiseCoverage(cases: readonly Pick<Case, 'id' | 'profile' | 'request'>[]): PairwiseReport[] {
  return PLANS.map((plan) => {
    const mine = cases.filter((c) => c.profile === plan.profile && c.id.startsWith(`${plan.prefix}.`));
    const rows: Row[] = [];
    const unreadable: string[] = [];
    for (const c of mine) {
      const row = 'body' in c.request ? classify(plan.params, c.request.body) : null;
      if (row) rows.push(row);
      else unreadable.push(c.id);
    }
    const { covered, possible, impossible } = pairCoverage(plan.params, rows, plan);
    return { plan, cases: mine.length, unreadable, covered, possible, excluded: impossible.length };
  });
}

export const complete = (r: PairwiseReport) => r.covered === r.possible && r.unreadable.length === 0;

export function formatPairwise(reports: readonly PairwiseReport[]): string {
  const lines = [
    `pairwise coverage (conformance/pairwise: AETG-style greedy covering arrays, seed ${SEED}; pairs covered / pairs possible under the constraints):`,
  ];
  for (const r of reports) {
    const pct = r.possible ? ((100 * r.covered) / r.possible).toFixed(r.covered === r.possible ? 0 : 1) : '100';
    const notes = [
      ...(r.excluded ? [`${r.excluded} pairs no valid case can judge left out`] : []),
      ...(r.unreadable.length ? [`not read: ${r.unreadable.join(', ')}`] : []),
    ];
    lines.push(
      `  ${r.plan.profile.padEnd(11)} ${String(r.cases).padStart(3)} cases  ${r.covered}/${r.possible} pairs (${pct}%)${notes.length ? `; ${notes.join('; ')}` : ''}`,
    );
  }
  return lines.join('\n');
}
