// The suite's own runner: runs the selected cases against an implementation, `workers` at a time
// in one process (the cases wait on the network, not on this process), with a time limit per
// case, the expectations file (known failures), and the reports (report/). Small on purpose: it is
// what lets the suite install and run as a package with nothing but its own dependencies.
//
// Programmatic entry (what bin.ts and the self-tests use; a subject engine can too):
//   const result = await runSuite(options);   // options: see options.ts SuiteOptions
//   result.exitCode, result.tally (pass, fail, skip, expectedFailure, unexpectedPass, byProfile)
import { selectCases } from '../cases/index.ts';
import { fetchDeclaredFields } from './declared-fields.ts';
import { executeCase, unmetNeed, type Attachment, type RunEnv } from './execute.ts';
import { loadExpectations } from './expectations.ts';
import { undiciClient, type HttpClient } from './http.ts';
import { McpSessions } from './mcp-client.ts';
import { isMcpRequest, requestsOf, type Case, type Check } from '../model/model.ts';
import type { SuiteOptions } from './options.ts';
import { writeReports } from '../report/files.ts';
import { Console } from '../report/console.ts';
import { machineLoad, tally, type CaseRecord, type Tally, type Verdict } from '../report/records.ts';

export interface RunResult {
  exitCode: number;
  tally: Tally;
  records: CaseRecord[];
  durationMs: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export function runEnvOf(o: SuiteOptions, mcp?: McpSessions): RunEnv {
  return {
    baseUrl: o.baseUrl,
    apiKeys: o.apiKeys,
    freshKey: o.freshKey,
    mcpUrl: o.mcpUrl,
    mcpFreshKey: o.mcpFreshKey,
    fixtureOrigins: o.fixtureOrigins,
    canary: o.canary,
    isolatedNetwork: o.isolatedNetwork,
    goldenDir: o.goldenDir,
    updateGolden: o.updateGolden,
    ...(mcp ? { mcp } : {}),
  };
}

/** The cases of a run: the given ones (an export) or the suite's, by profile, then --grep and --tag. */
export function casesOf(o: Pick<SuiteOptions, 'profiles' | 'grep' | 'tag'>, all?: Case[]): Case[] {
  const grep = o.grep ? new RegExp(o.grep) : null;
  return selectCases(o.profiles, all).filter((c) => (!grep || grep.test(c.id)) && (!o.tag || (c.tags ?? []).includes(o.tag)));
}

/** Cases that use the same fresh key must not overlap: their balances are read across steps. */
function lockOf(c: Case): string | null {
  for (const r of requestsOf(c)) {
    if (r.auth === 'fresh') return 'fresh';
    if (r.auth === 'mcp-fresh') return 'mcp-fresh';
  }
  return null;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

async function runOne(c: Case, env: RunEnv, http: HttpClient, known: string | undefined): Promise<CaseRecord> {
  const base = { case: c, checks: [] as Check[], attachments: [] as Attachment[] };
  const unmet = unmetNeed(c, env);
  if (unmet) return { ...base, verdict: 'skip', reason: unmet, durationMs: 0 };
  const t0 = performance.now();
  const limit = c.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const outcome = await withTimeout(executeCase(c, env, http), limit, c.id).catch((e: Error) => ({
    pass: false,
    checks: [{ name: 'time limit', pass: false, detail: e.message }],
    attachments: [] as Attachment[],
    responseMs: [] as number[],
    skipped: undefined,
  }));
  const durationMs = performance.now() - t0;
  if (outcome.skipped !== undefined) return { ...base, verdict: 'skip', reason: outcome.skipped, durationMs };
  let verdict: Verdict = outcome.pass ? 'pass' : 'fail';
  if (known !== undefined) verdict = outcome.pass ? 'unexpected-pass' : 'expected-failure';
  const timing = verdict === 'fail' ? { timing: { responseMs: outcome.responseMs, ...machineLoad() } } : {};
  return {
    case: c,
    verdict,
    ...(known !== undefined ? { reason: known } : {}),
    durationMs,
    checks: outcome.checks,
    attachments: outcome.attachments,
    ...timing,
  };
}

/**
 * Runs the cases. Long cases start first (they bound the run's length); cases sharing a fresh key
 * run one after the other. Never throws for a failing implementation.
 */
export async function runSuite(o: SuiteOptions, opts: { cases?: Case[]; http?: HttpClient; quiet?: boolean } = {}): Promise<RunResult> {
  const all = opts.cases;
  const expectations = loadExpectations(o.expectations, new Set((all ?? selectCases(['reference', 'security'])).map((c) => c.id)));
  const cases = casesOf(o, all);
  const mcp = o.mcpUrl && cases.some((c) => requestsOf(c).some(isMcpRequest)) ? new McpSessions(o.mcpUrl) : undefined;
  const declaredFields = cases.some((c) => c.fields?.length) ? await fetchDeclaredFields(o.baseUrl, o.apiKeys[0]) : undefined;
  const env = { ...runEnvOf(o, mcp), ...(declaredFields ? { declaredFields } : {}) };
  const http = opts.http ?? undiciClient;
  const out = new Console(o, cases.length, opts.quiet ?? false);
  const order = [...cases].sort((a, b) => Number(!!b.heavy) - Number(!!a.heavy) || (b.timeoutMs ?? 0) - (a.timeoutMs ?? 0));
  const records: CaseRecord[] = [];
  const locks = new Map<string, Promise<void>>();
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < order.length) {
      const c = order[next++]!;
      const lock = lockOf(c);
      const before = (lock && locks.get(lock)) || Promise.resolve();
      let release = () => {};
      const mine = new Promise<void>((r) => (release = r));
      if (lock)
        locks.set(
          lock,
          before.then(() => mine),
        );
      await before;
      const r = await runOne(c, env, http, expectations.failures.get(c.id)?.reason).finally(release);
      records.push(r);
      out.caseDone(r);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.workers, order.length)) }, worker));
  } finally {
    await mcp?.close();
  }
  const durationMs = performance.now() - t0;
  records.sort((a, b) => cases.indexOf(a.case) - cases.indexOf(b.case));
  const t = tally(records);
  const exitCode = t.fail + t.unexpectedPass > 0 ? 1 : 0;
  writeReports(o, records, { durationMs, exitCode });
  out.summary(records, durationMs);
  return { exitCode, tally: t, records, durationMs };
}
