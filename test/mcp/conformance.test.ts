// The MCP section of the conformance suite (conformance/mcp/checks.ts) against the reference
// server: every check, core and reference, must pass; none may be skipped when the fixture
// server and a key of its own are given. Also: without them, the checks that need them skip.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixtureServer, type FixtureServer } from '../../conformance/fixture-server.ts';
import { MCP_CHECKS, runMcpChecks, type McpVerdict } from '../../conformance/mcp/checks.ts';
import { OTHER_KEY, startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';
import { MCP_SERVER_ENV, mcpUrl } from './helpers.ts';

let fixtures: FixtureServer;
let ts: TestServer;

before(async () => {
  fixtures = await startFixtureServer({ ports: [0] });
  ts = await startTestServer(MCP_SERVER_ENV, { hostPort: new URL(fixtures.origins[0]!).host });
});

after(async () => {
  await ts?.close();
  await fixtures?.close();
});

const show = (v: McpVerdict) => `${v.id}: ${v.status}${v.reason ? ` (${v.reason})` : ''}\n${v.checks.map((c) => `  ${c.pass ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`).join('\n')}`;

test('every MCP check passes against the reference server', async () => {
  const verdicts = await runMcpChecks({ mcpUrl: mcpUrl(ts), apiKey: TEST_KEY, fixturesUrl: fixtures.origins[0], freshKey: OTHER_KEY });
  assert.equal(verdicts.length, MCP_CHECKS.length);
  for (const v of verdicts) assert.equal(v.status, 'pass', show(v));
  assert.ok(verdicts.some((v) => v.profile === 'core') && verdicts.some((v) => v.profile === 'reference'));
});

test('checks that need the fixture server or a key of their own skip without them, and say why', async () => {
  const verdicts = await runMcpChecks({ mcpUrl: mcpUrl(ts), apiKey: TEST_KEY }, { ids: ['mcp-core-capture-url', 'mcp-ref-billing', 'mcp-core-tool-listed'] });
  const by = Object.fromEntries(verdicts.map((v) => [v.id, v]));
  assert.equal(by['mcp-core-capture-url']?.status, 'skip');
  assert.match(by['mcp-core-capture-url']?.reason ?? '', /fixture/);
  assert.equal(by['mcp-ref-billing']?.status, 'skip');
  assert.equal(by['mcp-core-tool-listed']?.status, 'pass', show(by['mcp-core-tool-listed']!));
});

test('a wrong endpoint fails the checks instead of throwing', async () => {
  const verdicts = await runMcpChecks({ mcpUrl: `${ts.server.url}/not-mcp`, apiKey: TEST_KEY }, { profiles: ['core'] });
  const listed = verdicts.find((v) => v.id === 'mcp-core-tool-listed');
  assert.equal(listed?.status, 'fail');
});
