// The properties profile as the runner takes it (engine/runner.ts Explorer): run after the cases,
// one record per property, with the run's seed in every report. Whoever starts a run passes it:
//   await runSuite(options, { explorer: propertiesExplorer(options) });
import type { SuiteOptions } from '../engine/options.ts';
import type { Explorer } from '../engine/runner.ts';
import { DEFAULT_RUNS, propertyCaseId, randomSeed, runProperties, selectProperties } from './engine.ts';

/**
 * The properties of this run: none (count 0) unless its profiles include `properties`, but their
 * ids always, so that an expectations file listing them serves every profile.
 */
export function propertiesExplorer(o: SuiteOptions): Explorer {
  const seed = o.seed ?? randomSeed();
  const runs = o.runs ?? DEFAULT_RUNS;
  return {
    ids: selectProperties().map(propertyCaseId),
    count: o.profiles.includes('properties') ? selectProperties(o.grep).length : 0,
    note: `properties seed ${seed}, ${runs} runs per property${o.replayPath ? `, replaying path ${o.replayPath}` : ''} (--seed ${seed} draws the same requests again)`,
    runInfo: { properties: { seed, runs, defaultRuns: o.runs === undefined, replayPath: o.replayPath ?? null } },
    run: (env, http, known, done) =>
      runProperties(
        env,
        http,
        {
          seed,
          runs,
          workers: o.workers,
          profiles: o.profiles,
          reportDir: o.reportDir,
          known,
          ...(o.grep ? { grep: o.grep } : {}),
          ...(o.replayPath ? { replayPath: o.replayPath } : {}),
        },
        done,
      ).then(() => undefined),
  };
}
