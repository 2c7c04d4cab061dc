// What the command line does once its flags are parsed (bin.ts): list, export, coverage, serve the
// fixtures, or run the suite. Loaded only then, so that --help and --version answer at once.
import path from 'node:path';
import { allCases } from '../cases/index.ts';
import { formatCoverage, uncovered } from '../report/coverage.ts';
import { loadExpectations } from '../engine/expectations.ts';
import { exportCases, loadExport } from '../model/export.ts';
import { startFixtureServer, type FixtureServer } from '../fixture-pages/fixture-server.ts';
import { requestsOf, type Case } from '../model/model.ts';
import type { CliFlags, SuiteOptions } from './options.ts';
import { complete, formatPairwise, pairwiseCoverage } from '../pairwise/coverage.ts';
import { resolveValue, type ResolveContext } from '../engine/resolve.ts';
import { casesOf, runSuite } from '../engine/runner.ts';
import { targetInfo } from '../engine/target-info.ts';
import { propertiesExplorer } from '../properties/index.ts';

/** A case as --list shows it: its requests with directives resolved (generated text described, placeholders where nothing runs). */
export function listed(c: Case, o: SuiteOptions): unknown {
  const ctx: ResolveContext = {
    baseUrl: o.baseUrl || '<base-url>',
    mcpUrl: o.mcpUrl,
    apiKey: '<api-key>',
    fixtureOrigins: o.fixtureOrigins,
    nonce: '<nonce>',
    describe: true,
  };
  const resolved = resolveValue(c, ctx) as Case;
  return { ...resolved, requests: requestsOf(c).length };
}

/** Writes a big JSON document to stdout and waits until it is flushed (process.exit would cut a pipe short). */
function print(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(`${text}\n`, () => resolve()));
}

export async function command(options: SuiteOptions, flags: CliFlags): Promise<number> {
  let cases: Case[];
  try {
    cases = options.casesDir ? loadExport(options.casesDir) : allCases();
    if (options.casesDir) options.goldenDir = path.join(options.casesDir, 'golden');
    loadExpectations(options.expectations, new Set(cases.map((c) => c.id))); // fail early on a bad file
  } catch (e) {
    console.error(`screenshot-conformance: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  if (flags.coverage) {
    console.log(formatCoverage(cases));
    const pairs = pairwiseCoverage(cases);
    console.log(`\n${formatPairwise(pairs)}`);
    const missing = uncovered(cases);
    if (missing.length) console.error(`\nrules without a case: ${missing.map((r) => r.id).join(', ')}`);
    const short = pairs.filter((r) => !complete(r));
    if (short.length) console.error(`\npairs not covered in: ${short.map((r) => r.plan.profile).join(', ')}`);
    return missing.length || short.length ? 1 : 0;
  }
  if (flags.list) {
    await print(
      JSON.stringify(
        casesOf(options, cases).map((c) => listed(c, options)),
        null,
        2,
      ),
    );
    return 0;
  }
  if (flags.exportDir) {
    const n = exportCases(flags.exportDir, cases, options.goldenDir);
    console.log(`screenshot-conformance: wrote ${n.cases} cases, their JSON Schema, the fixtures and the goldens to ${flags.exportDir}`);
    return 0;
  }

  let fixtures: FixtureServer | undefined;
  if (flags.fixturesPorts) {
    const [a, b] = flags.fixturesPorts;
    fixtures = await startFixtureServer({ host: flags.fixturesHost, ports: [a!, b ?? (a === 0 ? 0 : a! + 1)] });
    if (options.fixtureOrigins.length === 0) options.fixtureOrigins = fixtures.origins;
    console.log(`screenshot-conformance: fixtures served at ${fixtures.origins.join(' and ')}`);
  }
  if (flags.serveFixtures) {
    fixtures ??= await startFixtureServer({ host: flags.fixturesHost });
    console.log(`serving fixtures at ${fixtures.origins.join(' and ')}; Ctrl-C to stop`);
    await new Promise<void>((r) => process.once('SIGINT', () => r()));
    await fixtures.close();
    return 0;
  }
  try {
    options.target = await targetInfo(options.baseUrl, options.apiKeys[0]!);
    return (await runSuite(options, { ...(options.casesDir ? { cases } : {}), explorer: propertiesExplorer(options) })).exitCode;
  } finally {
    await fixtures?.close();
  }
}
