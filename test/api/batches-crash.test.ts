// A batch survives the server's death (SIGKILL mid-batch, then a start on the same store), on the
// embedded store and on PostgreSQL: 30 items, 27 that succeed and 3 that fail by design
// (selector_not_found, a 404 target with failOnTargetError, a render timeout). The batch
// completes, 27 + 3; every picture is there and equal to the synchronous capture of the same
// request; 27 credits are charged; every item's event arrives with a valid signature (a
// redelivery keeps its webhook-id) and batch.completed arrives once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startFixture, page, type Fixture } from '../support/fixture.ts';
import { startServerProcess, testEnv, type ServerProcess } from '../support/server.ts';
import { call, shoot, show, webhookSecretOf } from '../support/http.ts';
import { PG_SKIP, postgresStore, type TestStore } from '../support/stores.ts';
import { eventually } from '../support/wait.ts';

const SECRET = `whsec_${Buffer.from('batch-crash-secret-0123456789').toString('base64')}`;

let fx: Fixture;
const hooks: Array<{ headers: Record<string, string>; body: string }> = [];
let failedOnce = false;
/** Deliveries to /hook-held: the first is held unanswered (the server is killed while it waits). */
const held: Array<{ headers: Record<string, string>; body: string }> = [];

before(async () => {
  fx = await startFixture();
  fx.route('/missing', (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<p>gone</p>'));
  page(fx, '/target', '<style>html,body{margin:0;background:#123456}</style><div id="here">x</div>');
  fx.route('/hook-held', (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      held.push({ headers: req.headers as Record<string, string>, body });
      if (held.length > 1) res.writeHead(200).end();
    });
  });
  fx.route('/hook', (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hooks.push({ headers: req.headers as Record<string, string>, body });
      // The first event's first delivery fails: its redelivery must carry the same webhook-id.
      if (!failedOnce) {
        failedOnce = true;
        return void res.writeHead(500).end();
      }
      res.writeHead(200).end();
    });
  });
});

after(async () => {
  await fx?.close();
});

const colour = (i: number) => `#${((i * 7919) % 0xffffff).toString(16).padStart(6, '0')}`;

function requests() {
  const ok = Array.from({ length: 27 }, (_, i) => ({
    html: `<style>html,body{margin:0;background:${colour(i)}}</style><p>${i}</p>`,
    viewport: { width: 64 + i, height: 48 },
  }));
  return [
    ...ok.slice(0, 10),
    { url: `${fx.origin}/target`, selector: '#nowhere' }, // 10: selector_not_found
    ...ok.slice(10, 20),
    { url: `${fx.origin}/missing`, failOnTargetError: true }, // 21: target_error
    ...ok.slice(20),
    { url: `${fx.origin}/hang`, waitUntil: 'load' }, // 29: render_timeout
  ];
}

const FAILS: Record<number, string> = { 10: 'selector_not_found', 21: 'target_error', 29: 'render_timeout' };

async function crashAndFinish(store: { DATA_DIR: string; DATABASE_URL?: string }) {
  failedOnce = false;
  // Both render slots for the batch (no synchronous capture competes while it runs), and the
  // failed delivery retried after 1 s instead of 5: the same proof in less of the unit stage.
  const env = testEnv(
    {
      ...store,
      RENDER_BUDGET_MS: '8000',
      FREE_CREDITS: '1000',
      WEBHOOK_SECRET: SECRET,
      RENDER_CONCURRENCY: '2',
      BATCH_SLOT_SHARE: '100',
      WEBHOOK_RETRY_SECONDS: '1',
      LOG_LEVEL: 'info',
    },
    [fx.hostPort],
  );
  let srv: ServerProcess | undefined = await startServerProcess(env);
  try {
    const probe = async (n: number) =>
      Number((await shoot(srv!.url, { html: `<p>probe ${n}</p>`, viewport: { width: 10, height: 10 } })).headers.get('x-credits-remaining'));
    const before = await probe(0);
    const list = requests();
    const r = await call(srv.url, '/v1/batches', { requests: list, webhook: { url: `${fx.origin}/hook` } });
    assert.equal(r.status, 202, show(r));
    const id: string = r.json.id;
    const state = async () => (await call(srv!.url, `/v1/batches/${id}`, undefined, { method: 'GET' })).json;
    // Killed while an item runs, after some have succeeded.
    assert.ok(
      await eventually(
        async () => {
          const b = await state();
          return b.counts.succeeded >= 4 && b.items.some((i: any) => i.state === 'running');
        },
        120_000,
        20,
      ),
      'the batch is under way',
    );
    srv.proc.kill('SIGKILL');
    await srv.exited;
    srv = await startServerProcess(env);
    let b: any;
    assert.ok(
      await eventually(
        async () => {
          b = await state();
          return b.counts.pending === 0;
        },
        180_000,
        250,
      ),
      `the batch completes after the restart: ${JSON.stringify(b?.counts)}`,
    );
    assert.equal(b.state, 'done');
    const odd = b.items.filter((i: any) => (i.state === 'failed') !== Boolean(FAILS[i.index]));
    assert.deepEqual(b.counts, { total: 30, succeeded: 27, failed: 3, cancelled: 0, pending: 0 }, JSON.stringify(odd));
    for (const i of b.items) {
      if (FAILS[i.index]) assert.deepEqual([i.state, i.error, i.credits], ['failed', FAILS[i.index], 0], `item ${i.index}`);
      else assert.deepEqual([i.state, i.status, i.credits], ['succeeded', 200, 1], `item ${i.index}`);
    }
    assert.ok(
      b.items.some((i: any) => i.runs >= 2),
      'the item killed mid-run ran again',
    );
    assert.equal(before - (await probe(1)), 27 + 1, '27 credits for the batch (and one for the probe): nothing billed twice');

    // Every picture is kept, and is the synchronous capture's (two at a time: the two render slots).
    const kept = [...list.entries()].filter(([i]) => !FAILS[i]);
    for (let k = 0; k < kept.length; k += 2) {
      await Promise.all(
        kept.slice(k, k + 2).map(async ([i, req]) => {
          const pic = await call(srv!.url, `/v1/batches/${id}/items/${i}`, undefined, { method: 'GET' });
          assert.equal(pic.status, 200, show(pic));
          const sync = await shoot(srv!.url, req);
          assert.equal(pic.headers.get('etag'), sync.headers.get('etag'), `item ${i} equals the synchronous capture`);
        }),
      );
    }

    // Webhooks: every item's event, signed; a redelivery with the same id; batch.completed once.
    assert.ok(
      await eventually(() => new Set(hooks.filter((h) => h.body.includes(id)).map((h) => h.headers['webhook-id'])).size >= 31, 60_000),
      'every event arrives',
    );
    const mine = hooks.filter((h) => h.body.includes(id));
    // Signed with the secret of the key that made the batch (its own, derived from WEBHOOK_SECRET).
    const wh = new Webhook(await webhookSecretOf(srv!.url));
    const byId = new Map<string, any>();
    for (const h of mine) {
      const e = wh.verify(h.body, h.headers) as any;
      const seen = byId.get(h.headers['webhook-id']!);
      if (seen) assert.deepEqual(seen.data, e.data, 'a redelivery is the same event');
      byId.set(h.headers['webhook-id']!, e);
    }
    const events = [...byId.values()];
    assert.equal(events.filter((e) => e.type === 'batch.completed').length, 1);
    assert.deepEqual(
      events
        .filter((e) => e.type !== 'batch.completed')
        .map((e) => e.data.index)
        .sort((x, y) => x - y),
      list.map((_, i) => i),
    );
    for (const e of events.filter((x) => x.type === 'capture.failed')) assert.ok(FAILS[e.data.index], `item ${e.data.index} failed by design`);
    const final = await state();
    assert.ok(
      final.webhook.deliveries.some((d: any) => d.outcome === 'failed' && d.status === 500),
      'the failed attempt is recorded in the batch',
    );
  } finally {
    srv?.proc.kill('SIGKILL');
    await srv?.exited;
  }
}

/** The server killed while it waits for a webhook's answer: after a start on the same store the event is delivered again, with its webhook-id. */
async function killedWhileDelivering(store: { DATA_DIR: string; DATABASE_URL?: string }) {
  held.length = 0;
  const env = testEnv({ ...store, FREE_CREDITS: '100', WEBHOOK_SECRET: SECRET, WEBHOOK_RETRY_SECONDS: '1', LOG_LEVEL: 'info' }, [fx.hostPort]);
  let srv: ServerProcess | undefined = await startServerProcess(env);
  try {
    const r = await call(srv.url, '/v1/batches', {
      requests: [{ html: '<p>one</p>', viewport: { width: 10, height: 10 } }],
      webhook: { url: `${fx.origin}/hook-held` },
    });
    assert.equal(r.status, 202, show(r));
    assert.ok(await eventually(() => held.length >= 1, 60_000), 'a delivery is under way');
    const first = held[0]!.headers['webhook-id'];
    srv.proc.kill('SIGKILL');
    await srv.exited;
    srv = await startServerProcess(env);
    // A hang guard, not a speed verdict: a job whose process died runs again about HEARTBEAT_SECONDS (10 s) later.
    assert.ok(
      await eventually(() => held.slice(1).some((h) => h.headers['webhook-id'] === first), 60_000, 100),
      `the event held when the server died is delivered again with its webhook-id (${held.length} deliveries)`,
    );
  } finally {
    srv?.proc.kill('SIGKILL');
    await srv?.exited;
  }
}

/** The same scenario on each store: a server process with its own data directory, and PostgreSQL's URL when it is the store. */
function onEachStore(title: string, timeout: number, scenario: (store: { DATA_DIR: string; DATABASE_URL?: string }) => Promise<void>) {
  describe(title, () => {
    test('on the embedded store (PGlite)', { timeout }, async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'batch-crash-'));
      try {
        await scenario({ DATA_DIR: dir });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('on PostgreSQL', { skip: PG_SKIP, timeout }, async () => {
      const store: TestStore = await postgresStore();
      const dir = mkdtempSync(path.join(os.tmpdir(), 'batch-crash-pg-'));
      try {
        await scenario({ DATA_DIR: dir, DATABASE_URL: store.config().databaseUrl! });
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await store.destroy();
      }
    });
  });
}

onEachStore('a webhook delivery in flight when the server dies is made again', 240_000, killedWhileDelivering);
onEachStore('a batch survives SIGKILL mid-batch', 420_000, crashAndFinish);
