// Billing, cache and rate limits through the real server (real Chromium, real HTTP on loopback),
// on both stores; and two server replicas on one PostgreSQL under parallel load, after which the
// ledger must be exact: credits spent = successful non-cached captures.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createKey } from './admin.ts';
import { openAccounts } from './index.ts';
import type { SqlLedger } from './ledger.ts';
import { startFixture, type Fixture } from '../../test/support/fixture.ts';
import { shoot, show, type Reply } from '../../test/support/http.ts';
import { startTestServer, testConfig, type TestServer } from '../../test/support/server.ts';
import { audit, STORES, type TestStore } from '../../test/support/stores.ts';

const html = (i: number | string) => ({
  html: `<body style="margin:0;background:#fff"><h1>capture ${i}</h1></body>`,
  viewport: { width: 320, height: 200 },
  waitUntil: 'load',
});

/** A loopback page at every path for url-mode captures; the server is told it is public (EGRESS_ALLOW). */
async function fixtureOrigin(): Promise<Fixture> {
  const fx = await startFixture();
  fx.route('/', (req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>fixture</title><h1>${req.url}</h1>`));
  return fx;
}

/** The server's env on a test store (its DATA_DIR or DATABASE_URL), cache on, no API_KEYS: keys are created per test. */
function storeEnv(store: TestStore, env: Record<string, string>): Record<string, string> {
  const c = store.config();
  return { API_KEYS: '', DATA_DIR: c.dataDir, DATABASE_URL: c.databaseUrl ?? '', RENDER_CONCURRENCY: '2', CACHE_TTL_SECONDS: '300', ...env };
}

async function books(l: SqlLedger, accountId: string) {
  const a = await audit(l.db, accountId);
  assert.equal(a.credits, a.ledgerSum, 'credits = sum of the ledger');
  assert.equal(a.held, 0, 'nothing left on hold');
  assert.equal(a.reservations, 0);
  return a;
}

for (const store of STORES) {
  describe(`billing through the server on ${store.name}`, { skip: store.skip }, () => {
    let s: TestStore;
    let fixture: Fixture;
    let ledger: SqlLedger;
    let server: TestServer;
    before(async () => {
      s = await store.make();
      fixture = await fixtureOrigin();
      const env = storeEnv(s, { RATE_LIMIT_PER_MINUTE: '1000' });
      ledger = await openAccounts(testConfig(env));
      server = await startTestServer(env, fixture, { accounts: ledger });
    });
    after(async () => {
      await server?.close(); // closes the ledger too
      await fixture?.close();
      await s?.destroy();
    });

    test('401 unauthorized with WWW-Authenticate for a missing, malformed or unknown key', async () => {
      for (const key of [null, 'sk_unknown_0000000000000000000000', 'bad key with spaces']) {
        const r = await shoot(server.url, html(0), { key });
        assert.equal(r.status, 401);
        assert.equal(r.json?.error, 'unauthorized');
        assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer/);
      }
    });

    test('N=12 parallel captures against K=4 credits: exactly 4 succeed and are billed, the rest 402', async () => {
      const { key, accountId } = await createKey(ledger.db, { credits: 4 });
      const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => shoot(server.url, html(`p${i}`), { key })));
      const ok = replies.filter((r) => r.status === 200);
      assert.equal(ok.length, 4);
      for (const r of ok) assert.equal(r.headers.get('x-credits-charged'), '1');
      // Spendable balance when each committed: credits still held by the others do not count.
      const remaining = ok.map((r) => Number(r.headers.get('x-credits-remaining')));
      assert.ok(remaining.every((n) => n >= 0 && n <= 3) && remaining.includes(0), String(remaining));
      for (const r of replies.filter((x) => x.status !== 200)) {
        assert.equal(r.status, 402);
        assert.equal(r.json?.error, 'insufficient_credits');
      }
      const a = await books(ledger, accountId);
      assert.equal(a.captures, 4);
      assert.equal(a.credits, 0);
    });

    test('failures are never billed: 400s and render errors release the credit', async () => {
      const { key, accountId } = await createKey(ledger.db, { credits: 5 });
      const bad = await shoot(server.url, { html: '<p>x</p>', quality: 50 }, { key });
      assert.equal(bad.status, 400);
      const missing = await shoot(server.url, { ...html(1), selector: '#nope' }, { key });
      assert.equal(missing.status, 400);
      assert.equal(missing.json?.error, 'selector_not_found');
      const blocked = await shoot(server.url, { url: 'http://169.254.169.254/latest/meta-data/' }, { key });
      assert.equal(blocked.status, 400);
      const ok = await shoot(server.url, html(2), { key });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('x-credits-remaining'), '4');
      const a = await books(ledger, accountId);
      assert.equal(a.captures, 1);
      assert.equal(a.credits, 4);
    });

    test('url results are cached per account (x-cache hit, not billed); no-cache renders fresh; html is never cached', async () => {
      const { key, accountId } = await createKey(ledger.db, { credits: 10 });
      const other = await createKey(ledger.db, { credits: 10 });
      const target = { url: `${fixture.origin}/page`, viewport: { width: 320, height: 200 }, waitUntil: 'load' };
      const first = await shoot(server.url, target, { key });
      assert.equal(first.status, 200, show(first));
      assert.equal(first.headers.get('x-cache'), 'miss');
      assert.equal(first.headers.get('x-credits-charged'), '1');
      const hitsAfterFirst = fixture.hits.length;
      const again = await shoot(server.url, { ...target, format: 'png', url: `${fixture.origin}/page` }, { key });
      assert.equal(again.headers.get('x-cache'), 'hit');
      assert.equal(again.headers.get('x-credits-charged'), '0');
      assert.equal(again.headers.get('x-credits-remaining'), '9');
      assert.equal(fixture.hits.length, hitsAfterFirst, 'a hit does not touch the target');
      const fresh = await shoot(server.url, target, { key, headers: { 'cache-control': 'no-cache' } });
      assert.equal(fresh.headers.get('x-cache'), 'miss');
      assert.equal(fresh.headers.get('x-credits-charged'), '1');
      const theirs = await shoot(server.url, target, { key: other.key });
      assert.equal(theirs.headers.get('x-cache'), 'miss', 'another account does not see this cache');
      for (let i = 0; i < 2; i++) {
        const h = await shoot(server.url, html('same'), { key });
        assert.equal(h.headers.get('x-cache'), 'miss');
        assert.equal(h.headers.get('x-credits-charged'), '1');
      }
      const a = await books(ledger, accountId);
      assert.equal(a.captures, 4, 'miss + no-cache + 2 html');
      assert.equal(a.credits, 6);
    });
  });

  describe(`rate limit through the server on ${store.name}`, { skip: store.skip }, () => {
    test('429 rate_limited with Retry-After, not billed', async () => {
      const s = await store.make();
      const env = storeEnv(s, { RATE_LIMIT_PER_MINUTE: '2' });
      // The ledger's clock stands still 15 s into a minute: the three requests share its window
      // whenever the test runs, and the wait until the next one is known.
      const ledger = await openAccounts(testConfig(env), { now: () => Date.UTC(2030, 0, 1, 12, 0, 15) });
      const server = await startTestServer(env, undefined, { accounts: ledger });
      try {
        const { key, accountId } = await createKey(ledger.db, { credits: 10 });
        const replies = await Promise.all([0, 1, 2].map((i) => shoot(server.url, html(`r${i}`), { key })));
        assert.deepEqual(replies.map((r) => r.status).sort(), [200, 200, 429]);
        const limited = replies.find((r) => r.status === 429)!;
        assert.equal(limited.json?.error, 'rate_limited');
        assert.equal(limited.headers.get('retry-after'), '45', 'the rest of the minute');
        const a = await books(ledger, accountId);
        assert.equal(a.captures, 2);
      } finally {
        await server.close();
        await s.destroy();
      }
    });
  });
}

describe('two server replicas on one PostgreSQL under parallel load', { skip: STORES[1]!.skip }, () => {
  test('the ledger is exact afterwards: credits spent = successful non-cached captures', async () => {
    const s = await STORES[1]!.make();
    const fixture = await fixtureOrigin();
    const env = storeEnv(s, { RATE_LIMIT_PER_MINUTE: '1000', QUEUE_LIMIT: '64' });
    const config = testConfig(env, fixture);
    const replicas = await Promise.all([0, 1].map(async () => startTestServer(env, fixture, { accounts: await openAccounts(config) })));
    const admin = await openAccounts(config, { syncEnvKeys: false });
    try {
      // Phase 1: N=24 distinct html captures against K=10 credits, spread over both replicas.
      const k1 = await createKey(admin.db, { credits: 10 });
      const p1 = await Promise.all(Array.from({ length: 24 }, (_, i) => shoot(replicas[i % 2]!.url, html(`a${i}`), { key: k1.key })));
      assert.equal(p1.filter((r) => r.status === 200).length, 10, 'exactly min(N, K) succeed');
      assert.equal(p1.filter((r) => r.status === 402).length, 14);
      const a1 = await books(admin, k1.accountId);
      assert.equal(a1.captures, 10);
      assert.equal(a1.credits, 0);

      // Phase 2: a mixed load with enough credits: html, repeated urls (cache hits per replica),
      // no-cache, failing requests. Billed = 200s that were not cache hits, exactly.
      const k2 = await createKey(admin.db, { credits: 100 });
      const jobs = Array.from({ length: 32 }, (_, i) => {
        const base = replicas[i % 2]!.url;
        switch (i % 4) {
          case 0:
            return () => shoot(base, html(`b${i}`), { key: k2.key });
          case 1:
            return () => shoot(base, { url: `${fixture.origin}/p${i % 3}`, viewport: { width: 320, height: 200 }, waitUntil: 'load' }, { key: k2.key });
          case 2:
            return () => shoot(base, { ...html(`c${i}`), selector: '#missing' }, { key: k2.key });
          default:
            return () =>
              shoot(
                base,
                { url: `${fixture.origin}/p${i % 3}`, viewport: { width: 320, height: 200 }, waitUntil: 'load' },
                { key: k2.key, headers: { 'cache-control': 'no-cache' } },
              );
        }
      });
      // Waves of 8 so that identical url requests can meet a filled cache.
      const replies: Reply[] = [];
      for (let w = 0; w < jobs.length; w += 8) replies.push(...(await Promise.all(jobs.slice(w, w + 8).map((j) => j()))));
      const ok = replies.filter((r) => r.status === 200);
      const hits = ok.filter((r) => r.headers.get('x-cache') === 'hit');
      const billed = ok.filter((r) => r.headers.get('x-cache') === 'miss');
      for (const r of hits) assert.equal(r.headers.get('x-credits-charged'), '0');
      for (const r of billed) assert.equal(r.headers.get('x-credits-charged'), '1');
      assert.equal(replies.filter((r) => r.status === 400).length, 8, 'selector_not_found');
      assert.equal(ok.length, 24);
      assert.ok(hits.length > 0, 'some url captures were served from a cache');
      const a2 = await books(admin, k2.accountId);
      assert.equal(a2.captures, billed.length, 'credits spent = successful non-cached captures');
      assert.equal(a2.credits, 100 - billed.length);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
      await admin.close();
      await fixture.close();
      await s.destroy();
    }
  });
});
