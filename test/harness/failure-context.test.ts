// The failure-context reporter of `npm test` (test/support/failure-context.ts): a failed test gets
// one line with the machine's load, memory and busiest processes; passing tests and the suites
// around a failure get none. Runs node's test runner on a small file of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PREFIX } from '../support/failure-context.ts';

const reporter = path.resolve('test/support/failure-context.ts');

test('one line per failed test or failed hook, with load average, memory and the busiest processes; none for passes, the suite around a failed test, or tests its hook cancelled', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'failure-context-'));
  try {
    const file = path.join(dir, 'sample.test.mjs');
    writeFileSync(
      file,
      `import { before, describe, test } from 'node:test';
describe('a suite', () => {
  test('passes', () => {});
  test('fails', () => { throw new Error('boom'); });
});
test('also passes', () => {});
describe('a suite whose hook fails', () => {
  before(() => { throw new Error('no server'); });
  test('cancelled', () => {});
});
`,
    );
    const run = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--test', `--test-reporter=${reporter}`, '--test-reporter-destination=stdout', file],
      // without NODE_TEST_CONTEXT the child is a runner of its own, not a subtest of this one
      { encoding: 'utf8', cwd: process.cwd(), env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    ).catch((e: { stdout: string; code: number }) => e);
    assert.equal((run as { code?: number }).code, 1, 'the run fails');
    const lines = run.stdout.split('\n').filter((l) => l.startsWith(PREFIX));
    assert.equal(lines.length, 2, run.stdout);
    assert.match(lines[1]!, /^machine at failure: \S*sample\.test\.mjs:7 "a suite whose hook fails" after \d+ ms: load average /);
    assert.match(
      lines[0]!,
      /^machine at failure: \S*sample\.test\.mjs:4 "fails" after \d+ ms: load average \d+\.\d\d \d+\.\d\d \d+\.\d\d on \d+ CPUs; memory available \d+\.\d GiB of \d+\.\d GiB; busiest: .+ \(\d+\) [\d.]+% /,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
