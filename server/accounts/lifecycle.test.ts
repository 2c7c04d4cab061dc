// The ledger across processes, on both stores: balances survive a restart, API_KEYS give their
// allowance once, a process killed between reserve and commit is never charged, two instances on
// one store bill exactly and share the rate limit, and the development key (spec §1 billing, §8;
// DESIGN §2, §3).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceError } from '../errors.ts';
import { createKey, revokeKey } from './admin.ts';
import { ensureDevKey } from './index.ts';
import { assertBooks, newAccount, STORES } from '../../test/support/stores.ts';
import { eventually, sleep } from '../../test/support/wait.ts';

const CRASH_CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'support', 'crash-child.ts');

const isCode = (code: string) => (e: unknown) => e instanceof ServiceError && e.code === code;

/** Starts test/support/crash-child.ts, waits until it holds `reserve` credits, and kills it with SIGKILL. */
async function crashWhileHolding(config: object, key: string, reserve: number, leaseSeconds?: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', CRASH_CHILD, JSON.stringify({ config, key, reserve, leaseSeconds })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const ids = await new Promise<string[]>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ready\n')) resolve([...out.matchAll(/reserved (\S+)/g)].map((m) => m[1]!));
    });
    child.on('exit', (code) => reject(new Error(`crash-child exited early (${code}): ${err}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  return ids;
}

for (const store of STORES) {
  describe(`${store.name}: restarts, crashes, API_KEYS and the dev key`, { skip: store.skip }, () => {
    test('balances survive a restart; API_KEYS get the allowance once; unlisted env keys stop working', async () => {
      const s = await store.make();
      try {
        const k1 = 'ci-key-0123456789abcdef';
        const k2 = 'ci-key-fedcba9876543210';
        let l = await s.open({ apiKeys: [k1, k2] });
        const a1 = (await l.authenticate(k1))!;
        assert.ok(a1 && (await l.authenticate(k2)));
        assert.equal(await l.balance(a1), 100);
        await l.commit(await l.reserve(a1));
        const cli = await createKey(l.db, { credits: 100 });
        await l.close();

        l = await s.open({ apiKeys: [k1, k2] });
        assert.equal(await l.balance((await l.authenticate(k1))!), 99, 'not re-granted on restart');
        await revokeKey(l.db, (await l.authenticate(k2))!.keyId!);
        await l.close();

        l = await s.open({ apiKeys: [k2] });
        assert.equal(await l.authenticate(k1), null, 'no longer listed in API_KEYS');
        assert.equal(await l.authenticate(k2), null, 'revoked with the CLI stays revoked');
        assert.ok(await l.authenticate(cli.key), 'CLI keys are not touched by API_KEYS');
        await l.close();

        l = await s.open({ apiKeys: [k1] });
        const back = await l.authenticate(k1);
        assert.equal(back?.id, a1.id, 'listed again: same account');
        assert.equal(await l.balance(back!), 99);
        await assertBooks(l, a1.id, { credits: 99, held: 0, captures: 1 });
        await l.close();
      } finally {
        await s.destroy();
      }
    });

    test('a process killed between reserve and commit: the credit is released, not charged', async () => {
      const s = await store.make();
      try {
        let l = await s.open();
        const { key, account } = await newAccount(l, 5);
        const embedded = store.name === 'embedded';
        if (embedded) await l.close(); // one process at a time on the embedded store
        const ids = await crashWhileHolding(s.config(), key, 2, 1);
        assert.equal(ids.length, 2);
        if (embedded) {
          l = await s.open(); // restart: the start-up sweep releases what the dead process held
        } else {
          assert.equal(await l.balance(account), 3, 'held by the dead replica until its lease ends');
          let swept = 0; // swept as soon as their lease has run out
          assert.ok(await eventually(async () => (swept += await l.sweep()) >= 2, 15_000, 100), 'released once the lease ends');
          assert.equal(swept, 2);
        }
        assert.equal(await l.balance(account), 5);
        for (const id of ids) assert.deepEqual(await l.commit({ id, accountId: account.id }), { charged: 0, remaining: 5 }, 'never committed later');
        await assertBooks(l, account.id, { credits: 5, held: 0, captures: 0 });
        await l.close();
      } finally {
        await s.destroy();
      }
    });

    test(
      'two instances on one store: parallel captures are exact and share the rate limit',
      { skip: store.name === 'embedded' && 'the embedded store serves one process' },
      async () => {
        const s = await store.make();
        const a = await s.open({ rateLimitPerMinute: 1000 });
        const b = await s.open({ rateLimitPerMinute: 1000 });
        try {
          const made = await createKey(a.db, { credits: 13 });
          const accA = (await a.authenticate(made.key))!;
          const accB = (await b.authenticate(made.key))!;
          const results = await Promise.all(
            Array.from({ length: 40 }, async (_, i) => {
              const [l, acc] = i % 2 ? [a, accA] : [b, accB];
              try {
                const r = await l.reserve(acc);
                await sleep(i % 7);
                await l.commit(r);
                return 1;
              } catch (e) {
                if (isCode('insufficient_credits')(e)) return 0;
                throw e;
              }
            }),
          );
          assert.equal(
            results.reduce((x: number, y) => x + y, 0),
            13,
          );
          await assertBooks(a, accA.id, { credits: 0, held: 0, captures: 13 });

          const c = await s.open({ rateLimitPerMinute: 5 });
          const d = await s.open({ rateLimitPerMinute: 5 });
          try {
            const outs = await Promise.all(
              Array.from({ length: 12 }, (_, i) =>
                (i % 2 ? c : d).checkRateLimit(accA).then(
                  () => 'ok',
                  (e) => (e as ServiceError).code,
                ),
              ),
            );
            assert.equal(outs.filter((o) => o === 'ok').length, 5, 'one shared window for both replicas');
            assert.equal(outs.filter((o) => o === 'rate_limited').length, 7);
          } finally {
            await c.close();
            await d.close();
          }
        } finally {
          await a.close();
          await b.close();
          await s.destroy();
        }
      },
    );

    test(
      'the development key: created once with the allowance, kept in a 0600 file, hashed in the store',
      { skip: store.name === 'postgres' && 'no dev key with DATABASE_URL' },
      async () => {
        const s = await store.make();
        try {
          let l = await s.open();
          const dev = await ensureDevKey(l, s.config());
          assert.ok(dev?.created);
          assert.equal((statSync(dev.file).mode & 0o777).toString(8), '600');
          assert.equal(readFileSync(dev.file, 'utf8').trim(), dev.key);
          const acc = (await l.authenticate(dev.key))!;
          assert.equal(await l.balance(acc), 100);
          assert.equal(await ensureDevKey(l, s.config({ apiKeys: ['ci-key-0123456789abcdef'] })), null, 'not with API_KEYS');
          await l.close();
          l = await s.open();
          const again = await ensureDevKey(l, s.config());
          assert.deepEqual(again, { ...dev, created: false }, 'the same key after a restart');
          await revokeKey(l.db, acc.keyId!);
          await createKey(l.db, { credits: 1 });
          assert.equal(await ensureDevKey(l, s.config()), null, 'other keys exist: no new dev key');
          await l.close();
          // The embedded store is locked to one process.
          l = await s.open();
          await assert.rejects(s.open(), /in use by process/);
          await l.close();
          assert.ok(existsSync(s.config().dataDir));
        } finally {
          await s.destroy();
        }
      },
    );
  });
}
