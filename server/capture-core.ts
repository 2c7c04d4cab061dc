// What the API process and the batch worker both start to make captures: the egress guard, the
// store's ledger, the browser pool, the result cache and the capture service. startServer()
// (start.ts) puts HTTP in front of it; startWorker() (start-worker.ts) the batch queue's workers.
import { openAccounts } from './accounts/index.ts';
import type { SqlLedger } from './accounts/ledger.ts';
import { openSharedCache } from './cache/shared.ts';
import type { Config } from './config.ts';
import { egressLaunchArgs, startEgressGuard } from './egress/index.ts';
import { createLogger, type Logger } from './log.ts';
import { createMetrics } from './metrics.ts';
import { BrowserPool, type PoolOptions } from './pool/index.ts';
import { createCaptureService } from './service.ts';
import { startTelemetry } from './telemetry/sdk.ts';

export interface CoreOverrides {
  /** The store's ledger (its store, server/store, also holds the result cache and the link secrets). */
  accounts?: SqlLedger;
  log?: Logger;
  /** How the pool starts a browser (default: launchBrowser); tests observe the browsers this way. */
  launchBrowser?: PoolOptions['launch'];
}

export async function startCaptureCore(
  config: Config,
  overrides: CoreOverrides,
  shape: {
    concurrency: number;
    background: PoolOptions['background'];
    draining: () => boolean;
    /** False: API_KEYS is left to the processes that answer HTTP (a worker neither adds nor revokes keys). */
    syncEnvKeys?: boolean;
  },
) {
  const log = overrides.log ?? createLogger(config.logLevel);
  // Before anything that makes spans; the SDK is not loaded at all without an OTLP endpoint.
  const telemetry = await startTelemetry(config.telemetry);
  if (config.telemetry) log.info({ url: config.telemetry.url, protocol: config.telemetry.protocol }, 'traces: exported over OTLP');
  const guard = await startEgressGuard({
    allow: config.egressAllow,
    log: (level, msg, extra) => log[level](extra ?? {}, msg),
  });
  const accounts = overrides.accounts ?? (await openAccounts(config, { syncEnvKeys: shape.syncEnvKeys }));
  const pool = new BrowserPool({
    executablePath: config.chromiumPath,
    launchArgs: egressLaunchArgs(guard.proxyPort),
    sandbox: config.browserSandbox,
    concurrency: shape.concurrency,
    queueLimit: config.queueLimit,
    recycleAfter: config.recycleAfter,
    renderBudgetMs: config.renderBudgetMs,
    log: (level, msg, extra) => log[level](extra ?? {}, msg),
    launch: overrides.launchBrowser,
    background: shape.background,
  });
  try {
    await pool.start();
  } catch (e) {
    await Promise.all([guard.close(), accounts.close(), telemetry.shutdown()]);
    throw e;
  }
  const metrics = createMetrics(pool, { concurrency: shape.concurrency, queueLimit: config.queueLimit, draining: shape.draining });
  const cache = openSharedCache(accounts.db, {
    ttlSeconds: config.cacheTtlSeconds,
    maxBytes: config.cacheMaxBytes,
    // A waiter waits at most this long for an identical render (queue wait and budget included).
    leaseMs: 2 * config.renderBudgetMs + 10_000,
    onError: (err, during) => log.warn({ err }, `${during} failed; served without the cache`),
  });
  const capture = createCaptureService({
    accounts,
    pool,
    cache,
    metrics,
    checkUrl: (u) => guard.checkUrl(u),
    maxOutputPixels: config.maxOutputPixels,
    browserVersion: () => pool.browserVersion,
    defaultCacheTtl: config.cacheTtlSeconds,
  });
  return { log, telemetry, guard, accounts, pool, metrics, capture };
}
