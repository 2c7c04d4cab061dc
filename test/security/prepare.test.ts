// The egress guard sees everything the caller's own script and actions make the page do
// (server/prepare/, server/blocking/; DESIGN §4: security is not a feature flag). Inside the network
// namespace (run-in-netns.sh) with the battery's world: canaries on the metadata, private and
// loopback addresses. `js` that fetches the link-local metadata address and a loopback port, opens
// a websocket to one and loads an image of one, css whose url() points at one, a click on a link to
// one, and the same with request blocking on: each is refused by the proxy (its log shows the
// refusal: the attempt really happened), and no canary ever sees a connection.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningServer } from '../../server/start.ts';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';
import { tcpCanary } from './lib/canary.ts';
import { buildWorld, INTERNAL, type World } from './lib/world.ts';

let world: World;
let srv: TestServer;
let server: RunningServer;

before(async () => {
  world = await buildWorld();
  srv = await startTestServer({ FREE_CREDITS: '1000', RENDER_CONCURRENCY: '1', RENDER_BUDGET_MS: '15000' }, world.localSite);
  server = srv.server;
});
after(async () => {
  await srv?.close();
  await world?.close();
});
afterEach(() => assert.deepEqual(world.hits(), [], 'a canary was reached'));

async function shoot(body: Record<string, unknown>): Promise<{ status: number; json?: { error: string; message: string }; headers: Headers }> {
  const res = await fetch(`${server.url}/v1/screenshot`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ waitUntil: 'networkidle0', blockCookieBanners: false, viewport: { width: 200, height: 100 }, ...body }),
  });
  const json = (res.headers.get('content-type') ?? '').includes('json')
    ? ((await res.json()) as { error: string; message: string })
    : (await res.arrayBuffer(), undefined);
  return { status: res.status, json, headers: res.headers };
}

/** The proxy's refusals while fn runs, as host:port. */
async function refusedDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const from = server.guard.stats();
  const n = from.allowed + from.refused + from.failed;
  await fn();
  await new Promise((r) => setTimeout(r, 100));
  const to = server.guard.stats();
  const added = to.allowed + to.refused + to.failed - n;
  return (added > 0 ? to.recent.slice(-added) : []).filter((e) => e.decision === 'refused').map((e) => e.origin);
}

const METADATA = `http://${INTERNAL.metadata}/latest/meta-data/`;
const LOOPBACK = `http://${INTERNAL.loopback}:80/`;
/**
 * js that tries them all, waits for the outcomes, and fails the render (422) if any read an answer.
 * (The proxy answers a refused plain-http request with an empty 403 of its own, without CORS
 * headers: the page cannot read it, so a CORS fetch fails as for a refused connection.)
 */
const FETCH_BOTH = `const tries = [${JSON.stringify(METADATA)}, ${JSON.stringify(LOOPBACK)}].map((u) => fetch(u).then(() => 'reached ' + u, () => 'refused'));
const out = await Promise.all(tries);
const ws = await new Promise((r) => { const s = new WebSocket('ws://${INTERNAL.loopback2}:80/'); s.onopen = () => r('open'); s.onerror = () => r('refused'); });
const img = await new Promise((r) => { const i = new Image(); i.onload = () => r('loaded'); i.onerror = () => r('refused'); i.src = 'http://${INTERNAL.private10}/pixel.png'; });
if ([...out, ws, img].some((x) => x !== 'refused')) throw new Error([...out, ws, img].join(', '));`;

test('js: fetch to the metadata address and a loopback port, a websocket and an image of internal addresses: refused by the guard, no canary reached', async () => {
  let r: Awaited<ReturnType<typeof shoot>> | undefined;
  const refused = await refusedDuring(async () => (r = await shoot({ html: '<p>x</p>', js: FETCH_BOTH })));
  assert.equal(r!.status, 200, JSON.stringify(r!.json));
  for (const origin of [`${INTERNAL.metadata}:80`, `${INTERNAL.loopback}:80`, `${INTERNAL.loopback2}:80`, `${INTERNAL.private10}:80`])
    assert.ok(refused.includes(origin), `${origin} refused: ${refused}`);
});

test('the same with request blocking on (types and patterns that do not match them): still refused by the guard', async () => {
  let r: Awaited<ReturnType<typeof shoot>> | undefined;
  const refused = await refusedDuring(
    async () => (r = await shoot({ html: '<p>x</p>', js: FETCH_BOTH, blockResourceTypes: ['font', 'media'], blockUrls: ['*://ads.example/*'] })),
  );
  assert.equal(r!.status, 200, JSON.stringify(r!.json));
  for (const origin of [`${INTERNAL.metadata}:80`, `${INTERNAL.loopback}:80`]) assert.ok(refused.includes(origin), `${origin} refused: ${refused}`);
});

test('a refused websocket (blocking) opens nothing: not the port-1 stand-in the page is given, not the proxy', async () => {
  const port1 = await tcpCanary('127.0.0.1', 1);
  try {
    let r: Awaited<ReturnType<typeof shoot>> | undefined;
    const js = `return new Promise((r) => { const s = new WebSocket('ws://${world.localSite.hostPort}/socket'); s.onopen = () => r(); s.onerror = () => r(); });`;
    const refused = await refusedDuring(async () => (r = await shoot({ html: '<p>x</p>', js, blockResourceTypes: ['websocket'] })));
    assert.equal(r!.status, 200, JSON.stringify(r!.json));
    assert.equal(r!.headers.get('x-blocked-requests'), '1');
    assert.deepEqual(refused, [], 'nothing reached the proxy');
    assert.deepEqual(port1.hits, [], 'the browser refused port 1 itself');
  } finally {
    await port1.close();
  }
});

test('css whose url() points at the metadata address: refused, no canary reached', async () => {
  const refused = await refusedDuring(() =>
    shoot({ html: '<div id="a" style="width:10px;height:10px"></div>', css: `#a { background: url(${METADATA}x.png) }` }),
  );
  assert.ok(refused.includes(`${INTERNAL.metadata}:80`), String(refused));
});

test('an action that clicks a link to the metadata address: 400 naming the blocked navigation, free', async () => {
  const before = await srv.server.accounts.balance((await srv.server.accounts.authenticate(TEST_KEY))!);
  const r = await shoot({
    html: `<a id="go" href="${METADATA}" style="display:block;width:100px;height:50px">go</a>`,
    actions: [{ click: '#go' }, { wait: 3000 }],
  });
  assert.equal(r.status, 400, JSON.stringify(r.json));
  assert.match(r.json!.message, /169\.254\.169\.254/);
  assert.equal(await srv.server.accounts.balance((await srv.server.accounts.authenticate(TEST_KEY))!), before);
});
