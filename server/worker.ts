// `npm run worker` (and the image's second command): the worker role, startWorker(). With
// DATABASE_URL it is a replica of its own (a cluster scales workers apart from API replicas);
// `npm start` runs one beside its API process (server/supervise). SIGTERM and SIGINT: stop taking
// items, finish those running, close. Started by npm start, it also stops when npm start is gone
// (its IPC channel closes): its items run again at the next start.
import { exitOnConfigError } from './entry.ts';
import { startWorker } from './start-worker.ts';

const config = exitOnConfigError();
const worker = await startWorker(config);
worker.log.info({ pid: process.pid }, 'batch worker started');
process.send?.('ready');
process.once('disconnect', () => process.exit(1));
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.once(sig, () => {
    worker.log.info(`${sig}: no new batch items; finishing those running`);
    worker.close().then(
      () => process.exit(0),
      (e) => {
        worker.log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
