// `npm run worker` (and the image's second command): the worker role, startWorker(). With
// DATABASE_URL it is a replica of its own (a cluster scales workers apart from API replicas);
// `npm start` runs one beside its API process (server/supervise). SIGTERM and SIGINT: stop taking
// items, finish those running, close. Started by npm start, it also stops when npm start is gone
// (its IPC channel closes): its items run again at the next start.
import { exitOnConfigError } from './entry.ts';
import { startWorker } from './start-worker.ts';

const config = exitOnConfigError();
const starting = startWorker(config);
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  // Taken from the start: a signal while the worker is still starting (its browser launching)
  // waits for the start and then closes, so that no browser or profile of it is left behind.
  process.once(sig, () => {
    void starting
      .then(async (worker) => {
        worker.log.info(`${sig}: no new batch items; finishing those running`);
        await worker.close();
      })
      .then(
        () => process.exit(0),
        (e) => {
          console.error('worker shutdown failed', e);
          process.exit(1);
        },
      );
  });
}
const worker = await starting;
worker.log.info({ pid: process.pid }, 'batch worker started');
if (worker.metricsUrl) worker.log.info({ port: worker.metricsPort }, `metrics: listening on ${worker.metricsUrl}/metrics`);
process.send?.('ready');
process.once('disconnect', () => process.exit(1));
