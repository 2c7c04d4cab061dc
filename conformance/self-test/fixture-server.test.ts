// The fixture server and canaries: pages with fonts inlined, delays, redirects, the second origin.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startCanary } from '../engine/canary.ts';
import { startFixtureServer, type FixtureServer } from '../fixture-pages/fixture-server.ts';

let fx: FixtureServer;
before(async () => (fx = await startFixtureServer()));
after(() => fx.close());

const get = async (url: string) => {
  const r = await request(url);
  return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
};

test('two origins, the second on another site name', () => {
  assert.equal(fx.origins.length, 2);
  assert.match(fx.origins[0]!, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(fx.origins[1]!, /^http:\/\/localhost:\d+$/);
});

test('pages are served with fonts inlined', async () => {
  const r = await get(`${fx.origins[0]}/pages/share-card.html`);
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /text\/html/);
  assert.match(r.text, /data:font\/woff2;base64,/);
});

test('/delay answers after the delay', async () => {
  const t0 = Date.now();
  const r = await get(`${fx.origins[0]}/delay?ms=300`);
  assert.equal(r.text, 'ok');
  assert.ok(Date.now() - t0 >= 280);
});

test('/hold?key=K is held until /release?key=K answers it; a hold after its release is answered at once', async () => {
  const key = `k${Math.random().toString(36).slice(2)}`;
  let answered = false;
  const held = get(`${fx.origins[0]}/hold?key=${key}`).then((r) => ((answered = true), r));
  await new Promise((r) => setTimeout(r, 300)); // a window on purpose: the hold must not answer within it
  assert.equal(answered, false, 'held until released');
  const rel = await get(`${fx.origins[1]}/release?key=${key}`);
  assert.equal(rel.text, 'released 1', 'the release reaches holds of either origin');
  assert.equal((await held).text, 'released');
  assert.equal((await get(`${fx.origins[0]}/hold?key=${key}`)).text, 'released');
  const other = await get(`${fx.origins[0]}/release?key=${key}-other`);
  assert.equal(other.text, 'released 0');
});

test('/redirect redirects with the given status', async () => {
  const r = await request(`${fx.origins[0]}/redirect?status=307&to=/pages/plain.html`);
  await r.body.dump();
  assert.equal(r.statusCode, 307);
  assert.equal(r.headers.location, '/pages/plain.html');
});

test('the second origin serves consent/origin2 at its root and consent pages get its URL', async () => {
  // The consent fixtures are committed (fixtures/consent/) and shipped in the package: a 404 is breakage.
  const r = await get(`${fx.origins[0]}/consent/sourcepoint-iframe.html`);
  assert.equal(r.status, 200, 'the consent fixture sourcepoint-iframe.html is served');
  assert.ok(r.text.includes(fx.origins[1]!));
  assert.ok(!r.text.includes('__SECOND_ORIGIN__'));
  const idx = await get(`http://127.0.0.1:${new URL(fx.origins[1]!).port}/index.html`);
  assert.equal(idx.status, 200);
  const manifest = await get(`${fx.origins[0]}/consent/manifest.json`);
  assert.equal(manifest.status, 200, 'the consent manifest is served');
});

test('no path escapes the fixture directories', async () => {
  const r = await get(`${fx.origins[0]}/pages/..%2f..%2fpackage.json`);
  assert.notEqual(r.status, 200);
});

test('a canary counts connections and answers with magenta', async () => {
  const c = await startCanary();
  try {
    assert.equal(c.connections(), 0);
    const r = await get(c.url('/x'));
    assert.match(r.text, /CANARY/);
    assert.equal(c.connections(), 1);
    assert.equal(c.url('/p', 'decimal'), `http://2130706433:${c.port}/p`);
  } finally {
    await c.close();
  }
});
