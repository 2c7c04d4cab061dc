// What a run is given (runner.ts runSuite): built by the command line (cli/options.ts) or by a
// program (the reference run, the mutants, a subject engine, the self-tests).
import type { Profile } from '../model/model.ts';

/** The suite's version (the contract's, RUNNING.md); the package's version is the same. */
export const SUITE_VERSION = '1.3.0';

export interface SuiteOptions {
  baseUrl: string;
  apiKeys: string[];
  freshKey?: string;
  mcpUrl?: string;
  mcpFreshKey?: string;
  profiles: Profile[];
  /** Fixture origins as the implementation reaches them (empty: url-mode cases are skipped). */
  fixtureOrigins: string[];
  canary: boolean;
  isolatedNetwork: boolean;
  expectations?: string;
  updateGolden: boolean;
  goldenDir: string;
  reportDir: string;
  /** Cases run at the same time (default 2). */
  workers: number;
  grep?: string;
  /** Only cases carrying this tag (Case.tags). */
  tag?: string;
  /** Run the cases of an export (--export) instead of the suite's own (--cases DIR). */
  casesDir?: string;
  /** The properties profile (properties/): its seed (random when not given; every report prints it), requests per property, a counterexample's path to replay. */
  seed?: number;
  runs?: number;
  replayPath?: string;
  /** Filled in by bin.ts: what the target reports about itself (for the JSON report). */
  target?: { chromium?: string; info?: Record<string, unknown> };
}
