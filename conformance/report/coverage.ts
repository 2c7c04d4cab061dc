// The coverage matrix: for every rule of the manifest (rules.ts), the cases that check it, by
// profile. A spec rule without a case is a failure of the suite itself (DESIGN §6).
import { PROFILES, type Case, type Profile } from '../model/model.ts';
import { RULES, type Rule } from '../model/rules.ts';

type CaseLike = Pick<Case, 'id' | 'rules' | 'profile'>;

export interface CoverageRow {
  rule: Rule;
  cases: Record<Profile, string[]>;
}

export function coverageMatrix(cases: CaseLike[]): CoverageRow[] {
  return RULES.map((rule) => {
    const row: CoverageRow = { rule, cases: Object.fromEntries(PROFILES.map((p) => [p, [] as string[]])) as Record<Profile, string[]> };
    for (const c of cases) if (c.rules.includes(rule.id)) row.cases[c.profile].push(c.id);
    return row;
  });
}

/** Rules that need a case and have none: every spec rule, and other rules without an `untested` reason. */
export function uncovered(cases: CaseLike[]): Rule[] {
  return coverageMatrix(cases)
    .filter((r) => casesOfRow(r).length === 0)
    .filter((r) => r.rule.source === 'spec' || !r.rule.untested)
    .map((r) => r.rule);
}

const casesOfRow = (r: CoverageRow): string[] => PROFILES.flatMap((p) => r.cases[p]);
const SHORT: Record<Profile, string> = { core: 'core', reference: 'ref', security: 'sec', extensions: 'ext', properties: 'prop' };

export function formatCoverage(cases: CaseLike[]): string {
  const rows = coverageMatrix(cases);
  const w = Math.max(...rows.map((r) => r.rule.id.length));
  const lines = [`${'rule'.padEnd(w)}  source       ${PROFILES.map((p) => SHORT[p].padStart(4)).join(' ')}  cases`];
  for (const r of rows) {
    const all = casesOfRow(r);
    const note =
      all.length === 0
        ? r.rule.untested
          ? `(not checked: ${r.rule.untested})`
          : 'NO CASE'
        : all.slice(0, 4).join(', ') + (all.length > 4 ? `, +${all.length - 4}` : '');
    lines.push(`${r.rule.id.padEnd(w)}  ${r.rule.source.padEnd(12)} ${PROFILES.map((p) => String(r.cases[p].length).padStart(4)).join(' ')}  ${note}`);
  }
  const spec = rows.filter((r) => r.rule.source === 'spec');
  const covered = spec.filter((r) => casesOfRow(r).length > 0).length;
  const coreOnly = spec.filter((r) => r.cases.core.length > 0).length;
  lines.push(
    '',
    `spec rules: ${spec.length}, with a case: ${covered}, with a core case: ${coreOnly}; cases: ${cases.length} (${PROFILES.map((p) => `${p} ${cases.filter((c) => c.profile === p).length}`).join(', ')})`,
  );
  return lines.join('\n');
}
