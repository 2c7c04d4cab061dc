// What a run produces for each case, and the tallies the reports print: by profile and by spec
// section (the section of the first rule a case cites, rules.ts sectionOf). A failed case also
// carries how long the implementation took and how busy the machine was, so that a report from
// someone else's CI says whether load was a factor.
import os from 'node:os';
import type { Attachment } from '../engine/execute.ts';
import type { Case, Check } from '../model/model.ts';
import { SECTIONS, sectionOf } from '../model/rules.ts';

export type Verdict = 'pass' | 'fail' | 'skip' | 'expected-failure' | 'unexpected-pass';

export interface CaseRecord {
  case: Case;
  verdict: Verdict;
  /** Skip reason or expected-failure reason. */
  reason?: string;
  durationMs: number;
  checks: Check[];
  attachments: Attachment[];
  /** Failed cases only. */
  timing?: FailureTiming;
}

export interface MachineLoad {
  /** os.loadavg() of the machine the suite runs on: 1, 5 and 15 minutes. */
  loadAverage: number[];
  /** Its logical CPUs: a load average above this count means work waited for a CPU. */
  cpus: number;
}

export interface FailureTiming extends MachineLoad {
  /** How long the implementation took to answer each exchange of the case, in order (ms); empty when none answered. */
  responseMs: number[];
}

export function machineLoad(): MachineLoad {
  return { loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100), cpus: os.availableParallelism() };
}

export const cpus = (n: number) => `${n} CPU${n === 1 ? '' : 's'}`;

/** "the implementation answered in 730 ms (then 752 ms); load average 3.1 2.45 1.2 on 2 CPUs". */
export function describeTiming(t: FailureTiming): string {
  const [first, ...rest] = t.responseMs.map((ms) => `${Math.round(ms)} ms`);
  const took = first ? `the implementation answered in ${first}${rest.length ? ` (then ${rest.join(', ')})` : ''}` : 'no answer from the implementation';
  return `${took}; load average ${t.loadAverage.join(' ')} on ${cpus(t.cpus)}`;
}

export type Counts = Record<Verdict | 'total', number>;

export interface Tally {
  total: number;
  pass: number;
  fail: number;
  skip: number;
  expectedFailure: number;
  unexpectedPass: number;
  byProfile: Record<string, Counts>;
  bySection: Record<string, Counts>;
}

const zero = (): Counts => ({ total: 0, pass: 0, fail: 0, skip: 0, 'expected-failure': 0, 'unexpected-pass': 0 });

export function tally(records: CaseRecord[]): Tally {
  const count = (v: Verdict) => records.filter((r) => r.verdict === v).length;
  const byProfile: Record<string, Counts> = {};
  const bySection: Record<string, Counts> = {};
  for (const r of records) {
    for (const c of [(byProfile[r.case.profile] ??= zero()), (bySection[sectionOf(r.case.rules)] ??= zero())]) {
      c.total++;
      c[r.verdict]++;
    }
  }
  const order = Object.values(SECTIONS);
  const rank = (s: string) => (order.includes(s) ? order.indexOf(s) : order.length);
  const sorted = Object.fromEntries(Object.entries(bySection).sort(([a], [b]) => rank(a) - rank(b)));
  return {
    total: records.length,
    pass: count('pass'),
    fail: count('fail'),
    skip: count('skip'),
    expectedFailure: count('expected-failure'),
    unexpectedPass: count('unexpected-pass'),
    byProfile,
    bySection: sorted,
  };
}

/** "12m03s", "45s". */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
