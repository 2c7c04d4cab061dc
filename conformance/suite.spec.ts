// The Playwright spec: one test per selected case, each running the generic executor. Cases not
// runnable here (unmet needs) are skipped with the reason; known failures from the expectations
// file are marked expected-to-fail (an unexpected pass fails the run).
import { test } from '@playwright/test';
import { selectCases, allCases } from './cases/index.ts';
import { executeCase, unmetNeed } from './execute.ts';
import { loadExpectations } from './expectations.ts';
import { mcpItems, runMcpCheck, selectMcpItems } from './mcp-suite.ts';
import { undiciClient } from './http.ts';
import { readOptionsFromEnv, runEnvOf } from './options.ts';
import { ruleQuote } from './rules.ts';

const options = readOptionsFromEnv();
const env = runEnvOf(options);
const expectations = loadExpectations(options.expectations, new Set([...allCases(), ...mcpItems()].map((c) => c.id)));
const grep = options.grep ? new RegExp(options.grep) : null;

for (const c of selectCases(options.profiles)) {
  if (grep && !grep.test(c.id)) continue;
  const annotation = [
    { type: 'must', description: c.must },
    ...c.rules.map((r) => ({ type: 'clause', description: `${r}: ${ruleQuote(r)}` })),
  ];
  test(c.id, { tag: [`@${c.profile}`, ...(c.heavy ? ['@heavy'] : [])], annotation }, async ({}, testInfo) => {
    testInfo.setTimeout(c.timeoutMs ?? 60_000);
    const unmet = unmetNeed(c, env);
    test.skip(unmet !== null, unmet ?? '');
    const known = expectations.failures.get(c.id);
    if (known) test.fail(true, `expected failure: ${known.reason}`);
    const outcome = await executeCase(c, env, undiciClient);
    await testInfo.attach('checks', { body: JSON.stringify(outcome.checks, null, 2), contentType: 'application/json' });
    for (const a of outcome.attachments) await testInfo.attach(a.name, { body: a.body, contentType: a.contentType });
    if (!outcome.pass) {
      const failed = outcome.checks.filter((k) => !k.pass);
      throw new Error(`${c.id}: ${c.must}\n${failed.map((k) => `  ✗ ${k.name}: ${k.detail}`).join('\n')}`);
    }
  });
}

// The MCP section (spec §4.2): checks that drive an MCP client session, same needs and reports.
// They run in order in one worker (the billing and cache checks share the MCP fresh key), and a
// failure does not skip the rest.
test.describe('mcp', () => {
  test.describe.configure({ mode: 'default' });
  for (const item of selectMcpItems(options.profiles)) {
    if (grep && !grep.test(item.id)) continue;
    const annotation = [{ type: 'must', description: item.must }, ...item.rules.map((r) => ({ type: 'clause', description: `${r}: ${ruleQuote(r)}` }))];
    test(item.id, { tag: [`@${item.profile}`, '@mcp', ...(item.heavy ? ['@heavy'] : [])], annotation }, async ({}, testInfo) => {
      testInfo.setTimeout(item.heavy ? 120_000 : 60_000);
      const unmet = unmetNeed(item, env);
      test.skip(unmet !== null, unmet ?? '');
      const known = expectations.failures.get(item.id);
      if (known) test.fail(true, `expected failure: ${known.reason}`);
      const outcome = await runMcpCheck(item.check, env);
      test.skip(outcome.skipped !== undefined, outcome.skipped ?? '');
      await testInfo.attach('checks', { body: JSON.stringify(outcome.checks, null, 2), contentType: 'application/json' });
      if (!outcome.pass) {
        throw new Error(`${item.id}: ${item.must}\n${outcome.checks.filter((k) => !k.pass).map((k) => `  ✗ ${k.name}: ${k.detail}`).join('\n')}`);
      }
    });
  }
});
