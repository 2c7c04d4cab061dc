// Wiring: startServer(), the one function that starts the whole reference server from a validated
// Config (accounts, egress guard, browser pool, capture service, HTTP app and MCP).
// Used by server/main.ts (npm start), by the tests and by the conformance harness (port 0).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startConfiguredBatches } from './batches/from-config.ts';
import { batchSlots } from './batches/index.ts';
import type { RetrySchedule } from './batches/queue.ts';
import type { SqlLedger } from './accounts/ledger.ts';
import { startCaptureCore, type CoreOverrides } from './capture-core.ts';
import type { Config } from './config.ts';
import type { EgressGuard } from './egress/index.ts';
import { createApp } from './http/app.ts';
import { checkingIntervalMs, limitConnections, type ConnectionLimits } from './http/connections.ts';
import { Drain } from './http/drain.ts';
import { resolveKek } from './links/kek.ts';
import type { Logger } from './log.ts';
import { mcpRouter } from './mcp/router.ts';
import type { BrowserPool } from './pool/index.ts';
import { createCompareService } from './compare/service.ts';
import { DiffPool } from '../lib/visual-diff/pool.ts';

export interface Overrides extends CoreOverrides {
  /** The webhook retry schedule (tests shorten it; server/batches/queue.ts). */
  webhookRetries?: RetrySchedule;
}

export interface RunningServer {
  url: string;
  port: number;
  pool: BrowserPool;
  accounts: SqlLedger;
  guard: EgressGuard;
  log: Logger;
  /**
   * Stops the server. With drainMs (SIGTERM, DRAIN_SECONDS): /readyz answers 503 at once and
   * requests are still served for drainMs, so that a balancer stops routing here first; then the
   * listener closes, renders in flight finish, Chromium and the store close.
   */
  close(opts?: { drainMs?: number }): Promise<void>;
}

export async function startServer(config: Config, overrides: Overrides = {}): Promise<RunningServer> {
  const drain = new Drain();
  const core = await startCaptureCore(config, overrides, {
    concurrency: config.renderConcurrency,
    // Items running in this process (RUN_BATCHES=inline) take their share of its slots.
    background: { niceness: config.batches.niceness, concurrency: batchSlots(config.renderConcurrency, config.batches.slotSharePercent) },
    draining: () => drain.draining,
  });
  const { log, telemetry, guard, accounts, pool, metrics, capture } = core;
  // POST /v1/compare: the same capture path, and comparisons in a small pool of worker threads.
  const diff = new DiffPool();
  const compare = createCompareService({ capture, accounts, diff, maxOutputPixels: config.maxOutputPixels });
  // POST /v1/batches: captures as durable jobs in the store, run by the worker processes
  // (server/worker.ts), or here with RUN_BATCHES=inline.
  const batches = await startConfiguredBatches(config, core, {
    registry: metrics.registry,
    webhookRetries: overrides.webhookRetries,
    runItems: config.runBatches === 'inline',
  });
  const kek = resolveKek(config);
  if (!kek) log.warn('signed links are off: with DATABASE_URL they need LINK_SIGNING_KEK (docs/signed-links.md)');
  const readiness = async (): Promise<string | undefined> => {
    if (drain.draining) return 'draining: this replica is shutting down';
    if (pool.saturated) return 'the render queue is full';
    return (await pool.ready()) ? undefined : 'the browser is not ready';
  };
  const app = createApp({
    accounts,
    capture,
    compare,
    metrics,
    log,
    readiness,
    drain,
    browserVersion: () => pool.browserVersion,
    batches: batches.routes,
    // MCP server (spec §4.2): same accounts and capture path as REST; see server/mcp/router.ts.
    mount: (a) => a.use('/mcp', mcpRouter({ accounts, capture, compare, batches: batches.service, log })),
    corsOrigins: config.corsOrigins,
    // Signed links: the store's signing secrets, sealed with the KEK (server/links/kek.ts).
    links: { db: accounts.db, kek },
  });

  const limits: ConnectionLimits = {
    headersTimeoutMs: config.httpHeadersTimeoutMs,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs,
    idleTimeoutMs: config.httpIdleTimeoutMs,
    perAddress: config.maxConnectionsPerIp,
  };
  const server = http.createServer({ connectionsCheckingInterval: checkingIntervalMs(limits) }, app);
  // Slow or stalled clients are cut; the render itself is bounded by the render budget, not by these.
  limitConnections(server, limits, () => metrics.rejections.inc({ reason: 'connection_limit' }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    pool,
    accounts,
    guard,
    log,
    close: (opts = {}) =>
      (closing ??= (async () => {
        drain.start();
        if (opts.drainMs) {
          log.info({ drainMs: opts.drainMs }, 'draining: /readyz answers 503; still serving until the balancer stops sending');
          await new Promise((r) => setTimeout(r, opts.drainMs));
        }
        const stopped = new Promise<void>((r) => server.close(() => r())); // stop accepting
        server.closeIdleConnections();
        await batches.close(); // items running finish (or run again after the restart)
        await pool.close(); // finish what is in flight, then close Chromium
        // Requests whose render is done still compare, commit and write their response (or wait
        // for an identical render elsewhere); then keep-alive sockets are cut.
        await drain.idle(30_000);
        await diff.close();
        await Promise.race([stopped, new Promise((r) => setTimeout(r, 1000).unref())]);
        server.closeAllConnections();
        await stopped;
        await accounts.close();
        await guard.close();
        await telemetry.shutdown(); // the spans still queued are exported (SIGTERM)
      })()),
  };
}
