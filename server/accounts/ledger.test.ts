// The billing rules at the ledger level (spec §1 billing, §8; DESIGN §2, §3), on both stores
// (embedded PGlite and PostgreSQL): keys, free allowance, reserve/commit/release, 402, N parallel
// requests against K credits, a reservation nobody renews, grants, rate limits. Restarts, crashes,
// replicas, API_KEYS and the dev key are in lifecycle.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../errors.ts';
import { createKey, grant, listKeys, revokeKey } from './admin.ts';
import { SqlLedger } from './ledger.ts';
import { assertBooks, newAccount, STORES, type TestStore } from '../../test/support/stores.ts';
import { eventually, sleep } from '../../test/support/wait.ts';

const isCode = (code: string) => (e: unknown) => e instanceof ServiceError && e.code === code;

for (const store of STORES) {
  describe(`ledger on ${store.name}`, { skip: store.skip }, () => {
    let s: TestStore;
    let l: SqlLedger;
    before(async () => {
      s = await store.make();
      l = await s.open({}, { leaseSeconds: 1 });
    });
    after(async () => {
      await l?.close();
      await s?.destroy();
    });

    test('a new key is random, shown once, stored hashed, and starts with the free allowance', async () => {
      const a = await createKey(l.db, { credits: 100, label: 'alice' });
      const b = await createKey(l.db, { credits: 100 });
      assert.match(a.key, /^sk_[A-Za-z0-9_-]{43}$/);
      assert.notEqual(a.key, b.key);
      assert.equal(a.credits, 100);
      const account = await l.authenticate(a.key);
      assert.deepEqual(account, { id: a.accountId, keyId: a.keyId });
      assert.equal(await l.balance(account!), 100);
      // The plaintext is nowhere in the store: not in any column of any table.
      const dump = JSON.stringify(await l.db.query('SELECT k.*, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id'));
      assert.ok(!dump.includes(a.key) && !dump.includes(a.key.slice(12)), 'no plaintext key stored');
      const row = (await listKeys(l.db)).find((k) => k.keyId === a.keyId)!;
      assert.equal(row.prefix, a.key.slice(0, 10));
      assert.equal(row.label, 'alice');
      await assertBooks(l, a.accountId, { credits: 100, held: 0, captures: 0 });
    });

    test('reserveAlongside: credits to spare as last seen by this process (a commit, a balance), each taken from the guess; none after a refusal or for an unknown account', async () => {
      const { account } = await newAccount(l, 4);
      assert.equal(l.reserveAlongside(account), false, 'never seen: reserved before the render');
      await l.commit(await l.reserve(account));
      // 3 left as seen: two requests at once may go ahead (3, then 2 in the guess), not a third
      assert.equal(l.reserveAlongside(account), true);
      assert.equal(l.reserveAlongside(account), true);
      assert.equal(l.reserveAlongside(account), false, 'one spare credit left in the guess');
      await l.commit(await l.reserve(account));
      assert.equal(l.reserveAlongside(account), true, '2 left as the commit says');
      await l.commit(await l.reserve(account));
      assert.equal(l.reserveAlongside(account), false, '1 left: no credit to spare');
      await l.commit(await l.reserve(account));
      await assert.rejects(l.reserve(account), isCode('insufficient_credits'));
      await grant(l.db, account.id, 5);
      assert.equal(l.reserveAlongside(account), false, 'a grant elsewhere is not seen until a balance or commit');
      assert.equal(await l.balance(account), 5);
      assert.equal(l.reserveAlongside(account), true);
    });

    test('unknown, malformed and revoked keys do not authenticate', async () => {
      const { key, account } = await newAccount(l);
      assert.equal(await l.authenticate(key + 'x'), null);
      assert.equal(await l.authenticate(''), null);
      assert.equal(await l.authenticate('sk_' + 'A'.repeat(43)), null);
      assert.equal(await l.authenticate('x'.repeat(5000)), null);
      assert.equal(await revokeKey(l.db, account.keyId!), true);
      assert.equal(await l.authenticate(key), null);
      assert.equal(await revokeKey(l.db, account.keyId!), false, 'already revoked');
      assert.equal(await revokeKey(l.db, 'key_nope'), false);
    });

    test('a second key of an account shares its credits and gets no second allowance', async () => {
      const { account } = await newAccount(l);
      const second = await createKey(l.db, { accountId: account.id, credits: 100 });
      assert.equal(second.credits, 100);
      const acc2 = await l.authenticate(second.key);
      assert.equal(acc2?.id, account.id);
      await l.commit(await l.reserve(acc2!));
      assert.equal(await l.balance(account), 99);
      await assertBooks(l, account.id, { credits: 99, captures: 1 });
      await assert.rejects(createKey(l.db, { accountId: 'acc_missing', credits: 1 }), /no account/);
    });

    test('reserve then commit bills one credit; reserve then release bills nothing', async () => {
      const { account } = await newAccount(l);
      const r1 = await l.reserve(account);
      assert.equal(await l.balance(account), 99, 'held credits are not spendable');
      assert.deepEqual(await l.commit(r1), { charged: 1, remaining: 99 });
      await assertBooks(l, account.id, { credits: 99, held: 0, captures: 1 });
      const r2 = await l.reserve(account);
      await l.release(r2);
      assert.equal(await l.balance(account), 99);
      await assertBooks(l, account.id, { credits: 99, held: 0, captures: 1 });
    });

    test('commit and release happen at most once per reservation', async () => {
      const { account } = await newAccount(l, 10);
      const r = await l.reserve(account);
      const results = await Promise.all([l.commit(r), l.commit(r), l.release(r)]);
      assert.deepEqual(
        results
          .slice(0, 2)
          .map((c) => c?.charged)
          .sort(),
        [0, 1],
        'one commit charged, the other says it did not',
      );
      assert.deepEqual(
        results.slice(0, 2).map((c) => c?.remaining),
        [9, 9],
      );
      await assertBooks(l, account.id, { credits: 9, held: 0, captures: 1 });
      const r2 = await l.reserve(account);
      await l.release(r2);
      await l.release(r2);
      assert.deepEqual(await l.commit(r2), { charged: 0, remaining: 9 }, 'a released reservation is never charged');
      await assertBooks(l, account.id, { credits: 9, held: 0, captures: 1 });
    });

    test('no credits left: 402 insufficient_credits, balance stays at 0', async () => {
      const { account } = await newAccount(l, 1);
      await l.commit(await l.reserve(account));
      await assert.rejects(l.reserve(account), isCode('insufficient_credits'));
      assert.equal(new ServiceError('insufficient_credits', '').status, 402);
      assert.equal(await l.balance(account), 0);
      const { account: empty } = await newAccount(l, 0);
      await assert.rejects(l.reserve(empty), isCode('insufficient_credits'));
      await assertBooks(l, empty.id, { credits: 0, held: 0, captures: 0 });
    });

    test('N=30 parallel captures against K=7 credits: exactly 7 succeed and are billed', async () => {
      const { account } = await newAccount(l, 7);
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          let r;
          try {
            r = await l.reserve(account);
          } catch (e) {
            if (isCode('insufficient_credits')(e)) return 'refused';
            throw e;
          }
          await sleep(5 + (i % 4) * 5); // the render
          await l.commit(r);
          return 'billed';
        }),
      );
      assert.equal(outcomes.filter((o) => o === 'billed').length, 7);
      assert.equal(await l.balance(account), 0);
      await assertBooks(l, account.id, { credits: 0, held: 0, captures: 7 });
    });

    test('parallel captures where some renders fail: only successes are billed', async () => {
      const { account } = await newAccount(l, 10);
      let billed = 0;
      await Promise.all(
        Array.from({ length: 24 }, async (_, i) => {
          let r;
          try {
            r = await l.reserve(account);
          } catch (e) {
            if (isCode('insufficient_credits')(e)) return;
            throw e;
          }
          await sleep(i % 5);
          if (i % 3 === 0) return l.release(r); // a failed render
          await l.commit(r);
          billed++;
        }),
      );
      const b = await l.balance(account);
      assert.equal(b, 10 - billed);
      assert.ok(billed >= 1 && billed <= 10);
      await assertBooks(l, account.id, { credits: 10 - billed, held: 0, captures: billed });
    });

    test('a reservation whose process stops renewing is released by the sweep, never committed', async () => {
      // `l` runs with a 1 s lease, renewed every 1/3 s while the reservation is in flight.
      // `gone` stands for a second process on the same store (it shares l's connection): it
      // reserves, then stops as a crash would (its timers end; the reservation row stays).
      const { account } = await newAccount(l, 5);
      const gone = new SqlLedger(
        { kind: l.db.kind, query: (q, p) => l.db.query(q, p), tx: (fn) => l.db.tx(fn), close: async () => {} },
        { rateLimitPerMinute: 0, leaseSeconds: 1, sweepIntervalMs: 0 },
      );
      const lost = await gone.reserve(account);
      await gone.close(); // its process "crashed": nobody renews it any more
      const kept = await l.reserve(account);
      assert.equal(await l.balance(account), 3);
      // Swept as soon as its lease has run out, whenever that is on a busy machine.
      let swept = 0;
      assert.ok(await eventually(async () => (swept += await l.sweep()) > 0, 15_000, 100), 'the abandoned reservation is released');
      assert.equal(swept, 1, 'only the abandoned reservation is released');
      assert.equal(await l.balance(account), 4);
      assert.deepEqual(await l.commit(lost), { charged: 0, remaining: 4 }, 'a swept reservation is never charged, and commit says so');
      assert.deepEqual(await l.commit(kept), { charged: 1, remaining: 4 }, 'the renewed one is still there and is charged');
      await assertBooks(l, account.id, { credits: 4, held: 0, captures: 1 });
    });

    test('grants add and remove credits, never below what is held', async () => {
      const { account } = await newAccount(l, 2);
      assert.deepEqual(await grant(l.db, account.id, 10, 'top-up'), { accountId: account.id, credits: 12 });
      assert.deepEqual(await grant(l.db, account.keyId!, 3), { accountId: account.id, credits: 15 }, 'by key id');
      await l.reserve(account);
      await assert.rejects(grant(l.db, account.id, -15), /fewer than 15 spendable/);
      assert.equal((await grant(l.db, account.id, -14)).credits, 0);
      await assert.rejects(grant(l.db, 'acc_missing', 1), /no account or key/);
      await assert.rejects(grant(l.db, account.id, 1.5), /non-zero integer/);
      await assertBooks(l, account.id, { credits: 1, held: 1 });
    });

    test('rate limit 0 means off', async () => {
      const { account } = await newAccount(l);
      for (let i = 0; i < 50; i++) await l.checkRateLimit(account);
    });
  });

  describe(`rate limit on ${store.name}`, { skip: store.skip }, () => {
    test('N per minute per account, then 429 rate_limited with Retry-After until the next minute', async () => {
      const s = await store.make();
      let now = Date.UTC(2030, 0, 1, 12, 0, 15); // 15 s into a minute
      const l = await s.open({ rateLimitPerMinute: 3 }, { now: () => now });
      try {
        const { account } = await newAccount(l);
        const { account: other } = await newAccount(l);
        for (let i = 0; i < 3; i++) await l.checkRateLimit(account);
        const err = await l.checkRateLimit(account).then(
          () => null,
          (e) => e,
        );
        assert.ok(isCode('rate_limited')(err), 'the fourth request in the minute is refused');
        assert.equal((err as ServiceError).status, 429);
        assert.equal((err as ServiceError).facts.retryAfterSeconds, 45);
        await l.checkRateLimit(other); // per account
        now += 40_500;
        await assert.rejects(l.checkRateLimit(account), (e: ServiceError) => e.facts.retryAfterSeconds === 5);
        now += 4_500; // the next minute
        await l.checkRateLimit(account);
        await l.sweep(); // drops old windows
        const windows = await l.db.query('SELECT window_start FROM rate_windows');
        assert.ok(windows.length >= 1 && windows.length <= 4);
      } finally {
        await l.close();
        await s.destroy();
      }
    });
  });
}
