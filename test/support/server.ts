// The one way tests start the reference server: in-process with startServer() (test/api, test/mcp,
// the accounts and security tests, the playground), or as the real entry point server/main.ts in a
// child process (shutdown and crash tests). Loopback, port 0, a throwaway store unless the test
// gives its own, no process.env except CHROMIUM_PATH, and only the given fixtures reachable
// (EGRESS_ALLOW). Nothing here touches the internet or a fixed port (DESIGN §5).
import { startReplica } from '../../scripts/cluster/replica.ts';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import type { SqlLedger } from '../../server/accounts/ledger.ts';
import { loadConfig, type Config } from '../../server/config.ts';
import { launchBrowser } from '../../server/toolkit/browser.ts';
import { startServer, type RunningServer } from '../../server/start.ts';

export const TEST_KEY = 'api-test-key-0123456789abcdef';
export const OTHER_KEY = 'api-test-key-second-0123456789';

/** What a test server may reach: a fixture (test/support/fixture.ts), or any host:port. */
export type Reachable = { hostPort: string };

/** The env every test server starts from (no process.env except CHROMIUM_PATH). */
export function testEnv(overrides: Record<string, string> = {}, allow: string[] = []): Record<string, string> {
  return {
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    API_KEYS: `${TEST_KEY},${OTHER_KEY}`,
    PORT: '0',
    HOST: '127.0.0.1',
    EGRESS_ALLOW: allow.join(','),
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    CACHE_TTL_SECONDS: '0',
    ...overrides,
  };
}

const reachable = (fixture?: Reachable | Reachable[]) => (fixture === undefined ? [] : Array.isArray(fixture) ? fixture : [fixture]).map((f) => f.hostPort);

/** The validated config of a test server (for tests that open its store themselves first). */
export function testConfig(overrides: Record<string, string> = {}, fixture?: Reachable | Reachable[]): Config {
  return loadConfig(testEnv(overrides, reachable(fixture)));
}

export interface TestServer {
  server: RunningServer;
  url: string;
  config: Config;
  dataDir: string;
  /** The browser now serving (the pool's latest launch), once it is up; undefined when none is. */
  browser(): Promise<Browser | undefined>;
  /** The latest browser launched for background work (batch items, at BATCH_NICENESS), if any. */
  backgroundBrowser(): Promise<Browser | undefined>;
  close(): Promise<void>;
}

/**
 * Starts the server in this process. `overrides` are env variables (docs/configuration.md);
 * without DATA_DIR it gets a throwaway one. `accounts`: a store the test opened itself (it is
 * closed with the server).
 */
export async function startTestServer(
  overrides: Record<string, string> = {},
  fixture?: Reachable | Reachable[],
  opts: { accounts?: SqlLedger } = {},
): Promise<TestServer> {
  const ownDir = overrides.DATA_DIR === undefined ? mkdtempSync(path.join(os.tmpdir(), 'api-test-data-')) : undefined;
  // In-process servers run their batch items themselves (the worker process is npm start's).
  const config = testConfig({ RUN_BATCHES: 'inline', ...(ownDir ? { DATA_DIR: ownDir } : {}), ...overrides }, fixture);
  // The pool's browsers are observed through the launcher it is given, not through a hook on it.
  let latest: Promise<Browser> | undefined;
  let latestBackground: Promise<Browser> | undefined;
  const server = await startServer(config, {
    accounts: opts.accounts,
    launchBrowser: (o) => {
      const launched = launchBrowser(o);
      if (o.niceness) latestBackground = launched.then((l) => l.browser);
      else latest = launched.then((l) => l.browser);
      return launched;
    },
  });
  return {
    server,
    url: server.url,
    config,
    dataDir: config.dataDir,
    browser: async () => {
      const b = await latest?.catch(() => undefined);
      return b?.connected ? b : undefined;
    },
    backgroundBrowser: async () => {
      const b = await latestBackground?.catch(() => undefined);
      return b?.connected ? b : undefined;
    },
    close: async () => {
      await server.close();
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

export interface ServerProcess {
  proc: ChildProcess;
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node --import tsx server/main.ts` as operators run it, with `env` (PORT=0; PATH and HOME
 * from this process unless given); resolves once its log says where it listens. The same launcher
 * as the reference deployment's replicas (scripts/cluster/replica.ts).
 */
export async function startServerProcess(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const clean = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  return startReplica({ name: 'server', env: clean });
}
