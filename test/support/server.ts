// The one way tests start the reference server: in-process with startServer() (test/api, test/mcp,
// the accounts and security tests, the playground), or as the real entry point server/main.ts in a
// child process (shutdown and crash tests). Loopback, port 0, a throwaway store unless the test
// gives its own, no process.env except CHROMIUM_PATH, and only the given fixtures reachable
// (EGRESS_ALLOW). Nothing here touches the internet or a fixed port (DESIGN §5).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import type { Accounts } from '../../server/accounts/index.ts';
import { loadConfig, type Config } from '../../server/config.ts';
import { launchBrowser } from '../../server/render/browser.ts';
import { startServer, type RunningServer } from '../../server/start.ts';

export const TEST_KEY = 'api-test-key-0123456789abcdef';
export const OTHER_KEY = 'api-test-key-second-0123456789';

const ROOT = path.resolve(import.meta.dirname, '../..');

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
  close(): Promise<void>;
}

/**
 * Starts the server in this process. `overrides` are env variables (README's configuration table);
 * without DATA_DIR it gets a throwaway one. `accounts`: a store the test opened itself (it is
 * closed with the server).
 */
export async function startTestServer(overrides: Record<string, string> = {}, fixture?: Reachable | Reachable[], opts: { accounts?: Accounts } = {}): Promise<TestServer> {
  const ownDir = overrides.DATA_DIR === undefined ? mkdtempSync(path.join(os.tmpdir(), 'api-test-data-')) : undefined;
  const config = testConfig({ ...(ownDir ? { DATA_DIR: ownDir } : {}), ...overrides }, fixture);
  // The pool's browsers are observed through the launcher it is given, not through a hook on it.
  let latest: Promise<Browser> | undefined;
  const server = await startServer(config, {
    accounts: opts.accounts,
    launchBrowser: (o) => {
      const launched = launchBrowser(o);
      latest = launched.then((l) => l.browser);
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

/** Starts `node --import tsx server/main.ts` with exactly `env`; resolves once its log says where it listens. */
export async function startServerProcess(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" log line within 60 s:\n${out}`)), 60_000);
    const look = () => {
      for (const line of out.split('\n')) {
        if (!line.includes('listening on')) continue;
        try {
          const port = JSON.parse(line).port;
          if (typeof port === 'number') {
            clearTimeout(timer);
            proc.stdout!.off('data', look);
            return resolve(port);
          }
        } catch {
          // not JSON: keep looking
        }
      }
    };
    proc.stdout!.on('data', look);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${out}`));
    });
  });
  return { proc, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}
