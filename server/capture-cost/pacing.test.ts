// Tall captures' pause for the others (pacing.ts), on a fake clock: when it applies, how long it
// lasts, its bound, and that nothing pauses when no small capture is about.
//   node --import tsx --test server/capture-cost/pacing.test.ts
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Pacing, type Clock } from './pacing.ts';

/** A clock that moves only when told to, or when slept on. */
function fakeClock() {
  let t = 1000;
  const slept: number[] = [];
  const clock: Clock = {
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
  };
  return { clock, slept, advance: (ms: number) => (t += ms) };
}

/** Work that takes `ms` on the fake clock. */
const takes =
  (c: ReturnType<typeof fakeClock>, ms: number, fail = false) =>
  async () => {
    c.advance(ms);
    if (fail) throw new Error('capture failed');
    return ms;
  };

test('no small capture about: tall captures follow each other without a pause', async () => {
  const c = fakeClock();
  const p = new Pacing(c.clock);
  await p.tall(takes(c, 500));
  assert.equal(p.pauseMs(), 0);
  await p.roomForOthers(() => assert.fail('the budget is not asked when there is no pause'));
  await p.tall(takes(c, 500));
  assert.deepEqual(c.slept, []);
});

test('while a small capture runs, the next tall capture waits until the browser was free of tall ones as long as the last took', async () => {
  const c = fakeClock();
  const p = new Pacing(c.clock);
  await p.tall(takes(c, 400));
  c.advance(100); // the next tall request loads its page
  let release!: () => void;
  const small = p.small(() => new Promise<void>((r) => (release = r)));
  assert.equal(p.pauseMs(), 300, '400 ms after the last tall capture ended, of which 100 have passed');
  await p.roomForOthers(() => Infinity);
  assert.deepEqual(c.slept, [300]);
  release();
  await small;
});

test("a small capture that ended within the last tall capture's duration still counts; one long before does not", async () => {
  const c = fakeClock();
  const p = new Pacing(c.clock);
  await p.small(takes(c, 50));
  await p.tall(takes(c, 600));
  assert.equal(p.pauseMs(), 600, 'the small one ended 600 ms ago: as long as the tall one took');
  c.advance(1);
  assert.equal(p.pauseMs(), 0, 'longer ago than that: nobody is about');
  await p.small(takes(c, 50));
  assert.equal(p.pauseMs(), 549, 'a new small capture: the pause applies again, what is left of it');
});

test('the pause is bounded by what the budget can spare', async () => {
  const c = fakeClock();
  const p = new Pacing(c.clock);
  await p.tall(takes(c, 2000));
  await p.small(takes(c, 10));
  await p.roomForOthers(() => 250);
  assert.deepEqual(c.slept, [250]);
  await p.roomForOthers(() => -5);
  assert.deepEqual(c.slept, [250], 'no time to spare: no pause');
});

test('a capture that fails is still counted: small ones as about, tall ones as holding the browser', async () => {
  const c = fakeClock();
  const p = new Pacing(c.clock);
  await assert.rejects(p.small(takes(c, 20, true)), /capture failed/);
  await assert.rejects(p.tall(takes(c, 300, true)), /capture failed/);
  assert.equal(p.pauseMs(), 300);
});
