// The suite's second subject engine, what `npm test` runs:
//   node --import tsx conformance/self-test/subjects/firefox/run-core.ts [--grep RE] [--workers N] [--report DIR] [--no-isolate]
//        [--profile core,properties] [--seed N] [--runs N]
// Starts the suite's fixture server and the Firefox subject (server.ts, port 0, the fixture origins
// allowed), runs the `core` profile against it with this folder's expectations.json, and exits
// non-zero when a case fails unexpectedly or an expected failure passes (the suite's own verdict).
// Like run-against-reference.ts it re-executes itself in `unshare -rn` (loopback only) when it can,
// so that the off-machine metadata address case runs too.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startFixtureServer } from '../../../fixture-pages/fixture-server.ts';
import { REPO_ROOT } from '../../../fixture-pages/fixtures.ts';
import type { SuiteOptions } from '../../../engine/options.ts';
import { runSuite } from '../../../engine/runner.ts';
import type { Profile } from '../../../model/model.ts';
import { propertiesExplorer } from '../../../properties/index.ts';
import { startSubject } from './server.ts';
import { isolated } from '../../../cli/entry.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const INSIDE = 'FIREFOX_SUBJECT_IN_NAMESPACE';

const NO_NAMESPACES = 'run-core: network namespaces unavailable; the metadata-address case is skipped';

function parse(argv: string[]) {
  const { values: v } = parseArgs({
    args: argv,
    options: {
      grep: { type: 'string' },
      workers: { type: 'string', default: '2' },
      report: { type: 'string', default: path.join(REPO_ROOT, 'conformance-report', 'firefox') },
      'no-isolate': { type: 'boolean', default: false },
      profile: { type: 'string', default: 'core' },
      seed: { type: 'string' },
      runs: { type: 'string' },
    },
  });
  return {
    grep: v.grep,
    workers: Number(v.workers),
    report: path.resolve(v.report),
    isolate: !v['no-isolate'],
    profiles: v.profile.split(',') as Profile[],
    ...(v.seed !== undefined ? { seed: Number(v.seed) } : {}),
    ...(v.runs !== undefined ? { runs: Number(v.runs) } : {}),
  };
}

async function main(argv: string[]): Promise<number> {
  const o = parse(argv);
  const { inside, exitCode } = isolated(import.meta.url, argv, INSIDE, o.isolate, NO_NAMESPACES);
  if (exitCode !== undefined) return exitCode;
  const started = Date.now();
  const fixtures = await startFixtureServer();
  const keys = Array.from({ length: 20 }, () => `ff-${randomBytes(8).toString('hex')}`);
  const subject = await startSubject({ keys, allow: fixtures.origins.map((u) => new URL(u).host), concurrency: o.workers });
  console.log(
    `firefox subject: ${subject.browserVersion} at ${subject.url} (started in ${Date.now() - started} ms), fixtures at ${fixtures.origins.join(' and ')}${inside ? ', isolated network' : ''}`,
  );
  try {
    const options: SuiteOptions = {
      baseUrl: subject.url,
      apiKeys: keys,
      profiles: o.profiles,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.runs !== undefined ? { runs: o.runs } : {}),
      fixtureOrigins: fixtures.origins,
      canary: true,
      isolatedNetwork: inside,
      expectations: path.join(here, 'expectations.json'),
      updateGolden: false,
      goldenDir: path.join(REPO_ROOT, 'golden'),
      reportDir: o.report,
      workers: o.workers,
      grep: o.grep,
      target: {
        chromium: subject.browserVersion,
        info: { implementation: 'firefox subject (conformance/self-test/subjects/firefox)', browser: subject.browserVersion },
      },
    };
    return (await runSuite(options, { explorer: propertiesExplorer(options) })).exitCode;
  } finally {
    await subject.close();
    await fixtures.close();
    console.log(`firefox subject: ${o.profiles.join(',')} run took ${Math.round((Date.now() - started) / 1000)} s`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
