// Admission on a fake clock (README "Limits"): permits, the bounded queue in order, refusal at
// arrival, the sweep's refusal of a queued request that would not start in time, Retry-After,
// a caller leaving the queue, and shutting down. No browser: the queue is tested on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Overloaded, ServiceError } from '../errors.ts';
import { Admission, SWEEP_MS, type AdmissionOptions, type Clock, type Refusal } from './index.ts';

/** A clock that moves only when told; its timers fire as it passes them. */
function fakeClock() {
  let t = 0;
  const timers = new Set<{ ms: number; fn: () => void; next: number }>();
  const clock: Clock & { advance(ms: number): void; timers(): number } = {
    now: () => t,
    every(ms, fn) {
      const timer = { ms, fn, next: t + ms };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms) {
      const end = t + ms;
      for (;;) {
        const due = [...timers].filter((x) => x.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        t = due.next;
        due.next += due.ms;
        due.fn();
      }
      t = end;
    },
    timers: () => timers.size,
  };
  return clock;
}

function admission(over: Partial<AdmissionOptions> = {}) {
  const clock = fakeClock();
  const admitted: number[] = [];
  const rejected: Refusal[] = [];
  const a = new Admission({
    concurrency: 1,
    queueLimit: 8,
    renderBudgetMs: 4000, // a quarter, 1000 ms, is the least worth starting with
    clock,
    onAdmitted: (ms) => admitted.push(ms),
    onRejected: (r) => rejected.push(r),
    ...over,
  });
  return { a, clock, admitted, rejected };
}

const overloaded = (reason: RegExp, retryAfter: number) => (e: unknown) => {
  assert.ok(e instanceof Overloaded, String(e));
  assert.match(e.message, reason);
  assert.equal(e.facts.retryAfterSeconds, retryAfter);
  return true;
};

/** Lets the promise callbacks of a wake or a refusal run. */
const settle = () => new Promise((r) => setImmediate(r));

test('permits up to the concurrency at once; the next waits and gets the one released first', async () => {
  const { a, clock, admitted } = admission({ concurrency: 2 });
  const p1 = await a.acquire(4000);
  await a.acquire(4000);
  assert.equal(a.inFlight, 2);
  let third = false;
  const p3 = a.acquire(4000).then((p) => ((third = true), p));
  await settle();
  assert.equal(a.queueDepth, 1);
  assert.equal(third, false, 'queued while both permits are held');
  clock.advance(300);
  p1.release();
  await p3;
  assert.equal(third, true);
  assert.deepEqual(admitted, [0, 0, 300], 'the third waited 300 ms');
  assert.equal(a.inFlight, 2, 'the permit passed straight on');
  p1.release();
  assert.equal(a.inFlight, 2, 'releasing twice is a no-op');
  (await p3).release();
  assert.equal(a.inFlight, 1);
});

test('queue full: 503 queue_full at once, with Retry-After from the queue', async () => {
  const { a, rejected } = admission({ queueLimit: 1, renderBudgetMs: 60_000 });
  await a.acquire(60_000);
  const queued = a.acquire(60_000);
  assert.equal(a.saturated, true);
  await assert.rejects(a.acquire(60_000), overloaded(/queue is full \(1 waiting\)/, 2)); // behind one: 1000 + 1000 ms
  assert.deepEqual(rejected, ['queue_full']);
  assert.equal(a.queueDepth, 1);
  a.close();
  await queued;
});

test('refusal at arrival: an expected wait that would leave less than a quarter of the budget', async () => {
  const { a, rejected } = admission();
  await a.acquire(4000); // the slot is busy for the mean, 1000 ms
  const first = a.acquire(4000); // expected to wait 1000 ms, may start until 3000 ms: queued
  assert.equal(a.queueDepth, 1);
  // The next would wait 2000 ms; with 2500 ms left it could start until 1500 ms: refused now.
  await assert.rejects(a.acquire(2500), overloaded(/too long to start this render within the render budget/, 2));
  assert.deepEqual(rejected, ['queue_wait']);
  assert.equal(a.queueDepth, 1, 'the refused request never queued');
  const fits = a.acquire(3000); // 2000 ms of wait fits the 2000 ms it may start within
  assert.equal(a.queueDepth, 2);
  a.close();
  await Promise.all([first, fits]);
});

test('sweep: a queued request is refused as soon as its expected wait no longer fits its budget', async () => {
  const { a, clock, rejected } = admission();
  await a.acquire(4000); // never released: a render that runs on
  let refusal: unknown;
  const queued = a.acquire(4000).catch((e) => (refusal = e)); // may start until 3000 ms
  assert.equal(clock.timers(), 1, 'the sweep runs while requests wait');
  // Past the mean the running render is expected to take about as long again as it has run:
  // at 1500 ms it frees in 1500 ms, which still fits; at 1750 ms in 1750 ms, 250 ms too late.
  clock.advance(1500);
  await settle();
  assert.equal(refusal, undefined, 'still fits at 1500 ms');
  assert.equal(a.queueDepth, 1);
  clock.advance(SWEEP_MS);
  await queued;
  // Retry-After counts the queue as it stood, the refused request in it: 1750 + 1000 ms.
  assert.ok(overloaded(/no render slot will become free in time/, 3)(refusal));
  assert.deepEqual(rejected, ['queue_wait']);
  assert.equal(a.queueDepth, 0);
  assert.equal(clock.timers(), 0, 'no sweep once the queue is empty');
});

test('sweep: a refused request makes room for the one behind it', async () => {
  const { a, clock } = admission({ renderBudgetMs: 20_000 }); // 5000 ms is the least worth starting with
  await a.acquire(20_000);
  clock.advance(3000); // the running render has shown it is slow: expected to free in 3000 ms
  const outcomes: string[] = [];
  const track = (name: string, p: Promise<unknown>) =>
    p.then(
      () => outcomes.push(`${name} started`),
      (e) => outcomes.push(`${name} ${(e as ServiceError).code}`),
    );
  // Expected waits 3000, 4000, 5000 ms; each may start until its remaining budget less 5000 ms:
  // a until 10000 ms, b until 4000 ms, c until 5000 ms. All just fit.
  const all = Promise.all([track('a', a.acquire(15_000)), track('b', a.acquire(9000)), track('c', a.acquire(10_000))]);
  assert.equal(a.queueDepth, 3);
  clock.advance(SWEEP_MS);
  await settle();
  // 250 ms later the render frees in 3250 ms: b would wait 4250 ms with 3750 left and is refused;
  // c moves up to wait 4250 ms with 4750 left (in third place, 5250 ms, it would not have fit).
  assert.deepEqual(outcomes, ['b overloaded']);
  assert.equal(a.queueDepth, 2);
  a.close();
  await all;
  assert.deepEqual(outcomes, ['b overloaded', 'a started', 'c started']);
});

test('a caller that goes away while queued leaves the queue at once', async () => {
  const { a } = admission();
  const held = await a.acquire(4000);
  const gone = new AbortController();
  const queued = a.acquire(4000, gone.signal);
  assert.equal(a.queueDepth, 1);
  gone.abort();
  await assert.rejects(queued, (e: unknown) => e instanceof ServiceError && e.code === 'client_closed');
  assert.equal(a.queueDepth, 0);
  held.release();
  assert.equal(a.inFlight, 0, 'the permit went back, not to the caller that left');
  const closed = new AbortController();
  closed.abort();
  await a.acquire(4000); // takes the free permit even so: only a queued caller is refused
  await assert.rejects(a.acquire(4000, closed.signal), (e: unknown) => e instanceof ServiceError && e.code === 'client_closed');
});

test('shutting down: queued requests proceed, new ones get 503 with Retry-After 5, drained waits for permits', async () => {
  const { a, rejected } = admission();
  const first = await a.acquire(4000);
  const queued = a.acquire(4000);
  a.close();
  const second = await queued;
  assert.equal(a.inFlight, 2, 'the woken request counts as running');
  await assert.rejects(a.acquire(4000), overloaded(/shutting down/, 5));
  assert.deepEqual(rejected, ['shutting_down']);
  let drained = false;
  const done = a.drained(10_000).then(() => (drained = true));
  first.release();
  // A window on purpose: drained() must not resolve within it while a permit is held.
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(drained, false, 'one permit is still held');
  second.release();
  await done;
  assert.equal(a.inFlight, 0);
});

test('background work (batch items) yields at admission: a request queued behind it gets the next permit; background waits while a request waits', async () => {
  const { a } = admission({ concurrency: 2 });
  const order: string[] = [];
  const bg1 = await a.acquireBackground();
  const req1 = await a.acquire(4000);
  // Both permits held: a second background item and a request wait; the request came second.
  const bg2 = a.acquireBackground().then((p) => (order.push('background'), p));
  await settle();
  const req2 = a.acquire(4000).then((p) => (order.push('request'), p));
  await settle();
  assert.equal(a.queueDepth, 1);
  bg1.release();
  await req2;
  await settle();
  assert.deepEqual(order, ['request'], 'the freed permit went to the request, though the background item asked first');
  req1.release();
  await bg2;
  assert.deepEqual(order, ['request', 'background'], 'background work gets a permit once no request waits');
  (await req2).release();
  (await bg2).release();
  assert.equal(a.inFlight, 0);
});

test('background work never takes a free permit from under a queued request, and never queues a request behind it', async () => {
  const { a } = admission({ concurrency: 1 });
  const held = await a.acquire(4000);
  const waiting = a.acquire(4000);
  await settle();
  let started = false;
  const bg = a.acquireBackground().then((p) => ((started = true), p));
  await settle();
  assert.equal(started, false);
  held.release();
  const req = await waiting;
  await settle();
  assert.equal(started, false, 'the request took the permit');
  assert.equal(a.queueDepth, 0);
  req.release();
  (await bg).release();
  assert.equal(started, true);
  assert.equal(a.inFlight, 0);
});
