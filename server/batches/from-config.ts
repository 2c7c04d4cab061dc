// The batches of a process started from one Config: what startServer() and startWorker() both
// start, from the parts of the capture core they both built. Only where the items run (here or
// not) and where the metrics go differ between the two roles.
import type { Registry } from 'prom-client';
import type { SqlLedger } from '../accounts/ledger.ts';
import type { Config } from '../config.ts';
import type { EgressGuard } from '../egress/index.ts';
import type { Logger } from '../log.ts';
import type { CaptureService } from '../service.ts';
import { startBatches, type Batches } from './index.ts';
import type { RetrySchedule } from './queue.ts';

export interface BatchesCore {
  accounts: SqlLedger;
  capture: CaptureService;
  guard: Pick<EgressGuard, 'pinUrl' | 'checkUrl'>;
  log: Logger;
}

export function startConfiguredBatches(
  config: Config,
  core: BatchesCore,
  role: { registry: Registry; runItems: boolean; webhookRetries?: RetrySchedule },
): Promise<Batches> {
  const { accounts, capture, guard, log } = core;
  return startBatches({
    config: config.batches,
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    renderConcurrency: config.renderConcurrency,
    accounts,
    capture,
    pinUrl: (u) => guard.pinUrl(u),
    checkUrl: (u) => guard.checkUrl(u),
    log,
    ...role,
  });
}
