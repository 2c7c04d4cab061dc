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

/**
 * Checks that are not cases but report as cases, one record each, run after the cases: the
 * `properties` profile (properties/index.ts propertiesExplorer). Whoever starts a run passes it,
 * so that the engine imports nothing of what it runs.
 */
export interface Explorer {
  /** Every id it may report (what an expectations file may list). */
  ids: readonly string[];
  /** How many records this run adds (0: its profile is not selected; only its ids count then). */
  count: number;
  /** One line for the console and the HTML report (the seed that replays the run). */
  note: string;
  /** What report.json's runInfo says about it. */
  runInfo: Record<string, unknown>;
  run(env: RunEnv, http: HttpClient, known: ReadonlySet<string>, done: (r: CaseRecord) => void): Promise<void>;
}

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
export async function runSuite(o: SuiteOptions, opts: { cases?: Case[]; http?: HttpClient; quiet?: boolean; explorer?: Explorer } = {}): Promise<RunResult> {
  const all = opts.cases;
  // An explorer always names its ids (an expectations file may list them); it runs only when it has something to run.
  const explorer = opts.explorer?.count ? opts.explorer : undefined;
  const expectations = loadExpectations(
    o.expectations,
    new Set([...(all ?? selectCases(['reference', 'security'])).map((c) => c.id), ...(opts.explorer?.ids ?? [])]),
  );
  const cases = casesOf(o, all);
  const mcp = o.mcpUrl && cases.some((c) => requestsOf(c).some(isMcpRequest)) ? new McpSessions(o.mcpUrl) : undefined;
  const declaredFields = cases.some((c) => c.fields?.length) || explorer ? await fetchDeclaredFields(o.baseUrl, o.apiKeys[0]) : undefined;
  const env = { ...runEnvOf(o, mcp), ...(declaredFields ? { declaredFields } : {}) };
  const http = opts.http ?? undiciClient;
  const out = new Console(o, cases.length + (explorer?.count ?? 0), opts.quiet ?? false);
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
    if (explorer) {
      if (!opts.quiet) console.log(explorer.note);
      await explorer.run(env, http, new Set(expectations.failures.keys()), (r) => {
        const known = expectations.failures.get(r.case.id)?.reason;
        const verdict: Verdict = known === undefined || r.verdict === 'skip' ? r.verdict : r.verdict === 'pass' ? 'unexpected-pass' : 'expected-failure';
        const rec = { ...r, verdict, ...(known !== undefined && r.verdict !== 'skip' ? { reason: known } : {}) };
        records.push(rec);
        out.caseDone(rec);
      });
    }
  } finally {
    await mcp?.close();
  }
  const durationMs = performance.now() - t0;
  const rank = (r: CaseRecord) => (cases.includes(r.case) ? cases.indexOf(r.case) : cases.length); // an explorer's records last
  records.sort((a, b) => rank(a) - rank(b));
  const t = tally(records);
  const exitCode = t.fail + t.unexpectedPass > 0 ? 1 : 0;
  writeReports(o, records, { durationMs, exitCode, ...(explorer ? { explorer } : {}) });
  out.summary(records, durationMs, explorer?.note);
  return { exitCode, tally: t, records, durationMs };
}
