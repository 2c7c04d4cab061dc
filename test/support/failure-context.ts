// A node:test reporter beside the spec reporter (scripts/test.sh): for each failed test, one line
// saying what the machine was doing when the runner learned of the failure (the test files run in
// child processes that report as they go, so this is within moments of it): load average against
// the CPU count, memory available, and the busiest processes (top). A failure on a machine that is
// saturated reads differently from one on an idle machine; the conformance runner records the same
// for its cases. Costs nothing while tests pass; about 0.3 s per failure (at most MAX_REPORTED).
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./test/support/failure-context.ts --test-reporter-destination=stdout ...
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestEvent } from 'node:test/reporters';

/** The prefix scripts/test.sh looks for in the log. */
export const PREFIX = 'machine at failure:';
const MAX_REPORTED = 20;

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

/** MemAvailable (what can be had without swapping) from /proc/meminfo; os.freemem() elsewhere. */
function memoryAvailable(): number {
  try {
    const kb = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    /* not Linux */
  }
  return os.freemem();
}

/**
 * The `n` processes using the most CPU now, "command (pid) cpu% rss": top's second sample (the
 * first counts since each process started), 0.3 s apart; ps's lifetime averages without top.
 */
function busiest(n: number): string {
  const cut = (cmd: string) => (cmd.length > 70 ? `${cmd.slice(0, 69)}…` : cmd);
  try {
    const out = execFileSync('top', ['-b', '-n', '2', '-d', '0.3', '-c', '-w', '512', '-o', '%CPU'], {
      encoding: 'utf8',
      timeout: 3000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const rows = out
      .split(/^\s*PID .*$/m)
      .at(-1)!
      .trim()
      .split('\n');
    return rows
      .slice(0, n)
      .map((l) => {
        const f = l.trim().split(/\s+/);
        // PID USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND...
        return `${cut(f.slice(11).join(' '))} (${f[0]}) ${f[8]}% ${/^\d+$/.test(f[5]!) ? `${Math.round(Number(f[5]) / 1024)} MiB` : f[5]}`;
      })
      .join('; ');
  } catch {
    try {
      const out = execFileSync('ps', ['-eo', 'pid=,pcpu=,rss=,args=', '--sort=-pcpu'], {
        encoding: 'utf8',
        timeout: 2000,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      return out
        .trim()
        .split('\n')
        .slice(0, n)
        .map((l) => {
          const [pid, cpu, rss, ...args] = l.trim().split(/\s+/);
          return `${cut(args.join(' '))} (${pid}) ${cpu}% ${Math.round(Number(rss) / 1024)} MiB`;
        })
        .join('; ');
    } catch {
      return 'neither top nor ps available';
    }
  }
}

/** One line: the machine's state now. */
export function machineNow(): string {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `load average ${load} on ${os.availableParallelism()} CPUs; memory available ${gib(memoryAvailable())} of ${gib(os.totalmem())}; busiest: ${busiest(5)}`;
}

export default async function* failureContext(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  let reported = 0;
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { data } = event;
    // a suite that failed because a test in it did, or a test cancelled because its suite's hook
    // failed, is not a failure of its own (the failed test or the suite's hook has the line)
    const kind = (data.details.error as { failureType?: string }).failureType;
    if (kind === 'subtestsFailed' || kind === 'cancelledByParent') continue;
    if (reported++ >= MAX_REPORTED) continue;
    const where = data.file ? `${path.relative(process.cwd(), data.file)}${data.line ? `:${data.line}` : ''}` : '?';
    yield `${PREFIX} ${where} "${data.name}" after ${Math.round(data.details.duration_ms)} ms: ${machineNow()}\n`;
  }
}
