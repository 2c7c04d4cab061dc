// The command line: usage errors, --coverage and --list (no implementation needed).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { parseArgs, UsageError } from '../options.ts';
import { REPO_ROOT } from '../fixtures.ts';

const bin = path.join(REPO_ROOT, 'conformance', 'bin.ts');
const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', bin, ...args], { encoding: 'utf8', cwd: REPO_ROOT });

test('options: profiles, keys, fixtures, canary default', () => {
  const { options, flags } = parseArgs(['--base-url', 'http://127.0.0.1:3000', '--api-key', 'a,b', '--api-key=c', '--profile', 'reference,security', '--fixtures-port', '4100']);
  assert.deepEqual(options.apiKeys, ['a', 'b', 'c']);
  assert.deepEqual(options.profiles, ['reference', 'security']);
  assert.deepEqual(flags.fixturesPorts, [4100]);
  assert.equal(options.canary, true);
  assert.equal(parseArgs(['--base-url', 'https://api.example.com', '--api-key', 'k']).options.canary, false);
  assert.throws(() => parseArgs(['--base-url', 'http://x', '--api-key', 'k', '--profile', 'gold']), UsageError);
  assert.throws(() => parseArgs(['--api-key', 'k']), /--base-url is required/);
});

test('usage errors exit 2', () => {
  const r = run('--base-url', 'http://127.0.0.1:1');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--api-key is required/);
});

test('--coverage prints the matrix and exits 0 when every spec rule has a case', () => {
  const r = run('--coverage');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /4\.1\/rule-8/);
  assert.match(r.stdout, /spec rules: \d+, with a case: \d+/);
});

test('--list prints the selected cases as data', () => {
  const r = run('--list', '--profile', 'security');
  assert.equal(r.status, 0, r.stderr);
  const list = JSON.parse(r.stdout) as Array<{ id: string; profile: string }>;
  assert.ok(list.length > 0 && list.every((c) => c.profile === 'security'));
});
