// The example KEDA ScaledObject (deploy/keda-scaledobject.yaml) scales the workers by a query that
// KEDA runs on PostgreSQL; drift.test.ts holds its text equal to the pending-items gauge's, and
// this file runs it, as read from the YAML, on a real PostgreSQL: before the first batch it fails
// (the queue's tables do not exist yet: KEDA's fallback, as the file says); with a batch queued and
// no worker it answers one row, one column, the number of items; once a worker has run them, 0.
// The API's screenshot_batch_items_pending gauge reads the same at each step.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parse } from 'yaml';
import { startWorker, type RunningWorker } from '../../server/start-worker.ts';
import { call, show } from '../support/http.ts';
import { postgresStore, PG_SKIP, type TestStore } from '../support/stores.ts';
import { startTestServer, testConfig, type TestServer } from '../support/server.ts';
import { eventually } from '../support/wait.ts';

const ITEMS = 3;

/** The query of the ScaledObject's postgresql trigger, as KEDA reads it. */
function kedaQuery(): string {
  const doc = parse(readFileSync(path.resolve(import.meta.dirname, '../../deploy/keda-scaledobject.yaml'), 'utf8'));
  const triggers = (doc.spec.triggers as Array<{ type: string; metadata: { query?: string } }>).filter((t) => t.type === 'postgresql');
  assert.equal(triggers.length, 1, 'one postgresql trigger');
  const q = triggers[0]!.metadata.query;
  assert.ok(typeof q === 'string' && q.length > 0, 'with a query');
  return q;
}

let store: TestStore;
let dataDir: string;
let api: TestServer | undefined;
let worker: RunningWorker | undefined;
let db: pg.Client;

/** The query's answer as KEDA takes it: the one column of the one row, as a number. */
async function depth(query: string): Promise<number> {
  const r = await db.query(query);
  assert.equal(r.rows.length, 1, 'one row');
  assert.equal(r.fields.length, 1, 'one column');
  const v = r.rows[0][r.fields[0]!.name];
  assert.match(String(v), /^\d+$/, `a whole number: ${JSON.stringify(v)}`);
  return Number(v);
}

async function gauge(): Promise<number> {
  const text = await (await fetch(`${api!.url}/metrics`)).text();
  return Number(/^screenshot_batch_items_pending (\S+)$/m.exec(text)?.[1]);
}

before(async () => {
  if (PG_SKIP) return;
  store = await postgresStore();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keda-query-'));
  db = new pg.Client({ connectionString: store.config().databaseUrl! });
  await db.connect();
});

after(async () => {
  await worker?.close();
  await api?.close();
  await db?.end();
  await store?.destroy();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test(
  "the KEDA trigger's query on PostgreSQL: fails before the first batch, N with N items queued and no worker, 0 once a worker ran them",
  { skip: PG_SKIP },
  async (t) => {
    const query = kedaQuery();
    const databaseUrl = store.config().databaseUrl!;
    const shared = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir };

    await assert.rejects(db.query(query), (e: { code?: string }) => e.code === '42P01', 'before the first batch: no queue table (undefined_table)');

    // An API replica of a cluster: it accepts and queues, never runs an item.
    api = await startTestServer({ ...shared, RUN_BATCHES: 'false' });
    const requests = Array.from({ length: ITEMS }, (_, i) => ({ html: `<p>${i}</p>`, viewport: { width: 20, height: 10 } }));
    const r = await call(api.url, '/v1/batches', { requests });
    assert.equal(r.status, 202, show(r));
    assert.equal(await depth(query), ITEMS, 'every item queued, none taken');
    assert.equal(await gauge(), ITEMS, "the API's gauge says the same");

    // A worker takes them; the depth only falls, to 0. It is given no API_KEYS: keys are the API's
    // (the batch is read with the test key at the end: the worker revoked nothing).
    worker = await startWorker(testConfig({ ...shared, BATCH_SLOT_SHARE: '100', BATCH_NICENESS: '0', API_KEYS: '' }));
    const seen: number[] = [];
    assert.ok(
      await eventually(
        async () => {
          seen.push(await depth(query));
          return seen.at(-1) === 0;
        },
        60_000,
        100,
      ),
      `the depth reaches 0 once the worker has run the items: ${seen.join(' ')}`,
    );
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! <= seen[i - 1]!, `the depth only falls: ${seen.join(' ')}`);
    const b = await call(api.url, `/v1/batches/${r.json.id}`, undefined, { method: 'GET' });
    assert.equal(b.status, 200, `the test key still works after the worker started without it: ${show(b)}`);
    assert.equal(b.json.counts.succeeded, ITEMS, show(b));
    assert.equal(await gauge(), 0);
    t.diagnostic(`KEDA query: error before the first batch, then ${ITEMS}, then ${[...new Set(seen)].join(' -> ')}`);
  },
);
