// Turns Playwright's per-test results into the suite's own records (shared by the reporters).
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { allCases } from '../cases/index.ts';
import { mcpItems, type SuiteItem } from '../mcp-suite.ts';
import type { Check } from '../model.ts';

export type Verdict = 'pass' | 'fail' | 'skip' | 'expected-failure' | 'unexpected-pass';

export interface ResultAttachment {
  name: string;
  contentType: string;
  path?: string;
  body?: Buffer;
}

export interface CaseRecord {
  id: string;
  profile: string;
  rules: string[];
  must: string;
  verdict: Verdict;
  /** Skip reason or expected-failure reason. */
  reason?: string;
  durationMs: number;
  checks: Check[];
  error?: string;
  attachments: ResultAttachment[];
}

let byId: Map<string, SuiteItem> | undefined;
export function caseById(id: string): SuiteItem | undefined {
  byId ??= new Map<string, SuiteItem>([...allCases(), ...mcpItems()].map((c) => [c.id, c]));
  return byId.get(id);
}

export function verdictOf(test: TestCase, result: TestResult): Verdict {
  if (result.status === 'skipped') return 'skip';
  const expectedFail = test.expectedStatus === 'failed';
  const passed = result.status === 'passed';
  if (expectedFail) return passed ? 'unexpected-pass' : 'expected-failure';
  return passed ? 'pass' : 'fail';
}

export function toRecord(test: TestCase, result: TestResult): CaseRecord {
  const c = caseById(test.title);
  const verdict = verdictOf(test, result);
  const note = [...test.annotations, ...result.annotations].find((a) => a.type === (verdict === 'skip' ? 'skip' : 'fail'))?.description;
  let checks: Check[] = [];
  const checksAttachment = result.attachments.find((a) => a.name === 'checks');
  if (checksAttachment?.body) {
    try {
      checks = JSON.parse(checksAttachment.body.toString('utf8')) as Check[];
    } catch {
      /* leave empty */
    }
  }
  return {
    id: test.title,
    profile: c?.profile ?? 'unknown',
    rules: c?.rules ?? [],
    must: c?.must ?? '',
    verdict,
    ...(note && (verdict === 'skip' || verdict === 'expected-failure' || verdict === 'unexpected-pass') ? { reason: note } : {}),
    durationMs: result.duration,
    checks,
    ...(result.error?.message ? { error: stripAnsi(result.error.message) } : {}),
    attachments: result.attachments.filter((a) => a.name !== 'checks').map((a) => ({ name: a.name, contentType: a.contentType, ...(a.path ? { path: a.path } : {}), ...(a.body ? { body: a.body } : {}) })),
  };
}

export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;]*m/g, '');
}

export function tally(records: CaseRecord[]) {
  const count = (v: Verdict) => records.filter((r) => r.verdict === v).length;
  const byProfile: Record<string, Record<Verdict | 'total', number>> = {};
  for (const r of records) {
    const p = (byProfile[r.profile] ??= { total: 0, pass: 0, fail: 0, skip: 0, 'expected-failure': 0, 'unexpected-pass': 0 });
    p.total++;
    p[r.verdict]++;
  }
  return { total: records.length, pass: count('pass'), fail: count('fail'), skip: count('skip'), expectedFailure: count('expected-failure'), unexpectedPass: count('unexpected-pass'), byProfile };
}
