// Wires the MCP section (conformance/mcp/checks.ts, spec §4.2) into the suite: its checks become
// suite items with the same needs, profiles, coverage and reports as the data cases. Unlike the
// data cases, an MCP check is a small function (it drives an MCP client session).
import { keyFor, type CaseOutcome, type RunEnv } from './execute.ts';
import { MCP_CHECKS, McpContext, Skip, type McpCheck } from './mcp/checks.ts';
import type { Need, Profile } from './model.ts';

/** What coverage and the reports need to know about anything the suite runs. */
export interface SuiteItem {
  id: string;
  must: string;
  rules: string[];
  profile: Profile;
  needs?: Need[];
  heavy?: boolean;
}

function needsOf(c: McpCheck): Need[] {
  return ['mcp', ...(c.needs ?? []).map((n): Need => (n === 'freshKey' ? 'mcpFreshKey' : 'fixtures'))];
}

export function mcpItems(): Array<SuiteItem & { check: McpCheck }> {
  return MCP_CHECKS.map((c) => ({ id: c.id, must: c.must, rules: c.rules, profile: c.profile, needs: needsOf(c), ...(c.heavy ? { heavy: true } : {}), check: c }));
}

export function selectMcpItems(profiles: Profile[]) {
  const want = new Set<Profile>(profiles);
  if (want.has('reference')) want.add('core');
  return mcpItems().filter((c) => want.has(c.profile));
}

export type McpOutcome = CaseOutcome & { skipped?: string };

export async function runMcpCheck(c: McpCheck, env: RunEnv): Promise<McpOutcome> {
  const t = new McpContext({ mcpUrl: env.mcpUrl!, apiKey: keyFor(c.id, env.apiKeys), fixturesUrl: env.fixtureOrigins[0], freshKey: env.mcpFreshKey });
  try {
    const checks = await c.run(t);
    return { pass: checks.length > 0 && checks.every((k) => k.pass), checks, attachments: [] };
  } catch (e) {
    if (e instanceof Skip) return { pass: true, checks: [], attachments: [], skipped: e.message };
    return { pass: false, checks: [{ name: 'exchange', pass: false, detail: `failed: ${e instanceof Error ? e.message : String(e)}` }], attachments: [] };
  } finally {
    await t.close();
  }
}
