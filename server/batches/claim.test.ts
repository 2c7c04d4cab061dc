// An item's claim takes its credit in the same statement (sql.ts claimItem), on both stores: one
// statement reaches the store, the credit is held under the item's reservation id; a run again
// after a crash keeps the reservation left (no second hold), and after the item was billed it
// reserves nothing; an item settled or cancelled is not claimed and holds nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Queryable } from '../store/index.ts';
import { assertBooks, newAccount, STORES } from '../../test/support/stores.ts';
import { reservationIdOf } from './runner.ts';
import { cancelBatch, claimItem, insertBatch } from './sql.ts';

/** The store, counting the statements that reach it. */
function counting(q: Queryable): { n: number; q: Queryable } {
  const c = { n: 0, q };
  c.q = {
    query: (sql, params) => {
      c.n++;
      return q.query(sql, params);
    },
  };
  return c;
}

for (const store of STORES) {
  test(`${store.name}: claim and reserve are one statement; a run again keeps or finds its credit`, { skip: store.skip }, async () => {
    const s = await store.make();
    const ledger = await s.open();
    try {
      const { account } = await newAccount(ledger, 10);
      const batchId = `bat_claim_${store.name}`;
      await insertBatch(ledger.db, {
        id: batchId,
        accountId: account.id,
        keyId: account.keyId ?? null,
        webhookUrl: null,
        requests: [{ html: 'a' }, { html: 'b' }],
      });
      const id = reservationIdOf(batchId, 0);
      const c = counting(ledger.db);

      const first = await claimItem(c.q, batchId, 0, id, 60);
      assert.equal(c.n, 1, 'one statement');
      assert.equal(first?.credit, 'held');
      assert.deepEqual(first?.request, { html: 'a' });
      await assertBooks(ledger, account.id, { credits: 10, held: 1 });

      // The run died before its commit: the next run holds the same reservation, not a second one.
      assert.equal((await claimItem(c.q, batchId, 0, id, 60))?.credit, 'held');
      await assertBooks(ledger, account.id, { credits: 10, held: 1 });

      assert.equal((await ledger.commit({ id, accountId: account.id })).charged, 1);
      // Billed, then the run died before it settled: the next run reserves nothing.
      assert.equal((await claimItem(c.q, batchId, 0, id, 60))?.credit, 'paid');
      await assertBooks(ledger, account.id, { credits: 9, held: 0, captures: 1 });
      assert.equal(c.n, 3, 'one statement per claim');

      // Cancelled before it started: not claimed, nothing held.
      await cancelBatch(ledger.db, batchId);
      assert.equal(await claimItem(ledger.db, batchId, 1, reservationIdOf(batchId, 1), 60), undefined);
      await assertBooks(ledger, account.id, { credits: 9, held: 0 });
    } finally {
      await ledger.close();
      await s.destroy();
    }
  });
}
