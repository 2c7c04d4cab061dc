// The MCP cases of the conformance suite (conformance/cases/mcp.ts, run by the suite's one runner)
// against the reference server: every case, core and reference, must pass; none may be skipped
// when the fixture server and a key of its own are given. Also: without them, the cases that need
// them skip, and a wrong endpoint fails the cases instead of throwing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startFixtureServer, type FixtureServer } from '../../conformance/fixture-pages/fixture-server.ts';
import { REPO_ROOT } from '../../conformance/fixture-pages/fixtures.ts';
import type { SuiteOptions } from '../../conformance/engine/options.ts';
import type { CaseRecord } from '../../conformance/report/records.ts';
import { runSuite } from '../../conformance/engine/runner.ts';
import { OTHER_KEY as MCP_FRESH_KEY, startTestServer, TEST_KEY as MCP_KEY, type TestServer } from '../support/server.ts';
import { MCP_SERVER_ENV, mcpUrl } from './helpers.ts';

let fixtures: FixtureServer;
let ts: TestServer;
const reportDir = mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));

before(async () => {
  fixtures = await startFixtureServer({ ports: [0] });
  ts = await startTestServer(MCP_SERVER_ENV, { hostPort: new URL(fixtures.origins[0]!).host });
});

after(async () => {
  await ts?.close();
  await fixtures?.close();
  rmSync(reportDir, { recursive: true, force: true });
});

const options = (over: Partial<SuiteOptions>): SuiteOptions => ({
  baseUrl: ts.url,
  apiKeys: [MCP_KEY],
  mcpUrl: mcpUrl(ts),
  profiles: ['reference'],
  fixtureOrigins: [],
  canary: false,
  isolatedNetwork: false,
  updateGolden: false,
  goldenDir: path.join(REPO_ROOT, 'golden'),
  reportDir,
  workers: 2,
  grep: '^mcp-',
  ...over,
});

const show = (r: CaseRecord) =>
  `${r.case.id}: ${r.verdict}${r.reason ? ` (${r.reason})` : ''}\n${r.checks.map((c) => `  ${c.pass ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`).join('\n')}`;

test('every MCP case passes against the reference server', async () => {
  const result = await runSuite(options({ fixtureOrigins: fixtures.origins, mcpFreshKey: MCP_FRESH_KEY }), { quiet: true });
  assert.ok(result.records.length >= 13, `${result.records.length} MCP cases`);
  for (const r of result.records) assert.equal(r.verdict, 'pass', show(r));
  assert.ok(result.records.some((r) => r.case.profile === 'core') && result.records.some((r) => r.case.profile === 'reference'));
  assert.equal(result.exitCode, 0);
});

test('cases that need the fixture server or a key of their own skip without them, and say why', async () => {
  const result = await runSuite(options({ grep: '^mcp-(core-capture-url|ref-billing|core-tool-listed)$' }), { quiet: true });
  const by = Object.fromEntries(result.records.map((r) => [r.case.id, r]));
  assert.equal(by['mcp-core-capture-url']?.verdict, 'skip');
  assert.match(by['mcp-core-capture-url']?.reason ?? '', /fixture/);
  assert.equal(by['mcp-ref-billing']?.verdict, 'skip');
  assert.equal(by['mcp-core-tool-listed']?.verdict, 'pass', show(by['mcp-core-tool-listed']!));
});

test('a wrong endpoint fails the cases instead of throwing', async () => {
  const result = await runSuite(options({ mcpUrl: `${ts.url}/not-mcp`, profiles: ['core'] }), { quiet: true });
  assert.equal(result.records.find((r) => r.case.id === 'mcp-core-tool-listed')?.verdict, 'fail');
  assert.equal(result.exitCode, 1);
});
