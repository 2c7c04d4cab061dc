// Billing as the API shows it (spec §1, §7 "Failed requests are never billed", §8 cost; DESIGN §3
// headers, 402, 429): a success charges exactly 1, any failure (>= 400) charges nothing, a cache
// hit charges 0, an empty key gets 402, and the per-key rate limit answers 429 with Retry-After.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { OTHER_KEY, TEST_KEY, type TestServer, startTestServer, testConfig } from '../support/server.ts';
import { shoot, show, type Reply } from '../support/http.ts';
import { sleep } from '../support/wait.ts';
import { SqlLedger } from '../../server/accounts/ledger.ts';
import { openAccounts } from '../../server/accounts/index.ts';

const FREE = 6;
const viewport = { width: 32, height: 24 };
const HTML = '<body style="margin:0;background:#0a0"></body>';

let fx: Fixture;
let srv: TestServer;
let limited: TestServer;
let limitedDir: string | undefined;

before(async () => {
  fx = await startFixture();
  page(fx, '/a', '<body style="margin:0;background:#00f"></body>');
  page(fx, '/b', '<body style="margin:0;background:#f0f"></body>');
  page(fx, '/static', '<body style="margin:0;background:#ff0">static</body>');
  srv = await startTestServer({ FREE_CREDITS: String(FREE), CACHE_TTL_SECONDS: '300', RENDER_BUDGET_MS: '3000' }, fx);
  // The rate limit's clock stands still 15 s into a minute: the three requests of the test share
  // its window whenever it runs, and Retry-After is the rest of that minute.
  const env = { RATE_LIMIT_PER_MINUTE: '2', DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'billing-limited-')) };
  limitedDir = env.DATA_DIR;
  limited = await startTestServer(env, fx, { accounts: await openAccounts(testConfig(env, fx), { now: () => Date.UTC(2030, 0, 1, 12, 0, 15) }) });
});

after(async () => {
  await Promise.all([srv?.close(), limited?.close()]);
  if (limitedDir) rmSync(limitedDir, { recursive: true, force: true });
  await fx?.close();
});

async function balance(key = TEST_KEY): Promise<number> {
  const acct = await srv.server.accounts.authenticate(key);
  assert.ok(acct);
  return srv.server.accounts.balance(acct);
}

function charged(r: Reply, credits: 0 | 1, remaining: number): void {
  assert.equal(r.status, 200, show(r));
  assert.equal(r.headers.get('x-credits-charged'), String(credits), 'x-credits-charged');
  assert.equal(r.headers.get('x-credits-remaining'), String(remaining), 'x-credits-remaining');
}

describe('credits (spec §1, §8; DESIGN §3)', () => {
  test('a new key starts with the free allowance; a success charges exactly 1', async () => {
    assert.equal(await balance(), FREE);
    const r = await shoot(srv.url, { html: HTML, viewport, waitUntil: 'load' });
    charged(r, 1, FREE - 1);
    assert.equal(r.headers.get('x-cache'), 'miss');
    assert.equal(await balance(), FREE - 1);
  });

  test('failures of every kind charge nothing and leave x-credits-remaining unchanged', async () => {
    const start = await balance();
    const failures: Array<[string, () => Promise<Reply>, number]> = [
      ['malformed field', () => shoot(srv.url, { html: HTML, viewport: { width: 0, height: 1 } }), 400],
      ['both url and html', () => shoot(srv.url, { html: HTML, url: `${fx.origin}/a` }), 400],
      ['quality with png', () => shoot(srv.url, { html: HTML, quality: 50 }), 400],
      ['malformed JSON', () => shoot(srv.url, undefined, { raw: '{"html":' }), 400],
      ['selector not found (rendered, then failed)', () => shoot(srv.url, { html: HTML, selector: '#none', viewport, waitUntil: 'load' }), 400],
      ['render timeout', () => shoot(srv.url, { html: HTML, waitForSelector: '#never', viewport, waitUntil: 'load' }), 504],
      ['html too large', () => shoot(srv.url, { html: 'x'.repeat(2_000_001) }), 413],
      ['not JSON', () => shoot(srv.url, undefined, { raw: 'html=x', contentType: 'text/plain' }), 415],
      ['wrong key', () => shoot(srv.url, { html: HTML }, { key: 'not-the-key-0123456789abcdef' }), 401],
    ];
    for (const [what, send, status] of failures) {
      const r = await send();
      assert.equal(r.status, status, `${what}: ${show(r)}`);
      assert.equal(r.headers.get('x-credits-charged'), null, `${what}: no charge header`);
      assert.equal(await balance(), start, `${what}: balance unchanged`);
    }
    const next = await shoot(srv.url, { html: HTML, viewport, waitUntil: 'load' });
    charged(next, 1, start - 1);
  });

  test('a url-mode cache hit charges 0; Cache-Control: no-cache renders and charges 1', async () => {
    const start = await balance();
    const body = { url: `${fx.origin}/static`, viewport, waitUntil: 'load' };
    const first = await shoot(srv.url, body);
    charged(first, 1, start - 1);
    assert.equal(first.headers.get('x-cache'), 'miss');
    const hit = await shoot(srv.url, body);
    charged(hit, 0, start - 1);
    assert.equal(hit.headers.get('x-cache'), 'hit');
    assert.deepEqual(hit.body, first.body, 'the same image');
    const fresh = await shoot(srv.url, body, { headers: { 'cache-control': 'no-cache' } });
    charged(fresh, 1, start - 2);
    assert.equal(fresh.headers.get('x-cache'), 'miss');
  });

  test('html renders are never cached: the same html twice is rendered and charged twice', async () => {
    const start = await balance();
    const body = { html: '<body style="background:#123">same</body>', viewport, waitUntil: 'load' };
    const a = await shoot(srv.url, body);
    charged(a, 1, start - 1);
    assert.equal(a.headers.get('x-cache'), 'miss');
    const b = await shoot(srv.url, body);
    charged(b, 1, start - 2);
    assert.equal(b.headers.get('x-cache'), 'miss');
  });

  test('an empty key: 402 insufficient_credits, not billed; validation still comes first', async () => {
    assert.equal(await balance(), 0, 'the allowance is spent (test precondition)');
    const r = await shoot(srv.url, { html: HTML, viewport, waitUntil: 'load' });
    assert.equal(r.status, 402, show(r));
    assert.equal(r.json?.error, 'insufficient_credits');
    assert.equal(typeof r.json?.message, 'string');
    assert.equal(r.headers.get('x-credits-charged'), null);
    assert.equal(await balance(), 0);
    const bad = await shoot(srv.url, { html: HTML, viewport: { width: 0, height: 1 } });
    assert.equal(bad.status, 400, 'a malformed request is 400 whatever the balance');
    const uncached = await shoot(srv.url, { url: `${fx.origin}/b`, viewport, waitUntil: 'load' });
    assert.equal(uncached.status, 402, show(uncached));
  });

  test('a cached result is served free even to an empty key', async () => {
    const hit = await shoot(srv.url, { url: `${fx.origin}/static`, viewport, waitUntil: 'load' });
    charged(hit, 0, 0);
    assert.equal(hit.headers.get('x-cache'), 'hit');
  });

  test('credits are per key: the other key still has its allowance', async () => {
    const r = await shoot(srv.url, { html: HTML, viewport, waitUntil: 'load' }, { key: OTHER_KEY });
    charged(r, 1, FREE - 1);
    assert.equal(await balance(OTHER_KEY), FREE - 1);
    assert.equal(await balance(TEST_KEY), 0);
  });
});

describe('x-credits-charged says what the ledger charged', () => {
  test('a reservation swept before its commit (its lease ran out): the capture is answered with x-credits-charged 0', async () => {
    const acct = (await srv.server.accounts.authenticate(OTHER_KEY))!;
    const before = await balance(OTHER_KEY);
    const html = `<body style="margin:0;background:#0a0"><script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<i id=late></i>'), 1200)</script></body>`;
    const pending = shoot(srv.url, { html, waitForSelector: '#late', waitUntil: 'load', viewport }, { key: OTHER_KEY });
    // While it renders, its lease runs out (a stalled process, a database outage) and the sweep
    // of another replica on the same store releases it: what a lease expiry does, on the clock.
    let swept = 0;
    for (let i = 0; i < 40 && swept === 0; i++) {
      await sleep(25);
      await srv.server.accounts.db.query('UPDATE reservations SET expires_at = now() - make_interval(secs => 1) WHERE account_id = $1', [acct.id]);
      const other = new SqlLedger(
        {
          kind: srv.server.accounts.db.kind,
          query: (q, p) => srv.server.accounts.db.query(q, p),
          tx: (fn) => srv.server.accounts.db.tx(fn),
          close: async () => {},
        },
        { rateLimitPerMinute: 0, sweepIntervalMs: 0 },
      );
      swept = await other.sweep();
      await other.close();
    }
    assert.equal(swept, 1, "the render's reservation was swept");
    const r = await pending;
    charged(r, 0, before);
    assert.equal(await balance(OTHER_KEY), before, 'nothing was charged');
  });

  test('credits spent elsewhere while this process remembers some: the reservation made beside the render refuses it, 402, the render cut short, nothing held', async () => {
    const acct = (await srv.server.accounts.authenticate(OTHER_KEY))!;
    const first = await shoot(srv.url, { html: HTML, viewport, waitUntil: 'load' }, { key: OTHER_KEY });
    assert.equal(first.status, 200, show(first));
    assert.ok(Number(first.headers.get('x-credits-remaining')) >= 2, 'this process last saw credits to spare (test precondition)');
    // Another replica spends them all: this process still remembers the balance of its last commit.
    await srv.server.accounts.db.query('UPDATE accounts SET credits = held WHERE id = $1', [acct.id]);
    // A wait that never ends: the render would run into its budget (504) unless the refused
    // reservation cut it short.
    const r = await shoot(srv.url, { html: HTML, viewport, waitUntil: 'load', waitForSelector: '#never' }, { key: OTHER_KEY });
    assert.equal(r.status, 402, show(r));
    assert.equal(r.json?.error, 'insufficient_credits');
    assert.equal(r.headers.get('x-credits-charged'), null);
    const [row] = await srv.server.accounts.db.query<{ credits: number; held: number }>('SELECT credits, held FROM accounts WHERE id = $1', [acct.id]);
    assert.equal(Number(row!.held), 0, 'no credit is left on hold');
    assert.equal(await balance(OTHER_KEY), 0);
  });
});

describe('rate limit (DESIGN §3: 429 rate_limited with Retry-After)', () => {
  test('the third request of a minute is 429 with Retry-After; other keys are not affected', async () => {
    const body = { html: HTML, viewport, waitUntil: 'load' };
    for (let i = 0; i < 2; i++) assert.equal((await shoot(limited.url, body)).status, 200);
    const r = await shoot(limited.url, body);
    assert.equal(r.status, 429, show(r));
    assert.equal(r.json?.error, 'rate_limited');
    assert.equal(r.headers.get('retry-after'), '45', 'the rest of the minute');
    assert.equal(r.headers.get('x-credits-charged'), null, 'not billed');
    const other = await shoot(limited.url, body, { key: OTHER_KEY });
    assert.equal(other.status, 200, `per key: ${show(other)}`);
  });
});
