// The command line's flags (one parser: node's util.parseArgs) turned into run options
// (engine/options.ts SuiteOptions) and the flags of the command line itself (list, export, ...).
import path from 'node:path';
import { parseArgs as parseFlags } from 'node:util';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { SUITE_VERSION, type SuiteOptions } from '../engine/options.ts';
import { PROFILES, type Profile } from '../model/model.ts';

export { SUITE_VERSION, type SuiteOptions };

export class UsageError extends Error {}

export const USAGE = `Usage: screenshot-conformance --base-url URL --api-key KEY [options]

  --base-url URL          the implementation under test ({base_url}; POST {base_url}/v1/screenshot)
  --api-key KEY           an API key; repeat or comma-separate several to spread per-key limits
  --profile P[,P]         core (default; the spec only), reference (core + DESIGN §3 decisions),
                          security (threat model; needs fixtures and canaries reachable),
                          extensions (request fields beyond the spec; each case runs only when
                          the implementation's GET /openapi.json declares its fields),
                          properties (requests drawn from the schema, each judged by the spec;
                          a failure is shrunk to the smallest request that still fails)
  --seed N                properties: the seed (default random; every report prints it)
  --runs N                properties: requests drawn per property (default 25, about 2 minutes)
  --replay-path P         properties: replay the counterexample at this path (with its --seed)
  --fixtures-port N[,M]   serve the suite's fixtures on 127.0.0.1:N (and a second origin on M,
                          default N+1); the implementation must be allowed to reach them
  --fixtures-url U[,U2]   fixtures served elsewhere (started with --serve-fixtures); url cases use them
  --fixtures-host H       address to serve fixtures on (default 127.0.0.1)
  --canary | --no-canary  canary listeners on this host can be reached by the implementation
                          (default: on when --base-url is a loopback address)
  --isolated-network      the implementation runs in a network namespace: off-machine private
                          addresses may be sent to it (security profile)
  --fresh-key KEY         a never-used key with the spec's free allowance (billing cases)
  --mcp-url URL           the MCP endpoint (spec §4.2)
  --mcp-fresh-key KEY     another never-used key, for the MCP billing checks
  --expectations FILE     known failures of this implementation (JSON; see RUNNING.md)
  --update-golden         write golden/ from this implementation's images (look at each one!)
  --report DIR            report directory (default conformance-report/)
  --workers N             cases run at the same time (default 2, at most 8)
  --grep REGEX            only cases whose id matches
  --tag TAG               only cases carrying this tag (a mutant's id: the cases it must fail)
  --list                  print the selected cases as JSON, directives resolved, and exit
  --export DIR            write every case as plain JSON (with its JSON Schema, the fixtures and
                          the goldens) for runners in any language, and exit
  --cases DIR             run the cases of such an export instead of the suite's own
  --coverage              print the rule coverage matrix and exit (non-zero if a spec rule has no case)
  --serve-fixtures        only serve the fixtures (with --fixtures-port) until interrupted
  --version               print the suite's version and exit
  --help`;

export interface CliFlags {
  list: boolean;
  exportDir?: string;
  coverage: boolean;
  serveFixtures: boolean;
  fixturesPorts?: number[];
  fixturesHost: string;
  help: boolean;
  version: boolean;
}

/** Every flag the command line takes (--api-key may repeat; --x=value and --x value alike). */
const FLAGS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  'fresh-key': { type: 'string' },
  'mcp-url': { type: 'string' },
  'mcp-fresh-key': { type: 'string' },
  profile: { type: 'string' },
  'fixtures-port': { type: 'string' },
  'fixtures-url': { type: 'string' },
  'fixtures-host': { type: 'string' },
  canary: { type: 'boolean' },
  'isolated-network': { type: 'boolean' },
  expectations: { type: 'string' },
  'update-golden': { type: 'boolean' },
  report: { type: 'string' },
  workers: { type: 'string' },
  grep: { type: 'string' },
  tag: { type: 'string' },
  seed: { type: 'string' },
  runs: { type: 'string' },
  'replay-path': { type: 'string' },
  list: { type: 'boolean' },
  export: { type: 'string' },
  cases: { type: 'string' },
  coverage: { type: 'boolean' },
  'serve-fixtures': { type: 'boolean' },
  version: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function isLoopbackUrl(u: string): boolean {
  try {
    const h = new URL(u).hostname.replace(/^\[|\]$/g, '');
    return h === 'localhost' || h === '::1' || /^127\./.test(h);
  } catch {
    return false;
  }
}

export function parseArgs(argv: string[]): { options: SuiteOptions; flags: CliFlags } {
  let v;
  try {
    v = parseFlags({ args: argv, options: FLAGS, strict: true, allowPositionals: false, allowNegative: true }).values;
  } catch (e) {
    // util.parseArgs names the flag: "Unknown option '--x'", "Option '--grep <value>' argument missing"
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const profiles = v.profile === undefined ? (['core'] as Profile[]) : (list(v.profile) as Profile[]);
  for (const p of profiles) if (!PROFILES.includes(p)) throw new UsageError(`--profile must be ${PROFILES.join(', ')}, got ${p}`);
  const fixturesPorts = v['fixtures-port']?.split(',').map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--fixtures-port: bad port ${s}`);
    return n;
  });
  const flags: CliFlags = {
    list: v.list ?? false,
    ...(v.export !== undefined ? { exportDir: path.resolve(v.export) } : {}),
    coverage: v.coverage ?? false,
    serveFixtures: v['serve-fixtures'] ?? false,
    ...(fixturesPorts ? { fixturesPorts } : {}),
    fixturesHost: v['fixtures-host'] ?? '127.0.0.1',
    help: v.help ?? false,
    version: v.version ?? false,
  };
  const apiKeys = (v['api-key'] ?? []).flatMap(list);
  const needsTarget = !flags.help && !flags.version && !flags.list && !flags.coverage && !flags.serveFixtures && !flags.exportDir;
  if (needsTarget && !v['base-url']) throw new UsageError('--base-url is required');
  if (needsTarget && apiKeys.length === 0) throw new UsageError('--api-key is required');
  if (v['base-url']) {
    try {
      new URL(v['base-url']);
    } catch {
      throw new UsageError(`--base-url is not a URL: ${v['base-url']}`);
    }
  }
  const canary = v.canary ?? isLoopbackUrl(v['base-url'] ?? '');
  const whole = (flag: 'seed' | 'runs', min: number): number | undefined => {
    if (v[flag] === undefined) return undefined;
    const n = Number(v[flag]);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${flag} must be a whole number of at least ${min}, got ${v[flag]}`);
    return n;
  };
  const seed = whole('seed', 0);
  const runs = whole('runs', 1);
  // A path is one property's: replaying it in another would draw something else.
  if (v['replay-path'] !== undefined && !v.grep)
    throw new UsageError("--replay-path replays one property: add --grep '^properties\\.<id>$' (the report prints the whole command)");
  const options: SuiteOptions = {
    baseUrl: v['base-url'] ?? '',
    apiKeys,
    freshKey: v['fresh-key'],
    mcpUrl: v['mcp-url'],
    mcpFreshKey: v['mcp-fresh-key'],
    profiles,
    fixtureOrigins: list(v['fixtures-url']).map((s) => s.replace(/\/+$/, '')),
    canary,
    isolatedNetwork: v['isolated-network'] ?? false,
    expectations: v.expectations !== undefined ? path.resolve(v.expectations) : undefined,
    updateGolden: v['update-golden'] ?? false,
    goldenDir: path.join(REPO_ROOT, 'golden'),
    reportDir: path.resolve(v.report ?? 'conformance-report'),
    workers: Math.min(Math.max(1, Number(v.workers ?? 2) || 1), 8),
    grep: v.grep,
    tag: v.tag,
    casesDir: v.cases !== undefined ? path.resolve(v.cases) : undefined,
    ...(seed !== undefined ? { seed } : {}),
    ...(runs !== undefined ? { runs } : {}),
    ...(v['replay-path'] !== undefined ? { replayPath: v['replay-path'] } : {}),
  };
  return { options, flags };
}
