// Batch workers wait to be woken rather than poll (server/batches/workers.ts), checked from outside
// on `npm start` (three processes, the embedded store served over its socket) with the fallback
// poll set to 10 minutes: a batch submitted to the API process wakes the worker at once (the item
// queue's NOTIFY, listened for through the store's process), and each item's event, queued by the
// worker as it settles the item, wakes the worker's delivery at once. Both batches complete, every
// event delivered, in far less than one poll.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFixture, page, type Fixture } from '../support/fixture.ts';
import { startServerProcess, testEnv, type ServerProcess } from '../support/server.ts';
import { call, show } from '../support/http.ts';
import { eventually } from '../support/wait.ts';

const POLL_SECONDS = 600;
/** Well under one poll: a batch waiting for the fallback poll fails this. */
const PROMPT_MS = 120_000;

let fx: Fixture;
let srv: ServerProcess;
let dataDir: string;
const events: { type: string; data: Record<string, unknown> }[] = [];

before(async () => {
  fx = await startFixture();
  page(fx, '/item', (u) => `<p>${u.searchParams.get('i')}</p>`);
  fx.route('/hook', (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      events.push(JSON.parse(body));
      res.writeHead(200).end();
    });
  });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'batch-wake-'));
  srv = await startServerProcess(testEnv({ DATA_DIR: dataDir, BATCH_POLL_SECONDS: String(POLL_SECONDS), LOG_LEVEL: 'info' }, [fx.hostPort]));
});

after(async () => {
  srv?.proc.kill('SIGTERM');
  await srv?.exited;
  await fx?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const of = (id: string, type: string) => events.filter((e) => e.type === type && e.data.batchId === id);

async function runBatch(n: number): Promise<void> {
  const requests = Array.from({ length: n }, (_, i) => ({ url: `${fx.origin}/item?i=${i}`, viewport: { width: 40, height: 30 } }));
  const r = await call(srv.url, '/v1/batches', { requests, webhook: { url: `${fx.origin}/hook` } });
  assert.equal(r.status, 202, show(r));
  const id: string = r.json.id;
  assert.ok(
    await eventually(() => of(id, 'batch.completed').length > 0, PROMPT_MS, 50),
    `the batch completes and says so well within the ${POLL_SECONDS} s poll`,
  );
  assert.equal(new Set(of(id, 'capture.succeeded').map((e) => e.data.index)).size, n, 'every item event is delivered');
}

test(`npm start with a ${POLL_SECONDS} s fallback poll: batches run and their webhooks arrive without waiting for it`, { timeout: 600_000 }, async () => {
  await runBatch(2); // the first of the store also sets up the queue, which the worker finds
  // The workers have drained the queue and sleep on the long poll now: only wake-ups can run this.
  await runBatch(3);
});
