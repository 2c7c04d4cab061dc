// The console: on a terminal one progress line (cases done / total, failures, ETA) with failures
// printed above it as they happen; otherwise (CI logs, pipes) one line per case. At the end the
// counts per profile and per spec section, the failing checks, and how long the run took at
// which concurrency. scripts/test.sh reads the "total" line.
import type { SuiteOptions } from '../engine/options.ts';
import { cpus, describeTiming, duration, machineLoad, tally, type CaseRecord, type Counts } from './records.ts';

const MARK = { pass: '✓', fail: '✗', skip: '-', 'expected-failure': '~', 'unexpected-pass': '!' } as const;

function failureLines(r: CaseRecord): string[] {
  if (r.verdict === 'unexpected-pass') return [`      ! passed, but the expectations file lists it as a known failure (${r.reason ?? ''}): remove the entry`];
  if (r.verdict !== 'fail') return [];
  return [...r.checks.filter((k) => !k.pass).map((k) => `      ✗ ${k.name}: ${k.detail}`), ...(r.timing ? [`      · ${describeTiming(r.timing)}`] : [])];
}

const counts = (c: Counts) =>
  `${c.pass}/${c.total - c.skip} passed, ${c.fail} failed, ${c.skip} skipped, ${c['expected-failure']} expected failures, ${c['unexpected-pass']} unexpected passes`;

export class Console {
  private done = 0;
  private failed = 0;
  private readonly t0 = performance.now();
  private readonly tty: boolean;

  constructor(
    private readonly o: SuiteOptions,
    private readonly total: number,
    private readonly quiet: boolean,
  ) {
    this.tty = !quiet && process.stdout.isTTY === true;
    if (!quiet)
      console.log(
        `screenshot-conformance: ${total} cases against ${o.baseUrl} (profiles ${o.profiles.join(',')}; ${o.workers} at a time; fixtures ${o.fixtureOrigins.join(', ') || 'none'})`,
      );
  }

  caseDone(r: CaseRecord): void {
    this.done++;
    if (r.verdict === 'fail' || r.verdict === 'unexpected-pass') this.failed++;
    if (this.quiet) return;
    const line = `  ${MARK[r.verdict]} ${r.case.id} ${Math.round(r.durationMs)}ms${r.reason && r.verdict !== 'unexpected-pass' ? `  (${r.reason})` : ''}`;
    if (!this.tty) {
      console.log([line, ...failureLines(r)].join('\n'));
      return;
    }
    if (r.verdict === 'fail' || r.verdict === 'unexpected-pass') process.stdout.write(`\r\x1b[K${[line, ...failureLines(r)].join('\n')}\n`);
    process.stdout.write(`\r\x1b[K${this.progress()}`);
  }

  private progress(): string {
    const elapsed = performance.now() - this.t0;
    const eta = this.done ? (elapsed / this.done) * (this.total - this.done) : NaN;
    return `  [${this.done}/${this.total}] ${Math.round((100 * this.done) / Math.max(1, this.total))}%, ${this.failed} failed, ${duration(elapsed)} elapsed${Number.isFinite(eta) ? `, about ${duration(eta)} left` : ''}`;
  }

  summary(records: CaseRecord[], durationMs: number, note?: string): void {
    if (this.quiet) return;
    if (this.tty) process.stdout.write('\r\x1b[K');
    const t = tally(records);
    const w = Math.max(10, ...Object.keys(t.bySection).map((s) => s.length));
    console.log('\n  by spec section:');
    for (const [s, c] of Object.entries(t.bySection)) console.log(`    ${s.padEnd(w)} ${counts(c)}`);
    console.log('  by profile:');
    for (const [p, c] of Object.entries(t.byProfile)) console.log(`    ${p.padEnd(w)} ${counts(c)}`);
    console.log(
      `  total      ${t.pass} passed, ${t.fail} failed, ${t.skip} skipped, ${t.expectedFailure} expected failures, ${t.unexpectedPass} unexpected passes of ${t.total}`,
    );
    const bad = records.filter((r) => r.verdict === 'fail' || r.verdict === 'unexpected-pass');
    if (bad.length) console.log(`  failing: ${bad.map((r) => r.case.id).join(', ')}`);
    if (note) console.log(`  ${note}`);
    const load = machineLoad();
    console.log(
      `  ran ${records.length} cases in ${duration(durationMs)} with ${this.o.workers} at a time (load average at the end ${load.loadAverage.join(' ')} on ${cpus(load.cpus)}); reports: ${this.o.reportDir}/{report.json,junit.xml,index.html}`,
    );
  }
}
