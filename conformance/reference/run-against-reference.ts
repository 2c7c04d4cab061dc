// Runs the conformance suite against a fresh reference server (what `npm test` calls):
//   node --import tsx conformance/reference/run-against-reference.ts [--profile reference,security,extensions] [--grep RE]
//        [--no-isolate] [--update-golden] [--report DIR] [--workers N] [--twice] [--installed] [--seed N] [--runs N]
// It starts the suite's fixture server (two loopback origins), then the reference server via
// startServer() on port 0 with EGRESS_ALLOW set to exactly those origins, a batch of API keys (the
// suite spreads cases over them so per-key limits and the free allowance are not the suite's own
// doing) and one fresh key for the billing case; runs the suite; exits non-zero on any failure.
// --installed: the suite runs as its users run it: packed, installed with --omit=dev in a temporary
// folder (installed.ts), and started as that install's `screenshot-conformance` command (compiled
// JavaScript, its own dependencies), once per run; without it, the source runs in this process.
// --twice: then runs `core` a second time against the same server, its cache now warm (// hosted APIs cache too), and fails unless every core case has the same verdict both times.
//
// Isolation: unless --no-isolate, the whole run re-executes itself inside a new user+network
// namespace (`unshare -rn`, loopback only), so the security profile's off-machine private
// addresses (169.254.169.254, 10/8, ...) can be sent without any packet leaving the machine even
// if the guard were broken (threat model, "Testing it safely"). Without a namespace those cases
// are skipped.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startServer } from '../../server/start.ts';
import { loadConfig } from '../../server/config.ts';
import { startFixtureServer } from '../fixture-pages/fixture-server.ts';
import type { Profile } from '../model/model.ts';
import { SUITE_VERSION, type SuiteOptions } from '../engine/options.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { runSuite } from '../engine/runner.ts';
import { propertiesExplorer } from '../properties/index.ts';
import type { Tally, Verdict } from '../report/records.ts';
import { installSuite } from './installed.ts';
import { targetInfo } from '../engine/target-info.ts';
import { isolated, runIfEntry } from '../cli/entry.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const INSIDE = 'SCREENSHOT_CONFORMANCE_IN_NAMESPACE';

export interface ReferenceTarget {
  baseUrl: string;
  apiKeys: string[];
  freshKey: string;
  mcpFreshKey: string;
  mcpUrl?: string;
  fixtureOrigins: string[];
  close(): Promise<void>;
}

/** Fixture server + reference server wired together (also used by the mutant runner). */
export async function startReferenceTarget(opts: { keys?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ReferenceTarget> {
  const fixtures = await startFixtureServer();
  const apiKeys = Array.from({ length: opts.keys ?? 40 }, () => `conf-${randomBytes(12).toString('hex')}`);
  const freshKey = `conf-fresh-${randomBytes(12).toString('hex')}`;
  const mcpFreshKey = `conf-mcp-fresh-${randomBytes(12).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-ref-'));
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    API_KEYS: [...apiKeys, freshKey, mcpFreshKey].join(','),
    EGRESS_ALLOW: fixtures.origins.map((o) => new URL(o).host).join(','),
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...opts.env,
  });
  let server;
  try {
    server = await startServer(config);
  } catch (e) {
    await fixtures.close();
    throw e;
  }
  const mcpUrl = `${server.url}/mcp`;
  let mcpAvailable = false;
  try {
    const res = await request(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    await res.body.dump();
    mcpAvailable = res.statusCode !== 404;
  } catch {
    /* not mounted */
  }
  const s = server;
  return {
    baseUrl: s.url,
    apiKeys,
    freshKey,
    mcpFreshKey,
    ...(mcpAvailable ? { mcpUrl } : {}),
    fixtureOrigins: fixtures.origins,
    async close() {
      await s.close();
      await fixtures.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const NO_NAMESPACES = 'run-against-reference: network namespaces unavailable; running without isolation (off-machine address cases are skipped)';

function parse(argv: string[]) {
  const { values: v } = parseArgs({
    args: argv,
    options: {
      profile: { type: 'string', default: 'reference,security,extensions' },
      grep: { type: 'string' },
      'no-isolate': { type: 'boolean', default: false },
      'update-golden': { type: 'boolean', default: false },
      report: { type: 'string', default: path.join(REPO_ROOT, 'conformance-report') },
      workers: { type: 'string', default: '2' },
      twice: { type: 'boolean', default: false },
      installed: { type: 'boolean', default: false },
      seed: { type: 'string' },
      runs: { type: 'string' },
    },
  });
  return {
    profiles: v.profile.split(',') as Profile[],
    grep: v.grep,
    isolate: !v['no-isolate'],
    updateGolden: v['update-golden'],
    report: path.resolve(v.report),
    workers: Number(v.workers),
    twice: v.twice,
    installed: v.installed,
    ...(v.seed !== undefined ? { seed: Number(v.seed) } : {}),
    ...(v.runs !== undefined ? { runs: Number(v.runs) } : {}),
  };
}

interface Outcome {
  exitCode: number;
  tally: Tally;
  records: Array<{ id: string; verdict: Verdict; failed: string[] }>;
}

/** One run of the installed command with these options; its verdicts read back from its report.json. */
async function runInstalled(bin: string, o: SuiteOptions): Promise<Outcome> {
  const args = [
    ...['--base-url', o.baseUrl, '--api-key', o.apiKeys.join(','), '--profile', o.profiles.join(',')],
    ...['--fixtures-url', o.fixtureOrigins.join(','), '--report', o.reportDir, '--workers', String(o.workers)],
    ...(o.freshKey ? ['--fresh-key', o.freshKey] : []),
    ...(o.mcpUrl ? ['--mcp-url', o.mcpUrl] : []),
    ...(o.mcpFreshKey ? ['--mcp-fresh-key', o.mcpFreshKey] : []),
    ...(o.expectations ? ['--expectations', o.expectations] : []),
    ...(o.grep ? ['--grep', o.grep] : []),
    ...(o.seed !== undefined ? ['--seed', String(o.seed)] : []),
    ...(o.runs !== undefined ? ['--runs', String(o.runs)] : []),
    o.canary ? '--canary' : '--no-canary',
    ...(o.isolatedNetwork ? ['--isolated-network'] : []),
  ];
  const child = spawn(bin, args, { stdio: 'inherit' });
  const exitCode = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  const report = JSON.parse(readFileSync(path.join(o.reportDir, 'report.json'), 'utf8')) as {
    summary: Tally;
    results: Array<{ id: string; verdict: Verdict; checks?: Array<{ name: string; pass: boolean; detail?: string }> }>;
  };
  const records = report.results.map((r) => ({
    id: r.id,
    verdict: r.verdict,
    failed: (r.checks ?? []).filter((k) => !k.pass).map((k) => `${k.name}: ${k.detail ?? ''}`),
  }));
  return { exitCode, tally: report.summary, records };
}

/** One run of the suite's source in this process. */
async function runHere(o: SuiteOptions): Promise<Outcome> {
  const r = await runSuite(o, { explorer: propertiesExplorer(o) });
  return {
    exitCode: r.exitCode,
    tally: r.tally,
    records: r.records.map((x) => ({ id: x.case.id, verdict: x.verdict, failed: x.checks.filter((k) => !k.pass).map((k) => `${k.name}: ${k.detail}`) })),
  };
}

async function main(argv: string[]): Promise<number> {
  const o = parse(argv);
  const { inside, exitCode } = isolated(import.meta.url, argv, INSIDE, o.isolate, NO_NAMESPACES);
  if (exitCode !== undefined) return exitCode;
  const target = await startReferenceTarget();
  const cleanups: Array<() => void> = [];
  console.log(
    `run-against-reference: reference server at ${target.baseUrl}, fixtures at ${target.fixtureOrigins.join(' and ')}${inside ? ', inside an isolated network namespace' : ''}${target.mcpUrl ? '' : '; MCP not mounted (its cases are skipped)'}`,
  );
  try {
    const options: SuiteOptions = {
      baseUrl: target.baseUrl,
      apiKeys: target.apiKeys,
      freshKey: target.freshKey,
      mcpUrl: target.mcpUrl,
      mcpFreshKey: target.mcpFreshKey,
      profiles: o.profiles,
      fixtureOrigins: target.fixtureOrigins,
      canary: true,
      isolatedNetwork: inside,
      expectations: path.join(here, '..', 'expectations', 'reference.json'),
      updateGolden: o.updateGolden,
      goldenDir: path.join(REPO_ROOT, 'golden'),
      reportDir: o.report,
      workers: o.workers,
      grep: o.grep,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.runs !== undefined ? { runs: o.runs } : {}),
      target: await (async () => {
        const t = await targetInfo(target.baseUrl, target.apiKeys[0]!);
        return {
          ...t,
          info: { implementation: 'reference server (in-process, conformance/reference/run-against-reference.ts)', suiteVersion: SUITE_VERSION, ...t.info },
        };
      })(),
    };
    let runOnce = runHere;
    if (o.installed) {
      if (o.updateGolden) throw new Error('--update-golden writes the repository golden/: run it without --installed');
      const work = mkdtempSync(path.join(os.tmpdir(), 'conformance-installed-'));
      cleanups.push(() => rmSync(work, { recursive: true, force: true }));
      const suite = await installSuite(work);
      console.log(`run-against-reference: the suite packed and installed (--omit=dev) in ${suite.dir}; running its screenshot-conformance command`);
      runOnce = (x) => runInstalled(suite.bin, x);
    }
    const first = await runOnce(options);
    if (!o.twice) return first.exitCode;
    console.log('\nrun-against-reference: core again, against the same server with its cache warm');
    const second = await runOnce({ ...options, profiles: ['core'], reportDir: path.join(o.report, 'core-second-run') });
    const before = new Map(first.records.map((r) => [r.id, r.verdict]));
    const changed = second.records.filter((r) => before.has(r.id) && before.get(r.id) !== r.verdict);
    for (const r of changed)
      console.log(`  ✗ ${r.id}: ${before.get(r.id)} in the first run, ${r.verdict} in the second${r.failed.map((k) => `\n      ✗ ${k}`).join('')}`);
    console.log(`core twice: ${second.records.length - changed.length}/${second.records.length} core cases have the same verdict in both runs`);
    const t = [first.tally, second.tally];
    const sum = (k: 'pass' | 'fail' | 'skip' | 'expectedFailure' | 'unexpectedPass') => t.reduce((n, x) => n + x[k], 0);
    console.log(
      `  total      ${sum('pass')} passed, ${sum('fail') + changed.length} failed, ${sum('skip')} skipped, ${sum('expectedFailure')} expected failures, ${sum('unexpectedPass')} unexpected passes of both runs`,
    );
    return first.exitCode || second.exitCode || (changed.length ? 1 : 0);
  } finally {
    await target.close();
    for (const c of cleanups) c();
  }
}

runIfEntry(import.meta.url, main);
