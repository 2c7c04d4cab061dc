#!/usr/bin/env -S node --import tsx
// screenshot-conformance: runs the conformance suite against any implementation of the spec.
//   npm run conformance -- --base-url URL --api-key KEY [--profile core|reference|security] ...
// Exit status 0 only when every case passes or is an expected failure. See RUNNING.md.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allCases, selectCases } from './cases/index.ts';
import { formatCoverage, uncovered } from './coverage.ts';
import { loadExpectations } from './expectations.ts';
import { mcpItems, selectMcpItems } from './mcp-suite.ts';
import { startFixtureServer, type FixtureServer } from './fixture-server.ts';
import { OPTIONS_ENV, parseArgs, USAGE, UsageError, type SuiteOptions } from './options.ts';
import { targetInfo } from './target-info.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Runs Playwright's test runner on the suite with these options; resolves to its exit code. */
export function runPlaywright(options: SuiteOptions, extraEnv: NodeJS.ProcessEnv = {}): Promise<number> {
  const cli = require.resolve('@playwright/test/cli');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'test', '-c', path.join(here, 'playwright.config.ts')], {
      stdio: 'inherit',
      env: { ...process.env, ...extraEnv, [OPTIONS_ENV]: JSON.stringify(options), FORCE_COLOR: process.env.FORCE_COLOR ?? '0' },
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`screenshot-conformance: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  }
  const { options, flags } = parsed;
  if (flags.help) {
    console.log(USAGE);
    return 0;
  }
  const cases = allCases();
  if (flags.coverage) {
    const items = [...cases, ...mcpItems()];
    console.log(formatCoverage(items));
    const missing = uncovered(items);
    if (missing.length) console.error(`\nrules without a case: ${missing.map((r) => r.id).join(', ')}`);
    return missing.length ? 1 : 0;
  }
  if (flags.list) {
    const mcp = selectMcpItems(options.profiles).map(({ check: _c, ...item }) => ({ ...item, kind: 'mcp-check (conformance/mcp/checks.ts)' }));
    console.log(JSON.stringify([...selectCases(options.profiles, cases), ...mcp], null, 2));
    return 0;
  }
  try {
    loadExpectations(options.expectations, new Set([...cases, ...mcpItems()].map((c) => c.id))); // fail early on a bad file
  } catch (e) {
    console.error(`screenshot-conformance: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }

  let fixtures: FixtureServer | undefined;
  if (flags.fixturesPorts) {
    const [a, b] = flags.fixturesPorts;
    const ports = [a!, b ?? (a === 0 ? 0 : a! + 1)];
    fixtures = await startFixtureServer({ host: flags.fixturesHost, ports });
    if (options.fixtureOrigins.length === 0) options.fixtureOrigins = fixtures.origins;
    console.log(`screenshot-conformance: fixtures served at ${fixtures.origins.join(' and ')}`);
  }
  if (flags.serveFixtures) {
    if (!fixtures) fixtures = await startFixtureServer({ host: flags.fixturesHost });
    console.log(`serving fixtures at ${fixtures.origins.join(' and ')}; Ctrl-C to stop`);
    await new Promise<void>((r) => process.once('SIGINT', () => r()));
    await fixtures.close();
    return 0;
  }
  try {
    options.target = await targetInfo(options.baseUrl, options.apiKeys[0]!);
    return await runPlaywright(options);
  } finally {
    await fixtures?.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
