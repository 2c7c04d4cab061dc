// Console summary: one line per case as it finishes, then counts per profile and the failures
// with their failing checks.
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { tally, toRecord, type CaseRecord } from './collect.ts';
import { readOptionsFromEnv } from '../options.ts';

const MARK = { pass: '✓', fail: '✗', skip: '-', 'expected-failure': '~', 'unexpected-pass': '!' } as const;

export default class SummaryReporter implements Reporter {
  private records: CaseRecord[] = [];
  private total = 0;

  onBegin(_config: FullConfig, suite: Suite) {
    this.total = suite.allTests().length;
    const o = readOptionsFromEnv();
    console.log(`screenshot-conformance: ${this.total} cases against ${o.baseUrl} (profiles ${o.profiles.join(',')}; fixtures ${o.fixtureOrigins.join(', ') || 'none'})`);
  }

  onTestEnd(test: TestCase, result: TestResult) {
    const r = toRecord(test, result);
    this.records.push(r);
    const extra = r.verdict === 'skip' || r.verdict === 'expected-failure' ? `  (${r.reason ?? ''})` : '';
    console.log(`  ${MARK[r.verdict]} ${r.id} ${Math.round(r.durationMs)}ms${extra}`);
    if (r.verdict === 'unexpected-pass') {
      console.log(`      ! passed, but the expectations file lists it as a known failure (${r.reason ?? ''}): remove the entry`);
    } else if (r.verdict === 'fail') {
      const failed = r.checks.filter((k) => !k.pass);
      const lines = failed.length ? failed.map((k) => `      ✗ ${k.name}: ${k.detail}`) : [`      ${(r.error ?? '').split('\n').slice(0, 3).join('\n      ')}`];
      console.log(lines.join('\n'));
    }
  }

  onEnd(result: FullResult) {
    const t = tally(this.records);
    const o = readOptionsFromEnv();
    console.log('');
    for (const [p, c] of Object.entries(t.byProfile)) {
      console.log(`  ${p.padEnd(10)} ${c.pass}/${c.total - c.skip} passed, ${c.fail} failed, ${c.skip} skipped, ${c['expected-failure']} expected failures, ${c['unexpected-pass']} unexpected passes`);
    }
    console.log(`  total      ${t.pass} passed, ${t.fail} failed, ${t.skip} skipped, ${t.expectedFailure} expected failures, ${t.unexpectedPass} unexpected passes of ${t.total}`);
    const bad = this.records.filter((r) => r.verdict === 'fail' || r.verdict === 'unexpected-pass');
    if (bad.length) console.log(`  failing: ${bad.map((r) => r.id).join(', ')}`);
    console.log(`  reports: ${o.reportDir}/{report.json,junit.xml,index.html}; status ${result.status}`);
  }

  printsToStdio() {
    return true;
  }
}
