// Webhook signing secrets per key, over real HTTP with the real browser, the embedded store and a
// real receiver on loopback: two keys of API_KEYS never share a secret (each is derived from
// WEBHOOK_SECRET and the key's id), GET /v1/webhook-secret shows a key its own secret and no
// other's, a batch's deliveries verify with the secret of the key that made it and with no other,
// and the secret is the same after a restart and on a store that never saw it (derived, not stored).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startFixture, type Fixture, webhookReceiver } from '../support/fixture.ts';
import { OTHER_KEY, startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';
import { call, show, webhookSecretOf } from '../support/http.ts';
import { eventually } from '../support/wait.ts';

const SECRET = `whsec_${Buffer.from('per-key-webhook-secret-0123456789').toString('base64')}`;

let fx: Fixture;
let srv: TestServer;
let dataDir: string;
let closed = false;
let hooks: ReturnType<typeof webhookReceiver> = [];

// Items in the captures' browser (one Chromium for this file); a store of the test's own, to restart on.
const start = (dir: string) => startTestServer({ DATA_DIR: dir, WEBHOOK_SECRET: SECRET, BATCH_NICENESS: '0', FREE_CREDITS: '20' }, fx);

before(async () => {
  fx = await startFixture();
  hooks = webhookReceiver(fx);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'webhook-secrets-'));
  srv = await start(dataDir);
});

after(async () => {
  if (!closed) await srv?.close();
  await fx?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const secretReply = (key: string | null, query = '') => call(srv.url, `/v1/webhook-secret${query}`, undefined, { method: 'GET', key });

test('two keys of API_KEYS get different secrets, each derived from WEBHOOK_SECRET and its own key id', async () => {
  const a = await secretReply(TEST_KEY);
  const b = await secretReply(OTHER_KEY);
  assert.equal(a.status, 200, show(a));
  assert.equal(b.status, 200, show(b));
  assert.equal(a.headers.get('cache-control'), 'no-store');
  assert.match(a.json.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.notEqual(a.json.keyId, b.json.keyId);
  assert.notEqual(a.json.secret, b.json.secret);
  assert.notEqual(a.json.secret, SECRET, 'never WEBHOOK_SECRET itself');
  for (const r of [a, b]) {
    // docs/batches.md: HMAC-SHA256 under WEBHOOK_SECRET's bytes of "webhook-secret:" + the key id.
    const bytes = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const want = `whsec_${createHmac('sha256', bytes).update(`webhook-secret:${r.json.keyId}`).digest('base64')}`;
    assert.equal(r.json.secret, want);
    assert.ok(!r.json.secret.includes(TEST_KEY) && !r.json.keyId.includes(TEST_KEY), 'the key itself is in neither');
  }
});

test("a key is shown its own secret only: B never reads A's, whatever it asks; no key, no secret", async () => {
  const a = (await secretReply(TEST_KEY)).json;
  const b = (await secretReply(OTHER_KEY)).json;
  for (const query of ['', `?keyId=${a.keyId}`, `?key_id=${a.keyId}&id=${a.keyId}`]) {
    const r = await secretReply(OTHER_KEY, query);
    assert.equal(r.status, 200, show(r));
    assert.deepEqual(r.json, b, `B asking ${query || 'plainly'} gets its own`);
    assert.ok(!r.body.toString('utf8').includes(a.secret));
  }
  const anon = await secretReply(null);
  assert.equal(anon.status, 401, show(anon));
  assert.ok(!anon.body.toString('utf8').includes('whsec_'));
  const wrong = await secretReply('not-a-key-0123456789abcdef');
  assert.equal(wrong.status, 401, show(wrong));
  // A row of the route table: 405 with Allow, and OPTIONS, name GET alone.
  const put = await call(srv.url, '/v1/webhook-secret', undefined, { method: 'PUT' });
  assert.equal(put.status, 405, show(put));
  assert.equal(put.headers.get('allow'), 'GET');
  const options = await fetch(`${srv.url}/v1/webhook-secret`, { method: 'OPTIONS' });
  assert.equal(options.status, 204);
  assert.deepEqual((options.headers.get('allow') ?? '').split(', ').sort(), ['GET', 'HEAD', 'OPTIONS']);
  const doc = (await call(srv.url, '/openapi.json', undefined, { method: 'GET' })).json;
  assert.equal(doc.paths['/v1/webhook-secret'].get.operationId, 'getWebhookSecret');
});

test("a delivery for A's batch verifies with A's secret and fails with B's", async () => {
  const secretA = await webhookSecretOf(srv.url, TEST_KEY);
  const secretB = await webhookSecretOf(srv.url, OTHER_KEY);
  const r = await call(srv.url, '/v1/batches', {
    requests: [{ html: '<p>a</p>', viewport: { width: 20, height: 20 } }],
    webhook: { url: `${fx.origin}/hook` },
  });
  assert.equal(r.status, 202, show(r));
  const id = r.json.id as string;
  assert.ok(await eventually(() => hooks.filter((h) => h.body.includes(id)).length >= 2, 60_000), `the item's event and batch.completed: ${hooks.length}`);
  const mine = hooks.filter((h) => h.body.includes(id));
  for (const h of mine) {
    const e = new Webhook(secretA).verify(h.body, h.headers) as { type: string; data: { batchId: string } };
    assert.equal(e.data.batchId, id);
    assert.throws(() => new Webhook(secretB).verify(h.body, h.headers), /signature/i, "B's secret does not verify A's event");
    assert.throws(() => new Webhook(SECRET).verify(h.body, h.headers), /signature/i, 'nor does WEBHOOK_SECRET itself');
  }
  assert.deepEqual(mine.map((h) => (JSON.parse(h.body) as { type: string }).type).sort(), ['batch.completed', 'capture.succeeded']);
});

test('the secrets survive a restart unchanged, and a store that never saw them derives the same', async () => {
  const before = [await webhookSecretOf(srv.url, TEST_KEY), await webhookSecretOf(srv.url, OTHER_KEY)];
  await srv.close();
  srv = await start(dataDir);
  assert.deepEqual([await webhookSecretOf(srv.url, TEST_KEY), await webhookSecretOf(srv.url, OTHER_KEY)], before, 'the same after a restart');
  const fresh = mkdtempSync(path.join(os.tmpdir(), 'webhook-secrets-fresh-'));
  await srv.close();
  try {
    srv = await start(fresh);
    assert.deepEqual([await webhookSecretOf(srv.url, TEST_KEY), await webhookSecretOf(srv.url, OTHER_KEY)], before, 'derived, not stored');
  } finally {
    await srv.close();
    closed = true;
    rmSync(fresh, { recursive: true, force: true });
  }
});
