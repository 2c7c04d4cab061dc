// A node:test reporter beside the spec reporter (scripts/test.sh): at the end, the test files that
// took longest, by the sum of their top-level tests' durations (module loading and file-level hooks
// are not in it). The unit stage has a time cap and CI a time target: this says where to cut.
import path from 'node:path';
import type { TestEvent } from 'node:test/reporters';

const SHOWN = 15;

export default async function* fileTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const byFile = new Map<string, number>();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.nesting !== 0 || !data.file) continue;
    const file = path.relative(process.cwd(), data.file);
    byFile.set(file, (byFile.get(file) ?? 0) + data.details.duration_ms);
  }
  const total = [...byFile.values()].reduce((a, b) => a + b, 0);
  const rows = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  yield `slowest test files (of ${byFile.size}, ${Math.round(total / 1000)} s of tests in all):\n`;
  for (const [file, ms] of rows) yield `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}\n`;
}
