// Batch items run in a worker process of their own (RUN_BATCHES=worker, npm start's default),
// checked from outside on `npm start` alone (server/main.ts as a child process, the embedded
// store): the process listening on the port spends at most 20 ms of CPU per item of a 40-item
// batch (from /proc), and the items' work shows in the worker; the worker killed (SIGKILL) while
// an item runs: synchronous captures answer meanwhile, the worker is started again, the item runs
// again, the batch completes 40 of 40, every event is delivered, exactly 40 credits are charged.
// Then the API process killed while the worker runs an item: the worker finishes it, and the
// batch goes on through the API started again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startFixture, page, type Fixture } from '../support/fixture.ts';
import { cpuMs, descendantsMentioning, listenerOf } from '../support/processes.ts';
import { startServerProcess, testEnv, type ServerProcess } from '../support/server.ts';
import { call, shoot, show, webhookSecretOf } from '../support/http.ts';
import { eventually, sleep } from '../support/wait.ts';

const SECRET = `whsec_${Buffer.from('batch-worker-secret-0123456789').toString('base64')}`;
const ITEMS = 40;
/** The item whose page the fixture holds until the test lets it go: the worker is mid-item then. */
const HELD = 12;
const IDLE_WINDOW_MS = 15_000;

let fx: Fixture;
let srv: ServerProcess;
let dataDir: string;
/** The test key's webhook secret (derived from WEBHOOK_SECRET), read once the server is up. */
let secret: string;
/** Webhook events received, by webhook-id (a redelivery keeps its id). */
const events = new Map<string, { type: string; data: Record<string, unknown> }>();
/** Requests for a held page, per path, and whether its answers are let go. */
const held = new Map<string, { waiting: http.ServerResponse[]; hits: number; released: boolean }>();

function holdable(p: string) {
  const h = { waiting: [] as http.ServerResponse[], hits: 0, released: false };
  held.set(p, h);
  fx.route(p, (_req, res) => {
    h.hits++;
    const answer = () => res.writeHead(200, { 'content-type': 'text/html' }).end('<style>html,body{margin:0;background:#204060}</style><p>held</p>');
    if (h.released) answer();
    else h.waiting.push(res);
  });
  return {
    hit: () => h.hits > 0,
    release() {
      h.released = true;
      for (const res of h.waiting.splice(0)) if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>held</p>');
    },
  };
}

before(async () => {
  fx = await startFixture();
  page(
    fx,
    '/item',
    (u) =>
      `<style>html,body{margin:0;background:#${(Number(u.searchParams.get('i')) * 7919).toString(16).padStart(6, '0').slice(-6)}}</style><p>${u.searchParams.get('i')}</p>`,
  );
  fx.route('/hook', (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const e = new Webhook(secret).verify(body, req.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
      events.set(String(req.headers['webhook-id']), e);
      res.writeHead(200).end();
    });
  });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'batch-worker-'));
  const env = testEnv({ DATA_DIR: dataDir, FREE_CREDITS: '200', WEBHOOK_SECRET: SECRET, RENDER_BUDGET_MS: '20000', LOG_LEVEL: 'info' }, [fx.hostPort]);
  srv = await startServerProcess(env);
  secret = await webhookSecretOf(srv.url);
});

after(async () => {
  srv?.proc.kill('SIGTERM');
  await srv?.exited;
  await fx?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const completed = (id: string) => [...events.values()].some((e) => e.type === 'batch.completed' && e.data.batchId === id);
const workers = () => descendantsMentioning(srv.proc.pid!, 'server/worker.ts');
const remaining = async (base: string) => {
  const r = await shoot(base, { html: '<p>probe</p>', viewport: { width: 10, height: 10 } });
  assert.equal(r.status, 200, show(r));
  return Number(r.headers.get('x-credits-remaining'));
};

test(
  'npm start: a 40-item batch costs the API process at most 20 ms of CPU per item; the worker killed mid-item, the batch completes, billed once',
  { timeout: 600_000 },
  async (t) => {
    const api = listenerOf(new URL(srv.url).port ? Number(new URL(srv.url).port) : 0);
    assert.ok(api, 'a process listens on the port');
    assert.notEqual(api, srv.proc.pid, 'npm start itself does not listen: its API process does');
    const [worker] = workers();
    assert.ok(worker, 'npm start runs a batch worker process');
    assert.notEqual(worker, api);

    // The first batch of the store sets up the queue (once per store): not a per-item cost.
    const warm = await call(srv.url, '/v1/batches', { requests: [{ html: '<p>warm</p>' }], webhook: { url: `${fx.origin}/hook` } });
    assert.equal(warm.status, 202, show(warm));
    assert.ok(await eventually(() => completed(warm.json.id), 240_000, 100), 'the first batch completes');
    const before = await remaining(srv.url);
    // What the API process spends with nothing to do (timers, the event loop's delay monitor): on
    // a loaded host the batch takes minutes, and this part of its CPU is time, not items.
    const idle0 = { cpu: cpuMs(api), at: performance.now() };
    await sleep(IDLE_WINDOW_MS);
    const idlePerMs = (cpuMs(api) - idle0.cpu) / (performance.now() - idle0.at);

    const hold = holdable('/held-a');
    const requests = Array.from({ length: ITEMS }, (_, i) =>
      i === HELD ? { url: `${fx.origin}/held-a` } : { url: `${fx.origin}/item?i=${i}`, viewport: { width: 80, height: 60 } },
    );
    const stores = descendantsMentioning(srv.proc.pid!, 'server/store-server.ts');
    const c0 = { api: cpuMs(api), store: cpuMs(stores[0]!), at: performance.now() };
    const r = await call(srv.url, '/v1/batches', { requests, webhook: { url: `${fx.origin}/hook` } });
    assert.equal(r.status, 202, show(r));
    const id: string = r.json.id;

    assert.ok(await eventually(hold.hit, 300_000, 50), 'the worker reaches the held item');
    const c1 = { cpu: cpuMs(api), at: performance.now() };
    const workerCpu = cpuMs(worker);
    process.kill(worker, 'SIGKILL');
    // Synchronous captures answer while the worker is gone.
    for (let i = 0; i < 5; i++) {
      const s = await shoot(srv.url, { html: `<p>sync ${i}</p>`, viewport: { width: 20, height: 20 } });
      assert.equal(s.status, 200, show(s));
    }
    const c2 = { cpu: cpuMs(api), at: performance.now() };
    hold.release();
    assert.ok(await eventually(() => workers().some((w) => w !== worker), 120_000, 100), 'npm start starts the worker again');
    assert.ok(await eventually(() => completed(id), 400_000, 100), 'the batch completes');
    const c3 = { api: cpuMs(api), store: cpuMs(stores[0]!), at: performance.now() };

    // The batch's windows, without the five synchronous captures between c1 and c2.
    const spent = c1.cpu - c0.api + (c3.api - c2.cpu);
    const wall = c1.at - c0.at + (c3.at - c2.at);
    const apiPerItem = (spent - idlePerMs * wall) / ITEMS;
    t.diagnostic(
      `CPU per item: API process ${apiPerItem.toFixed(1)} ms over its idle rate (${(spent / ITEMS).toFixed(1)} ms in all, ${(idlePerMs * 1000).toFixed(1)} ms/s idle, ${(wall / 1000).toFixed(0)} s); ` +
        `store process ${((c3.store - c0.store) / ITEMS).toFixed(1)} ms; the killed worker ${workerCpu} ms for its start and ${HELD} items`,
    );
    assert.ok(apiPerItem <= 20, `the API process spent ${apiPerItem} ms of CPU per item over its idle rate`);
    assert.ok(workerCpu > apiPerItem * HELD, 'the items ran in the worker process');

    const b = (await call(srv.url, `/v1/batches/${id}`, undefined, { method: 'GET' })).json;
    assert.deepEqual(b.counts, { total: ITEMS, succeeded: ITEMS, failed: 0, cancelled: 0, pending: 0 });
    assert.ok(b.items[HELD].runs >= 2, `the item the worker held ran again (runs: ${b.items[HELD].runs})`);
    assert.equal(
      b.items.reduce((n: number, i: { credits: number }) => n + i.credits, 0),
      ITEMS,
    );
    const delivered = new Set([...events.values()].filter((e) => e.data.batchId === id && e.type === 'capture.succeeded').map((e) => e.data.index));
    assert.equal(delivered.size, ITEMS, 'every item event is delivered, the held one too');
    // 40 items, 5 synchronous captures and this probe: nothing else, nothing twice.
    assert.equal(before - (await remaining(srv.url)), ITEMS + 5 + 1);
  },
);

test(
  'npm start: the API process killed while the worker runs an item; the worker finishes it, the batch goes on through the API started again',
  { timeout: 600_000 },
  async () => {
    const hold = holdable('/held-b');
    const r = await call(srv.url, '/v1/batches', {
      requests: [{ url: `${fx.origin}/item?i=1` }, { url: `${fx.origin}/held-b` }, { url: `${fx.origin}/item?i=3` }],
      webhook: { url: `${fx.origin}/hook` },
    });
    assert.equal(r.status, 202, show(r));
    const id: string = r.json.id;
    assert.ok(await eventually(hold.hit, 300_000, 50), 'the worker reaches the held item');
    const [worker] = workers();
    const api = listenerOf(Number(new URL(srv.url).port))!;
    const listened = srv.output().split('listening on').length;
    process.kill(api, 'SIGKILL');
    hold.release();
    // The worker finishes the item and delivers its event whether or not the API is back yet.
    const itemEvent = () => [...events.values()].some((e) => e.type === 'capture.succeeded' && e.data.batchId === id && e.data.index === 1);
    assert.ok(await eventually(itemEvent, 300_000, 100), 'the worker finishes the held item');
    // Started again by npm start (port 0 here: it listens on a new one).
    assert.ok(await eventually(() => srv.output().split('listening on').length > listened, 240_000, 100), 'npm start starts the API process again');
    const line = srv
      .output()
      .split('\n')
      .filter((l) => l.includes('listening on'))
      .pop()!;
    const url = JSON.parse(line).url as string;
    assert.ok(await eventually(() => completed(id), 300_000, 100), 'the batch completes');
    assert.deepEqual(workers(), [worker], 'the same worker ran it throughout');
    const b = (await call(url, `/v1/batches/${id}`, undefined, { method: 'GET' })).json;
    assert.deepEqual(b.counts, { total: 3, succeeded: 3, failed: 0, cancelled: 0, pending: 0 });
    assert.equal(b.items[1].runs, 1, 'the worker finished the held item itself');
  },
);
