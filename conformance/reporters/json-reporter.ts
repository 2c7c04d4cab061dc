// JSON report (report.json): run info (suite version, target, pixelmatch version and options,
// Chromium version where the target reports it), the tally, per-rule coverage of this run and
// every case with its checks.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { PIXELMATCH_OPTIONS, PIXELMATCH_VERSION } from '../compare.ts';
import { readOptionsFromEnv, SUITE_VERSION } from '../options.ts';
import { RULES } from '../rules.ts';
import { tally, toRecord, type CaseRecord } from './collect.ts';

export default class JsonReporter implements Reporter {
  private records: CaseRecord[] = [];
  private started = new Date();

  onTestEnd(test: TestCase, result: TestResult) {
    this.records.push(toRecord(test, result));
  }

  onEnd(result: FullResult) {
    const o = readOptionsFromEnv();
    const coverage = RULES.map((r) => {
      const cases = this.records.filter((c) => c.rules.includes(r.id));
      return { rule: r.id, source: r.source, cases: cases.map((c) => ({ id: c.id, verdict: c.verdict })), ran: cases.filter((c) => c.verdict !== 'skip').length, failed: cases.filter((c) => c.verdict === 'fail').length };
    });
    const report = {
      runInfo: {
        suiteVersion: SUITE_VERSION,
        target: o.baseUrl,
        profiles: o.profiles,
        chromium: o.target?.chromium ?? null,
        targetInfo: o.target?.info ?? null,
        pixelmatch: { version: PIXELMATCH_VERSION, options: PIXELMATCH_OPTIONS, thresholdPerCase: true },
        fixtureOrigins: o.fixtureOrigins,
        canary: o.canary,
        isolatedNetwork: o.isolatedNetwork,
        expectations: o.expectations ?? null,
        updateGolden: o.updateGolden,
        node: process.version,
        startedAt: this.started.toISOString(),
        durationMs: result.duration,
        status: result.status,
      },
      summary: tally(this.records),
      coverage,
      results: this.records.map(({ attachments, ...r }) => ({ ...r, attachments: attachments.map((a) => a.name) })),
    };
    mkdirSync(o.reportDir, { recursive: true });
    writeFileSync(path.join(o.reportDir, 'report.json'), JSON.stringify(report, null, 2));
  }

  printsToStdio() {
    return false;
  }
}
