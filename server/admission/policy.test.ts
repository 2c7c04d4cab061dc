// The queue policy as arithmetic (README "Limits"): the expected-wait simulation, the sweep's
// choice of whom to refuse, Retry-After and its clamp. No clock, no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INITIAL_HOLD_MS, MIN_FREE_IN_MS, MIN_START_FRACTION, QueuePolicy, RETRY_AFTER_MAX_S, RETRY_AFTER_MIN_S } from './policy.ts';

const BUDGET = 20_000;
const policy = (concurrency = 2) => new QueuePolicy({ concurrency, renderBudgetMs: BUDGET });

test('with idle slots nothing waits; then each slot serves the queue in order, a mean hold per request', () => {
  const p = policy(2);
  assert.equal(p.meanHoldMs, INITIAL_HOLD_MS, 'before any render has finished: the initial mean');
  assert.deepEqual(p.slotFreeInMs([]), [0, 0]);
  assert.deepEqual(p.expectedWaitsMs([], 5), [0, 0, 1000, 1000, 2000]);
  assert.equal(p.expectedWaitMs([], 4), 2000, 'the fifth request to queue');
});

test('a render younger than the mean frees its slot at the mean', () => {
  const p = policy(2);
  assert.deepEqual(p.slotFreeInMs([200, 900]), [800, 100]);
  assert.deepEqual(p.expectedWaitsMs([200, 900], 4), [100, 800, 1100, 1800]);
});

test('an older render is expected to run about as long again, never beyond its budget', () => {
  const p = policy(1);
  assert.deepEqual(p.slotFreeInMs([3000]), [3000], 'as long again as it has run');
  assert.deepEqual(p.slotFreeInMs([16_000]), [4000], 'its budget ends first');
  assert.deepEqual(p.slotFreeInMs([19_990]), [MIN_FREE_IN_MS], 'past its budget it is being torn down: frees soon, not now');
  assert.deepEqual(p.slotFreeInMs([25_000]), [MIN_FREE_IN_MS]);
});

test('the k-th expected wait does not depend on how many are simulated', () => {
  const p = policy(3);
  const ages = [100, 5000, 12_000];
  const long = p.expectedWaitsMs(ages, 12);
  for (let n = 0; n <= 12; n++) assert.deepEqual(p.expectedWaitsMs(ages, n), long.slice(0, n));
});

test('the mean follows finished holds, weighted toward the last few', () => {
  const p = policy(1);
  p.held(2000);
  assert.equal(p.meanHoldMs, 1200);
  for (let i = 0; i < 60; i++) p.held(4000);
  assert.ok(Math.abs(p.meanHoldMs - 4000) < 1, `after many 4 s holds the mean is about 4 s (${p.meanHoldMs})`);
  assert.deepEqual(p.expectedWaitsMs([], 3).map(Math.round), [0, 4000, 8000]);
});

test('the least budget worth starting a render with is a quarter of the budget', () => {
  assert.equal(policy().minStartMs, BUDGET * MIN_START_FRACTION);
  assert.equal(policy().minStartMs, 5000);
});

test('sweep: a queued request whose wait no longer fits is refused, and those behind it move up', () => {
  const p = policy(1); // one slot, busy for 500 ms more; waits 500, 1500, 2500, ...
  const ages = [500];
  assert.deepEqual(p.refusals(ages, [10_000, 10_000, 10_000]), [], 'everyone fits');
  // The second can start in 1400 ms at the latest but would wait 1500: refused; the third takes
  // its place and waits 1500, which fits its 2000.
  assert.deepEqual(p.refusals(ages, [600, 1400, 2000]), [1]);
  // Without the move up the third would have been expected at 2500 and refused too.
  assert.deepEqual(p.refusals(ages, [600, 1400, 2000, 2400]), [1, 3]);
});

test('sweep: a request whose time to start has passed is always refused', () => {
  const p = policy(2);
  assert.deepEqual(p.refusals([], [-1, 0, 5000]), [0], 'a wait of 0 fits a time left of 0, never a negative one');
});

test('Retry-After: the expected wait of the queue as it stands, in whole seconds', () => {
  const p = policy(2);
  assert.equal(p.retryAfterSeconds([200, 900], 3), 2, 'the fourth wait is 1800 ms: 2 s');
  assert.equal(p.retryAfterSeconds([200, 900], 5), 3, 'the sixth wait is 2800 ms: 3 s');
});

test('Retry-After is clamped to 1..60 s', () => {
  const p = policy(1);
  assert.equal(p.retryAfterSeconds([], 0), RETRY_AFTER_MIN_S, 'an idle slot: still at least 1 s');
  assert.equal(RETRY_AFTER_MIN_S, 1);
  for (let i = 0; i < 20; i++) p.held(10_000);
  assert.equal(p.retryAfterSeconds([], 50), RETRY_AFTER_MAX_S, '50 renders of ~10 s ahead: at most 60 s');
  assert.equal(RETRY_AFTER_MAX_S, 60);
});
