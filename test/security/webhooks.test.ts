// Webhooks of batches against the egress guard, in the battery's own network namespace
// (test/security/run-in-netns.sh): a webhook URL naming a private, loopback or metadata address is
// refused at submission (400 naming webhook.url), and a name that was public at submission and
// resolves to a metadata address by delivery time is never delivered to: the guard is asked again
// at every attempt and the connection dials only the addresses it classified.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { call, show } from '../support/http.ts';
import { eventually, sleep } from '../support/wait.ts';
import { buildWorld, INTERNAL, PUBLIC_V4, ZONE, type World } from './lib/world.ts';

let world: World;
let srv: TestServer;
let hookIsPublic = true;
const delivered: string[] = [];

// Public while the batch is submitted, the metadata address afterwards (TTL 0: asked again each time).
ZONE['hook.example.com'] = (t) => ({ addresses: t === 'A' ? [hookIsPublic ? PUBLIC_V4 : INTERNAL.metadata] : [], ttl: 0 });

before(async () => {
  world = await buildWorld();
  world.site.route('/hook', (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      delivered.push(body);
      res.writeHead(204).end();
    });
  });
  srv = await startTestServer({ FREE_CREDITS: '1000', RENDER_CONCURRENCY: '1' }, world.localSite);
});
after(async () => {
  await srv?.close();
  await world?.close();
});

const submit = (url: string) => call(srv.url, '/v1/batches', { requests: [{ html: '<p>x</p>', viewport: { width: 20, height: 20 } }], webhook: { url } });
const batchOf = async (id: string) => (await call(srv.url, `/v1/batches/${id}`, undefined, { method: 'GET' })).json;

test('a webhook to a private, loopback or metadata address is refused at submission, naming webhook.url', async () => {
  const names = ['private.example.com', 'meta.example.com', 'loop.example.com', 'mixed.example.com', '169.254.169.254.nip.io'];
  const literals = Object.values(INTERNAL).map((a) => (a.includes(':') ? `[${a}]` : a));
  for (const host of [...names, ...literals]) {
    const r = await submit(`http://${host}/hook`);
    assert.equal(r.status, 400, `${host}: ${show(r)}`);
    assert.match(r.json.message, /^webhook\.url /, host);
  }
  assert.deepEqual(world.hits(), []);
});

test('a public webhook is delivered; once its name resolves to a metadata address, it never is', async () => {
  const ok = await submit(`http://${PUBLIC_V4}/hook`);
  assert.equal(ok.status, 202, show(ok));
  assert.ok(await eventually(() => delivered.filter((d) => d.includes(ok.json.id)).length >= 2, 60_000), 'the public webhook is delivered');

  hookIsPublic = true;
  const r = await submit('http://hook.example.com/hook');
  assert.equal(r.status, 202, show(r));
  hookIsPublic = false; // the name changes before any delivery
  let b: any;
  assert.ok(
    await eventually(async () => {
      b = await batchOf(r.json.id);
      return b.counts.pending === 0 && b.webhook.deliveries.length >= 2;
    }, 60_000),
    `the batch runs and its deliveries are attempted: ${JSON.stringify(b)}`,
  );
  await sleep(1000); // a window on purpose: a delivery that got through would arrive in it, and none may
  b = await batchOf(r.json.id);
  assert.ok(
    b.webhook.deliveries.every((d: any) => d.outcome === 'blocked'),
    JSON.stringify(b.webhook.deliveries),
  );
  assert.match(b.webhook.deliveries[0].error, /169\.254\.169\.254/);
  assert.equal(delivered.filter((d) => d.includes(r.json.id)).length, 0, 'nothing was delivered');
  assert.deepEqual(world.hits(), [], 'no canary was reached');
});
