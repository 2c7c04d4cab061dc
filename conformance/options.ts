// Run options: parsed from the command line by bin.ts (or built by a program) and given to the
// runner (runner.ts runSuite).
import path from 'node:path';
import { PROFILES, type Profile } from './model.ts';
import { REPO_ROOT } from './fixtures.ts';

export const SUITE_VERSION = '1.2.0';

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
  /** Run the cases of an export (--export) instead of the suite's own (--cases DIR). */
  casesDir?: string;
  /** The properties profile (properties/): its seed (random when not given; printed in every report), runs per property, a counterexample's path to replay. */
  seed?: number;
  runs?: number;
  replayPath?: string;
  /** Filled in by bin.ts: what the target reports about itself (for the JSON report). */
  target?: { chromium?: string; info?: Record<string, unknown> };
}

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
  --list                  print the selected cases as JSON, directives resolved, and exit
  --export DIR            write every case as plain JSON (with its JSON Schema, the fixtures and
                          the goldens) for runners in any language, and exit
  --cases DIR             run the cases of such an export instead of the suite's own
  --coverage              print the rule coverage matrix and exit (non-zero if a spec rule has no case)
  --serve-fixtures        only serve the fixtures (with --fixtures-port) until interrupted
  --help`;

export interface CliFlags {
  list: boolean;
  exportDir?: string;
  coverage: boolean;
  serveFixtures: boolean;
  fixturesPorts?: number[];
  fixturesHost: string;
  help: boolean;
}

function isLoopbackUrl(u: string): boolean {
  try {
    const h = new URL(u).hostname.replace(/^\[|\]$/g, '');
    return h === 'localhost' || h === '::1' || /^127\./.test(h);
  } catch {
    return false;
  }
}

export function parseArgs(argv: string[]): { options: SuiteOptions; flags: CliFlags } {
  const o: Partial<SuiteOptions> & { apiKeys: string[] } = { apiKeys: [] };
  const flags: CliFlags = { list: false, coverage: false, serveFixtures: false, fixturesHost: '127.0.0.1', help: false };
  let canary: boolean | undefined;
  let profiles: Profile[] = ['core'];
  let fixtureUrls: string[] = [];
  const args = [...argv];
  const value = (name: string): string => {
    const v = args.shift();
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
    return v;
  };
  while (args.length) {
    let a = args.shift()!;
    if (a.includes('=') && a.startsWith('--')) {
      const [k, ...rest] = a.split('=');
      args.unshift(rest.join('='));
      a = k!;
    }
    switch (a) {
      case '--base-url':
        o.baseUrl = value(a);
        break;
      case '--api-key':
        o.apiKeys.push(
          ...value(a)
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        );
        break;
      case '--fresh-key':
        o.freshKey = value(a);
        break;
      case '--mcp-url':
        o.mcpUrl = value(a);
        break;
      case '--mcp-fresh-key':
        o.mcpFreshKey = value(a);
        break;
      case '--profile': {
        profiles = value(a)
          .split(',')
          .map((s) => s.trim()) as Profile[];
        for (const p of profiles) if (!PROFILES.includes(p)) throw new UsageError(`--profile must be ${PROFILES.join(', ')}, got ${p}`);
        break;
      }
      case '--fixtures-port':
        flags.fixturesPorts = value(a)
          .split(',')
          .map((s) => {
            const n = Number(s);
            if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--fixtures-port: bad port ${s}`);
            return n;
          });
        break;
      case '--fixtures-url':
        fixtureUrls = value(a)
          .split(',')
          .map((s) => s.trim().replace(/\/+$/, ''));
        break;
      case '--fixtures-host':
        flags.fixturesHost = value(a);
        break;
      case '--canary':
        canary = true;
        break;
      case '--no-canary':
        canary = false;
        break;
      case '--isolated-network':
        o.isolatedNetwork = true;
        break;
      case '--expectations':
        o.expectations = path.resolve(value(a));
        break;
      case '--update-golden':
        o.updateGolden = true;
        break;
      case '--report':
        o.reportDir = path.resolve(value(a));
        break;
      case '--workers':
        o.workers = Math.max(1, Number(value(a)) || 1);
        break;
      case '--grep':
        o.grep = value(a);
        break;
      case '--seed':
      case '--runs': {
        const n = Number(value(a));
        if (!Number.isInteger(n) || n < (a === '--runs' ? 1 : 0)) throw new UsageError(`${a} must be a whole number, got ${n}`);
        o[a === '--seed' ? 'seed' : 'runs'] = n;
        break;
      }
      case '--replay-path':
        o.replayPath = value(a);
        break;
      case '--list':
        flags.list = true;
        break;
      case '--export':
        flags.exportDir = path.resolve(value(a));
        break;
      case '--cases':
        o.casesDir = path.resolve(value(a));
        break;
      case '--coverage':
        flags.coverage = true;
        break;
      case '--serve-fixtures':
        flags.serveFixtures = true;
        break;
      case '--help':
      case '-h':
        flags.help = true;
        break;
      default:
        throw new UsageError(`unknown option ${a}`);
    }
  }
  const needsTarget = !flags.help && !flags.list && !flags.coverage && !flags.serveFixtures && !flags.exportDir;
  if (needsTarget && !o.baseUrl) throw new UsageError('--base-url is required');
  if (needsTarget && o.apiKeys.length === 0) throw new UsageError('--api-key is required');
  if (o.baseUrl) {
    try {
      new URL(o.baseUrl);
    } catch {
      throw new UsageError(`--base-url is not a URL: ${o.baseUrl}`);
    }
  }
  const options: SuiteOptions = {
    baseUrl: o.baseUrl ?? '',
    apiKeys: o.apiKeys,
    freshKey: o.freshKey,
    mcpUrl: o.mcpUrl,
    mcpFreshKey: o.mcpFreshKey,
    profiles,
    fixtureOrigins: fixtureUrls,
    canary: canary ?? isLoopbackUrl(o.baseUrl ?? ''),
    isolatedNetwork: o.isolatedNetwork ?? false,
    expectations: o.expectations,
    updateGolden: o.updateGolden ?? false,
    goldenDir: path.join(REPO_ROOT, 'golden'),
    reportDir: o.reportDir ?? path.resolve('conformance-report'),
    workers: Math.min(o.workers ?? 2, 8),
    grep: o.grep,
    casesDir: o.casesDir,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.runs !== undefined ? { runs: o.runs } : {}),
    ...(o.replayPath !== undefined ? { replayPath: o.replayPath } : {}),
  };
  return { options, flags };
}
