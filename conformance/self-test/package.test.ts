// The suite installs and runs as a package: `npm pack` the repository, install the
// tarball in an empty folder from the local npm cache only (`npm ci --offline` with a lockfile
// made of this repository's pinned production tree, so that no test reaches the network), then
// the installed `screenshot-conformance` answers --help and runs a few cases against a reference
// server started here on port 0, from its own copy of the cases, fixtures and goldens.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { startReferenceTarget, type ReferenceTarget } from '../reference/run-against-reference.ts';

const run = promisify(execFile);
const work = mkdtempSync(path.join(os.tmpdir(), 'conformance-package-'));
const project = path.join(work, 'project');
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });
let tarball = '';

/** A lockfile for a project that depends on the tarball alone: the tarball, then this repository's production tree as pinned. */
function lockfileFor(tgz: string): object {
  const repoLock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license: string;
    dependencies: object;
    bin: object;
    engines: object;
  };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  const packages: Record<string, unknown> = {
    '': { name: 'suite-install-test', dependencies: { [pkg.name]: `file:${tgz}` } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: `file:${tgz}`,
      integrity,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [k, v] of Object.entries(repoLock.packages)) if (k.startsWith('node_modules/') && !v.dev) packages[k] = v;
  return { name: 'suite-install-test', lockfileVersion: 3, requires: true, packages };
}

before(async () => {
  const { stdout } = await npm(['pack', '--json', '--pack-destination', work], REPO_ROOT);
  tarball = path.join(work, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'suite-install-test', private: true, dependencies: { 'screenshot-service': `file:${tarball}` } }),
  );
  writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(lockfileFor(tarball)));
  await npm(['ci', '--offline'], project);
});

after(() => rmSync(work, { recursive: true, force: true }));

const cli = (args: string[]) =>
  run(path.join(project, 'node_modules', '.bin', 'screenshot-conformance'), args, { cwd: project, maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  );

test("the package ships the suite and what it needs, not the server or the suite's own tests", async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  for (const f of [
    'conformance/cli.js',
    'conformance/runner.ts',
    'conformance/case.schema.json',
    'conformance/RUNNING.md',
    'fixtures/pages/plain.html',
    'fixtures/consent/manifest.json',
    'golden/viewport.default-1280x720.png',
    'conformance/data/reference-request.json',
    'fixtures/consent/manifest.ts',
    'lib/visual-diff/diff.ts',
  ])
    assert.ok(files.includes(f), `${f} is shipped`);
  for (const f of files) assert.ok(!/^(conformance\/(self-test|mutants|tools)\/|test\/|bench\/|server\/|lib\/.*\.test\.ts$)/.test(f), `${f} is not shipped`);
  assert.ok(!existsSync(path.join(project, 'node_modules', '@playwright')), 'no dev dependency is installed');
});

test('npx screenshot-conformance --help works from the installed package', async () => {
  const r = await run('npx', ['--offline', '--no-install', 'screenshot-conformance', '--help'], { cwd: project });
  assert.match(r.stdout, /^Usage: screenshot-conformance --base-url URL --api-key KEY/);
});

test('the installed suite runs cases against a reference server', async () => {
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
      '^(one-of\\.html-only|one-of\\.url-only|fields\\.malformed\\.format|viewport\\.default-1280x720|mcp-core-tool-listed)$',
      '--report',
      report,
    ]);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const json = JSON.parse(readFileSync(path.join(report, 'report.json'), 'utf8')) as { summary: { pass: number; total: number } };
    assert.deepEqual([json.summary.pass, json.summary.total], [5, 5], r.stdout);
  } finally {
    await target?.close();
  }
});
