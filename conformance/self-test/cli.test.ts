// The command line: usage errors, --coverage and --list (no implementation needed).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { parseArgs, SUITE_VERSION, UsageError } from '../cli/options.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';

const bin = path.join(REPO_ROOT, 'conformance', 'cli', 'bin.ts');
const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', bin, ...args], { encoding: 'utf8', cwd: REPO_ROOT });

test('options: profiles, keys, fixtures, canary default', () => {
  const { options, flags } = parseArgs([
    '--base-url',
    'http://127.0.0.1:3000',
    '--api-key',
    'a,b',
    '--api-key=c',
    '--profile',
    'reference,security',
    '--fixtures-port',
    '4100',
  ]);
  assert.deepEqual(options.apiKeys, ['a', 'b', 'c']);
  assert.deepEqual(options.profiles, ['reference', 'security']);
  assert.deepEqual(flags.fixturesPorts, [4100]);
  assert.equal(options.canary, true);
  assert.equal(parseArgs(['--base-url', 'https://api.example.com', '--api-key', 'k']).options.canary, false);
  assert.throws(() => parseArgs(['--base-url', 'http://x', '--api-key', 'k', '--profile', 'gold']), UsageError);
  assert.throws(() => parseArgs(['--api-key', 'k']), /--base-url is required/);
});

test('options: one parser names the flag at fault; --x=v and --x v alike; --no-canary; --version needs no target', () => {
  assert.throws(() => parseArgs(['--base-url', 'http://x', '--api-key', 'k', '--colour']), /Unknown option '--colour'/);
  assert.throws(() => parseArgs(['--base-url', 'http://x', '--api-key', 'k', '--grep']), /--grep/);
  assert.throws(() => parseArgs(['--base-url', 'http://x', '--api-key', 'k', '--grep', '--list']), /--grep/);
  assert.throws(() => parseArgs(['--base-url', 'http://x', '--api-key', 'k', 'stray']), UsageError);
  assert.throws(() => parseArgs(['--base-url', 'nope', '--api-key', 'k']), /--base-url is not a URL/);
  const { options } = parseArgs(['--base-url=http://127.0.0.1:1', '--api-key', 'k', '--no-canary', '--workers=20', '--fixtures-url', 'http://a:1/,http://b:2']);
  assert.equal(options.canary, false);
  assert.equal(options.workers, 8);
  assert.deepEqual(options.fixtureOrigins, ['http://a:1', 'http://b:2']);
  assert.equal(parseArgs(['--version']).flags.version, true);
  const r = run('--version');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), SUITE_VERSION);
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

test('--list resolves directives: fixture pages by name and size, fixture URLs on the given origins', () => {
  const r = run(
    '--list',
    '--grep',
    '^(viewport\\.share-card-1200x630|one-of\\.url-only|sec\\.spelling\\.hex)$',
    '--profile',
    'reference,security',
    '--fixtures-url',
    'http://fx.test:4100',
  );
  assert.equal(r.status, 0, r.stderr);
  const list = JSON.parse(r.stdout) as Array<{ id: string; request: { body: { html?: string; url?: string } } }>;
  assert.deepEqual(list.map((c) => c.id).sort(), ['one-of.url-only', 'sec.spelling.hex', 'viewport.share-card-1200x630']);
  assert.doesNotMatch(r.stdout, /"\$[a-zA-Z]+"\s*:/, 'no directive is left');
  const by = Object.fromEntries(list.map((c) => [c.id, c.request.body]));
  assert.match(by['viewport.share-card-1200x630']!.html!, /^<fixtures\/pages\/share-card\.html: [\d,]+ bytes/);
  assert.match(by['one-of.url-only']!.url!, /^http:\/\/fx\.test:4100\/pages\/plain\.html\?run=<nonce>$/);
  assert.match(by['sec.spelling.hex']!.url!, /^http:\/\/0x7f000001:<canary-port>\//);
});
