// The shared result cache on both stores (embedded PGlite, PostgreSQL): TTL and max age, the size
// cap with least-recently-used eviction, and single flight: of identical requests arriving
// together one leads and the others are served its entry; a leader that ends without an entry, or
// whose claim expires (a crash), hands the lead to a waiter. On PostgreSQL two "replicas" (two
// connections, two cache instances) share entries and flights.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pictureFacts } from '../../test/support/facts.ts';
import { STORES, type TestStore } from '../../test/support/stores.ts';
import type { SqlLedger } from '../accounts/ledger.ts';
import type { CachedResult, ResultCache } from './index.ts';
import { openSharedCache, type SharedCacheOptions } from './shared.ts';
import { entryBytes } from './sql.ts';
import { ServiceError } from '../errors.ts';

const result = (bytes: number, tag = 'x'): CachedResult => ({
  body: Buffer.alloc(bytes, tag),
  contentType: 'image/png',
  picture: pictureFacts({ etag: `"${tag}"`, targetStatus: 404 }),
  width: 10,
  height: 10,
});

for (const { name, make, skip } of STORES) {
  describe(`shared result cache: ${name}`, { skip }, () => {
    let store: TestStore | undefined;
    const ledgers: SqlLedger[] = [];
    let clock = 1_700_000_000_000;
    const now = () => clock;

    /**
     * `n` cache instances (n > 1: replicas, PostgreSQL only) on one store per suite (opening a
     * PGlite store costs seconds), emptied first so that every test starts from nothing.
     */
    async function caches(opts: Partial<SharedCacheOptions> = {}, n = 1): Promise<ResultCache[]> {
      store ??= await make();
      while (ledgers.length < n) ledgers.push(await store.open());
      const made = ledgers.slice(0, n).map((l) => openSharedCache(l.db, { ttlSeconds: 300, maxBytes: 1 << 20, leaseMs: 5000, pollMs: 10, now, ...opts }));
      await ledgers[0]!.db.query('DELETE FROM result_cache');
      await ledgers[0]!.db.query('DELETE FROM result_cache_flights');
      return made;
    }

    after(async () => {
      for (const l of ledgers) await l.close();
      await store?.destroy();
    });

    test('an entry is served until its TTL, then gone; maxAgeSeconds bounds the age at lookup', async () => {
      const [c] = await caches();
      await c!.set('k', result(100));
      const stored = clock;
      clock += 299_999;
      const hit = await c!.get('k');
      assert.equal(hit?.body.length, 100);
      assert.equal(hit?.storedAt, stored);
      assert.deepEqual(hit?.picture, result(1).picture, "the picture's facts come back as stored");
      assert.equal(await c!.get('k', { maxAgeSeconds: 299 }), undefined, 'older than max age');
      assert.ok(await c!.get('k', { maxAgeSeconds: 300 }));
      clock += 1;
      assert.equal(await c!.get('k'), undefined, 'expired');
      await c!.set('short', result(10), { ttlSeconds: 1 });
      clock += 999;
      assert.ok(await c!.get('short'), 'a per-entry TTL');
      clock += 1;
      assert.equal(await c!.get('short'), undefined);
    });

    test('the total stays under maxBytes by evicting the least recently used; a larger entry is not stored', async () => {
      const one = entryBytes('a', result(1000));
      const [c] = await caches({ maxBytes: 3 * one + 10 });
      for (const k of ['a', 'b', 'c']) {
        await c!.set(k, result(1000, k));
        clock += 1;
      }
      assert.ok(await c!.get('a')); // a is now the most recently used
      clock += 1;
      await c!.set('d', result(1000, 'd'));
      assert.equal(await c!.get('b'), undefined, 'b was the least recently used');
      for (const k of ['a', 'c', 'd']) assert.equal((await c!.get(k))?.body.toString(), k.repeat(1000));
      await c!.set('huge', result(10_000));
      assert.equal(await c!.get('huge'), undefined, 'an entry larger than the cache is not stored');
      assert.ok(await c!.get('d'), 'and evicts nothing');
      await c!.set('d', result(1000, 'e'));
      assert.equal((await c!.get('d'))?.body.toString(), 'e'.repeat(1000), 'a set replaces the entry');
    });

    test('a TTL or size of 0 turns the cache off', async () => {
      for (const o of [{ ttlSeconds: 0 }, { maxBytes: 0 }]) {
        const [c] = await caches(o);
        assert.equal(c!.enabled, false);
        await c!.set('k', result(10));
        assert.equal(await c!.get('k'), undefined);
        const a = await c!.acquire('k');
        const b = await c!.acquire('k');
        assert.ok(a.lead && b.lead, 'no single flight without a cache');
      }
    });

    test('single flight: one of five identical requests leads, the others get its entry as joined hits', async () => {
      const [c] = await caches();
      const first = await c!.acquire('same');
      assert.ok(first.lead, 'the first one leads');
      const waiters = [1, 2, 3, 4].map(() => c!.acquire('same'));
      await new Promise((r) => setTimeout(r, 100));
      await c!.set('same', result(50, 's'));
      await first.lead.end();
      const got = await Promise.all(waiters);
      for (const g of got) {
        assert.equal(g.lead, undefined, 'none of the others leads');
        assert.equal(g.hit?.body.toString(), 's'.repeat(50), "each is served the leader's entry");
      }
      const later = await c!.acquire('same');
      assert.equal(later.hit && later.joined, false, 'a later request is a plain hit');
    });

    test('a leader that ends without an entry hands the lead to exactly one waiter', async () => {
      const [c] = await caches();
      const first = await c!.acquire('fails');
      assert.ok(first.lead);
      const waiters = [c!.acquire('fails'), c!.acquire('fails')];
      await new Promise((r) => setTimeout(r, 50));
      await first.lead.end(); // its render failed: nothing stored
      const next = await Promise.race(waiters);
      assert.ok(next.lead, 'a waiter leads now');
      await c!.set('fails', result(5, 'n'));
      await next.lead.end();
      const all = await Promise.all(waiters);
      assert.equal(all.filter((g) => g.lead).length, 1, 'one leader');
      assert.equal(all.filter((g) => g.hit?.body.toString() === 'nnnnn').length, 1, 'the other is served its entry');
    });

    test('a claim whose leader died expires after the lease and is taken over', async () => {
      const [c] = await caches({ leaseMs: 5000 });
      const dead = await c!.acquire('crash');
      assert.ok(dead.lead); // never ended, as if its process was killed
      const waiter = c!.acquire('crash');
      await new Promise((r) => setTimeout(r, 50));
      clock += 5000;
      const g = await waiter;
      assert.ok(g.lead, 'the waiter leads once the claim expired');
      await g.lead.end();
    });

    test("a waiter stops waiting at its deadline, with the deadline's error (the wait counts against its budget)", async () => {
      const [c] = await caches({ leaseMs: 60_000 });
      const stuck = await c!.acquire('stuck');
      assert.ok(stuck.lead); // a leader that neither stores nor ends within the waiter's budget
      const expired = new ServiceError('render_timeout', 'the budget ran out while waiting');
      const waiter = c!.acquire('stuck', { deadline: { at: clock + 1000, expired: () => expired } });
      await new Promise((r) => setTimeout(r, 30));
      let settled = false;
      void waiter.then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(settled, false, 'still waiting before the deadline');
      clock += 1000;
      await assert.rejects(waiter, (e) => e === expired);
      await stuck.lead!.end();
    });

    test('a waiter whose caller leaves stops waiting with client_closed', async () => {
      const [c] = await caches();
      const lead = await c!.acquire('gone');
      const ac = new AbortController();
      const waiter = c!.acquire('gone', { signal: ac.signal });
      await new Promise((r) => setTimeout(r, 30));
      ac.abort();
      await assert.rejects(waiter, (e: any) => e.code === 'client_closed');
      await lead.lead!.end();
    });

    test('two replicas share entries and single flight', { skip: name === 'embedded' ? 'the embedded store serves one process' : false }, async () => {
      const [a, b] = await caches({}, 2);
      await a!.set('shared', result(20, 'a'));
      assert.equal((await b!.get('shared'))?.body.toString(), 'a'.repeat(20), 'stored by A, a hit on B');
      const lead = await a!.acquire('flight');
      assert.ok(lead.lead);
      const onB = b!.acquire('flight');
      await new Promise((r) => setTimeout(r, 50));
      await a!.set('flight', result(20, 'f'));
      await lead.lead.end();
      const g = await onB;
      assert.equal(g.hit?.body.toString(), 'f'.repeat(20));
      assert.equal(g.hit && g.joined, true);
    });
  });
}
