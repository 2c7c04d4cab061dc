// `npm start`. With RUN_BATCHES=worker (the default) this process starts and watches the others
// (server/supervise: the embedded store's process, the API process, a batch worker). Otherwise it
// is the API process itself: validated config, the server, a development key when none is
// configured, and a graceful stop: SIGTERM drains (/readyz 503 at once, requests still served for
// DRAIN_SECONDS so that a balancer stops routing here first), then stops accepting, finishes the
// renders in flight and closes Chromium; SIGINT (Ctrl-C) skips the drain period.
import { ensureDevKey, openAccounts } from './accounts/index.ts';
import { exitOnConfigError } from './entry.ts';
import { createLogger } from './log.ts';
import { startServer } from './start.ts';
import { StoreInUse } from './store/index.ts';
import { superviseAll } from './supervise/index.ts';

const config = exitOnConfigError();
const log = createLogger(config.logLevel);
if (config.runBatches === 'worker') {
  await superviseAll(config, log);
} else {
  await runApi();
}

async function runApi(): Promise<void> {
  let accounts;
  try {
    accounts = await openAccounts(config, { onError: (err, during) => log.warn({ err }, `accounts: ${during} failed`) });
  } catch (e) {
    if (e instanceof StoreInUse) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  const dev = await ensureDevKey(accounts, config);
  const server = await startServer(config, { accounts, log });
  server.log.info({ url: server.url, port: server.port, chromium: config.chromiumPath }, `listening on ${server.url}`);
  if (dev) {
    const printedKey = dev.key;
    console.log(
      `\nDevelopment API key (kept in ${dev.file}; the store has only its hash):\n\n  ${printedKey}\n\nTry:\n  curl -s -X POST ${server.url}/v1/screenshot -H "Authorization: Bearer ${printedKey}" -H "Content-Type: application/json" -d '{"html":"<h1>Hello</h1>"}' -o shot.png\n`,
    );
  }
  // Started by npm start's supervisor: gone with it (a SIGKILL of npm start leaves no server behind).
  process.once('disconnect', () => process.exit(1));
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      const drainMs = sig === 'SIGTERM' ? config.drainSeconds * 1000 : 0;
      server.log.info(drainMs ? `${sig}: draining for ${config.drainSeconds} s, then no new requests` : `${sig}: no new requests; finishing renders in flight`);
      server.close({ drainMs }).then(
        () => process.exit(0),
        (e) => {
          server.log.error({ err: e }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}
