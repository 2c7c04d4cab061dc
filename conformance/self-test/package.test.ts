// The suite installs and runs as a package of its own: `npm pack -w screenshot-conformance`,
// installed with --omit=dev in an empty folder (reference/installed.ts), ships the compiled suite
// with its fixtures, goldens and case schema and nothing of the server; its node_modules holds
// none of the server's packages and stays small; the installed command answers --version and runs
// cases against a reference server started here on port 0. (CI's conformance stage runs every
// profile through such an installed command: reference/run-against-reference.ts --installed.)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { SUITE_VERSION } from '../engine/options.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { installedPackages, installSuite, SERVER_ONLY_PACKAGES, treeBytes, type InstalledSuite } from '../reference/installed.ts';
import { startReferenceTarget, type ReferenceTarget } from '../reference/run-against-reference.ts';

const run = promisify(execFile);
const work = mkdtempSync(path.join(os.tmpdir(), 'conformance-package-'));
let suite: InstalledSuite;

before(async () => {
  suite = await installSuite(work);
});

after(() => rmSync(work, { recursive: true, force: true }));

const cli = (args: string[]) =>
  run(suite.bin, args, { cwd: suite.dir, maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  );

test('the tarball ships the compiled suite and the data it reads, not its sources, its own tests or the server', async () => {
  const { stdout } = await run('tar', ['-tzf', suite.tarball]);
  const files = stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  for (const f of [
    'package.json',
    'RUNNING.md',
    'dist/conformance/cli/bin.js',
    'dist/conformance/engine/runner.js',
    'dist/conformance/engine/runner.d.ts',
    'dist/conformance/model/case.schema.json',
    'dist/conformance/data/reference-request.json',
    'dist/lib/visual-diff/diff.js',
    'dist/fixtures/pages/plain.html',
    'dist/fixtures/consent/manifest.json',
    'dist/fixtures/consent/origin2/index.html',
    'dist/golden/viewport.default-1280x720.png',
  ])
    assert.ok(files.includes(f), `${f} is shipped`);
  for (const f of files) {
    assert.ok(!/\.ts$/.test(f) || /\.d\.ts$/.test(f), `${f}: no TypeScript source is shipped (the package runs compiled)`);
    assert.ok(!/^dist\/(server|test|bench|scripts)\/|^dist\/conformance\/(self-test|mutants|tools|reference)\//.test(f), `${f} is not shipped`);
  }
});

test("the installed node_modules holds none of the server's packages, and weighs under 40 MB", () => {
  const nm = path.join(suite.dir, 'node_modules');
  const names = installedPackages(nm);
  for (const p of SERVER_ONLY_PACKAGES) assert.ok(!names.includes(p), `${p} is not installed`);
  assert.ok(!names.includes('tsx') && !names.includes('typescript'), 'no TypeScript runner or compiler is installed');
  const mb = treeBytes(nm) / 1e6;
  assert.ok(mb < 40, `node_modules is ${mb.toFixed(1)} MB`);
});

test('a dependency the suite shares with the server is pinned to the same version in both (one copy in the lockfile and the image)', () => {
  const read = (f: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, f), 'utf8')) as { dependencies: Record<string, string> };
  const suite = read('conformance/package.json').dependencies;
  const server = read('package.json').dependencies;
  const differ = Object.keys(suite).filter((name) => server[name] !== undefined && server[name] !== suite[name]);
  assert.deepEqual(
    differ.map((name) => `${name}: suite ${suite[name]}, server ${server[name]}`),
    [],
  );
});

test('the package and the suite agree on the version, which --version prints', async () => {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'conformance', 'package.json'), 'utf8')) as { version: string };
  assert.equal(pkg.version, SUITE_VERSION);
  const r = await cli(['--version']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), SUITE_VERSION);
  const help = await run('npx', ['--offline', '--no-install', 'screenshot-conformance', '--help'], { cwd: suite.dir });
  assert.match(help.stdout, /^Usage: screenshot-conformance --base-url URL --api-key KEY/);
});

test('the installed suite runs cases against a reference server (REST, MCP, a golden, a WebP and a JPEG decoded)', async () => {
  let target: ReferenceTarget | undefined;
  const report = path.join(work, 'report');
  try {
    target = await startReferenceTarget({ keys: 2 });
    const r = await cli([
      '--base-url',
      target.baseUrl,
      '--api-key',
      target.apiKeys.join(','),
      '--mcp-url',
      target.mcpUrl ?? '',
      '--fixtures-url',
      target.fixtureOrigins.join(','),
      '--grep',
      '^(one-of\\.html-only|one-of\\.url-only|fields\\.malformed\\.format|viewport\\.default-1280x720|format\\.(webp|jpeg)|mcp-core-tool-listed)$',
      '--report',
      report,
    ]);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const json = JSON.parse(readFileSync(path.join(report, 'report.json'), 'utf8')) as { summary: { pass: number; total: number } };
    assert.deepEqual([json.summary.pass, json.summary.total], [7, 7], r.stdout);
  } finally {
    await target?.close();
  }
});
