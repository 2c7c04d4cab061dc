// `npm start` on one machine (RUN_BATCHES=worker, the default): this process only watches the
// others. The embedded store's process (server/store-server.ts) first, when there is no
// DATABASE_URL, then the API process (server/main.ts with RUN_BATCHES=false: the port, accepts and
// queues batches) and one batch worker (server/worker.ts) at BATCH_NICENESS, the whole process and
// its browser. Each is started again when it dies. SIGTERM/SIGINT go to the API and the worker
// (the API drains), then the store closes. Why three processes: docs/architecture.md.
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { storeSocketPath } from '../store/serve.ts';
import { Child, type Events } from './child.ts';

export async function superviseAll(config: Config, log: Logger): Promise<void> {
  const events: Events = {
    started: (name, pid) => log.info({ process: name, pid }, `${name} process started`),
    exited: (name, how, wait) => log.warn({ process: name, how, restartInMs: wait }, `${name} process exited (${how}); starting it again in ${wait} ms`),
  };
  const shared = config.databaseUrl ? {} : { STORE_SOCKET: storeSocketPath(config.dataDir) };
  const store = config.databaseUrl ? undefined : new Child({ name: 'store', entry: 'store-server.ts', env: process.env, waitReady: true }, events);
  const api = new Child({ name: 'api', entry: 'main.ts', env: { ...process.env, ...shared, RUN_BATCHES: 'false' } }, events);
  const worker = new Child({ name: 'worker', entry: 'worker.ts', env: { ...process.env, ...shared }, niceness: config.batches.niceness }, events);
  // All three start together (the API and the worker wait for the store's socket, shared.ts):
  // their start-up (Node, Chromium) overlaps the store's.
  const storeUp = store?.start();
  await Promise.all([api.start(), worker.start()]);
  try {
    await storeUp;
  } catch {
    // The store could not be opened (in use by another server: it said why): nothing to run.
    await Promise.all([api.stop('SIGTERM'), worker.stop('SIGTERM'), store?.stop('SIGTERM')]);
    process.exit(2);
  }

  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      log.info(`${sig}: stopping the API and worker processes, then the store`);
      void Promise.all([api.stop(sig), worker.stop(sig)])
        .then(() => store?.stop('SIGTERM'))
        .then(
          () => process.exit(0),
          (e) => {
            log.error({ err: e }, 'shutdown failed');
            process.exit(1);
          },
        );
    });
  }
}
