// A server process killed (SIGKILL) while a capture is in flight, i.e. between reserve and commit:
// afterwards the credit is back and nothing is charged, on both stores. The embedded store gets it
// back at the next start (its start-up sweep); PostgreSQL when the dead replica's lease has run out
// (fast-forwarded here instead of waiting the default 60 s).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture } from '../../test/support/fixture.ts';
import { startServerProcess, type ServerProcess } from '../../test/support/server.ts';
import { audit, STORES } from '../../test/support/stores.ts';

const KEY = 'crash-test-key-0123456789';

for (const store of STORES) {
  describe(`server killed mid-capture on ${store.name}`, { skip: store.skip }, () => {
    test('the held credit is released, never charged', async () => {
      const s = await store.make();
      // A page that never answers: the capture stays in flight until the server dies.
      let seen: () => void;
      const requested = new Promise<void>((r) => (seen = r));
      const fx = await startFixture();
      fx.route('/never', () => seen());
      const c = s.config();
      let child: ServerProcess | undefined;
      try {
        child = await startServerProcess({
          ...process.env,
          PORT: '0',
          HOST: '127.0.0.1',
          API_KEYS: KEY,
          DATA_DIR: c.dataDir,
          DATABASE_URL: c.databaseUrl ?? '',
          EGRESS_ALLOW: fx.hostPort,
          RATE_LIMIT_PER_MINUTE: '0',
          LOG_LEVEL: 'info',
        });
        const url = child.url;
        const inFlight = fetch(`${url}/v1/screenshot`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${fx.origin}/never`, waitUntil: 'load' }),
        }).catch((e: unknown) => e);
        await requested; // the credit is reserved and the browser is waiting for the page
        child.proc.kill('SIGKILL');
        await child.exited;
        assert.ok((await inFlight) instanceof Error, 'the client saw the connection die');

        const l = await s.open({ apiKeys: [KEY] }, { sweepAtStart: false });
        try {
          const account = (await l.authenticate(KEY))!;
          if (store.name === 'postgres') {
            assert.equal((await audit(l.db, account.id)).held, 1, 'still held by the dead replica');
            await l.db.query("UPDATE reservations SET expires_at = now() - interval '1 second'"); // its lease runs out
            assert.equal(await l.sweep(), 1);
          } else {
            assert.equal(await l.sweep({ all: true }), 1, 'what a restart of the embedded store does');
          }
          const a = await audit(l.db, account.id);
          assert.deepEqual(a, { credits: 100, held: 0, reservations: 0, ledgerSum: 100, captures: 0 });
          assert.equal(await l.balance(account), 100);
        } finally {
          await l.close();
        }
      } finally {
        if (child && child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
        await child?.exited;
        await fx.close();
        await s.destroy();
      }
    });
  });
}
