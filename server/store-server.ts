// The embedded store's process under `npm start` (server/supervise): it opens PGlite in DATA_DIR
// (migrated, the env keys synced, every reservation left by a dead process released: no client
// is connected yet) and serves it on DATA_DIR/store.sock to the API process and the batch worker
// (server/store/serve.ts). It stops when npm start is gone (its IPC channel closes) or on SIGTERM.
import { openAccounts } from './accounts/index.ts';
import { exitOnConfigError } from './entry.ts';
import { StoreInUse } from './store/index.ts';
import { serveStore, storeSocketPath } from './store/serve.ts';
import type { PGlite } from '@electric-sql/pglite';

const config = exitOnConfigError();
const socketPath = storeSocketPath(config.dataDir);

/** A store process of an npm start just killed may take a moment to close it: its lock is waited for, briefly. */
async function open() {
  for (let tries = 0; ; tries++) {
    try {
      return await openAccounts({ ...config, storeSocket: null });
    } catch (e) {
      if (!(e instanceof StoreInUse) || tries >= 50) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

let accounts;
try {
  accounts = await open();
} catch (e) {
  if (e instanceof StoreInUse) {
    console.error(e.message);
    process.exit(2);
  }
  throw e;
}
const server = await serveStore(accounts.db.pglite as PGlite, socketPath);
process.send?.('ready');
const stop = (code: number) => () =>
  void server
    .close()
    .then(() => accounts.close())
    .finally(() => process.exit(code));
process.once('disconnect', stop(1));
process.once('SIGTERM', stop(0));
process.once('SIGINT', stop(0));
