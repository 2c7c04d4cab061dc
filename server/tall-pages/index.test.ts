// Where a tall capture is cut and how it is said (server/tall-pages/), on the cost model
// (server/capture-cost/): pure functions, no browser. Through the API: test/api/tall-pages.test.ts
// and test/api/tall-budget.test.ts.
//   node --import tsx --test server/tall-pages/index.test.ts
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AFTER_CAPTURE_MS, CaptureCost, captureCost, SAFETY, SEED_FIXED_MS, SEED_MS_PER_MEGAPIXEL, TALL_PIXELS } from '../capture-cost/index.ts';
import { validateRequest } from '../request/validate.ts';
import { ENDLESS_GROWTH_VIEWPORTS, FULL_PAGE_MAX_HEIGHT_MAX } from './fields.ts';
import { heightCap, planCut, scrollBounds, type CutInput } from './index.ts';
import { formatTruncation, parseTruncation, TRUNCATION_REASONS } from './truncation.ts';

describe('the cost model', () => {
  test('a capture costs the fixed part plus pixels x the rate; the seed rate before anything is learnt', () => {
    const m = new CaptureCost();
    assert.equal(m.estimateMs('png', 10_000_000), SEED_FIXED_MS.png + 10 * SEED_MS_PER_MEGAPIXEL.png);
  });

  test('pixelsWithin and fits agree, with the safety factor and the time kept after the capture', () => {
    const m = new CaptureCost();
    const ms = 3000;
    const px = m.pixelsWithin('png', ms);
    assert.ok(m.fits('png', px, ms), 'what pixelsWithin allows fits');
    assert.ok(!m.fits('png', px + 20_000, ms), 'a little more does not');
    assert.equal(Math.round(m.estimateMs('png', px) * SAFETY + AFTER_CAPTURE_MS), ms);
    assert.equal(m.pixelsWithin('png', AFTER_CAPTURE_MS), 0, 'nothing fits in no time');
  });

  test('the fixed part is learnt from small captures: half way up at once, a fifth of the way down, never below half its seed', () => {
    const m = new CaptureCost();
    const seed = m.rate('png');
    m.learn('png', TALL_PIXELS - 1, SEED_FIXED_MS.png + ((TALL_PIXELS - 1) / 1e6) * seed + 300); // 300 ms slower than thought
    assert.equal(m.rate('png'), seed, 'a small capture does not teach the rate');
    assert.equal(Math.round(m.fixedMs('png')), SEED_FIXED_MS.png + 150);
    m.learn('png', 1_000_000, 0);
    assert.equal(Math.round(m.fixedMs('png')), SEED_FIXED_MS.png + 150 - 0.2 * (SEED_FIXED_MS.png + 150 - SEED_FIXED_MS.png / 2));
  });

  test('the rate is learnt from tall captures: half way up at once, a fifth of the way down; each part apart', () => {
    const m = new CaptureCost();
    const seed = m.rate('png');
    const px = 20_000_000;
    m.learn('png', px, SEED_FIXED_MS.png + 20 * (seed * 3)); // three times slower than thought
    assert.equal(m.rate('png'), seed * 2);
    assert.equal(m.fixedMs('png'), SEED_FIXED_MS.png, 'a tall capture does not teach the fixed part');
    m.learn('png', px, SEED_FIXED_MS.png + 20 * seed);
    assert.equal(m.rate('png'), seed * 2 - 0.2 * seed);
    assert.equal(m.rate('reencode'), SEED_MS_PER_MEGAPIXEL.reencode);
  });

  test('inTurn: tall captures run one at a time, in the order they came, and a failure passes the turn on', async () => {
    const m = new CaptureCost();
    const log: string[] = [];
    let aStarted!: () => void;
    const aRuns = new Promise<void>((r) => (aStarted = r));
    const work =
      (name: string, ms: number, fail = false) =>
      () => {
        log.push(`${name} start`);
        if (name === 'a') aStarted();
        return new Promise<string>((resolve, reject) => setTimeout(() => (log.push(`${name} end`), fail ? reject(new Error(name)) : resolve(name)), ms));
      };
    const runs = [m.inTurn(work('a', 60)), m.inTurn(work('b', 10, true)), m.inTurn(work('c', 10))];
    assert.equal(m.waiting, 3, 'all three wait (the first until the next tick)');
    await aRuns;
    assert.equal(m.waiting, 2, 'b and c wait while a runs');
    assert.equal(m.share(3000), 1000, 'a plans on a third of what is left');
    const settled = await Promise.allSettled(runs);
    assert.equal(m.waiting, 0);
    assert.deepEqual(log, ['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
    assert.deepEqual(
      settled.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
  });

  test('measure() times the work and learns from it', async () => {
    const m = new CaptureCost();
    await m.measure('jpeg', 50_000_000, () => new Promise((r) => setTimeout(r, 200)));
    assert.ok(m.rate('jpeg') < SEED_MS_PER_MEGAPIXEL.jpeg, `200 ms for 50 megapixels is quicker than the seed (${m.rate('jpeg')})`);
  });
});

describe('planCut: the height to capture, and why it is short', () => {
  const base: CutInput = { fullHeight: 30_000, outWidth: 1000, scale: 1, format: 'png', maxRows: 65_535, remainingMs: Infinity, minHeight: 720 };

  test('the whole page when nothing bounds it', () => {
    assert.deepEqual(planCut(base), { height: 30_000 });
  });

  test('size: the output ceiling, in CSS px at the scale', () => {
    assert.deepEqual(planCut({ ...base, maxRows: 20_000 }), { height: 20_000, truncated: { fromHeight: 30_000, reason: 'size' } });
    assert.deepEqual(planCut({ ...base, scale: 3, maxRows: 65_535 }), { height: 21_845, truncated: { fromHeight: 30_000, reason: 'size' } });
  });

  test('height and endless caps; a cap taller than the page cuts nothing', () => {
    assert.deepEqual(planCut({ ...base, cap: { height: 1234, reason: 'height' } }), { height: 1234, truncated: { fromHeight: 30_000, reason: 'height' } });
    assert.deepEqual(planCut({ ...base, cap: { height: 9200, reason: 'endless' } }), { height: 9200, truncated: { fromHeight: 30_000, reason: 'endless' } });
    assert.deepEqual(planCut({ ...base, cap: { height: 40_000, reason: 'height' } }), { height: 30_000 });
  });

  test('time: the rows the model says fit in what is left, never fewer than the first screen', () => {
    const ms = 1500;
    const rows = Math.floor(captureCost.pixelsWithin('png', ms) / base.outWidth);
    assert.ok(rows > 720 && rows < 30_000, `test precondition: ${rows} rows fit`);
    assert.deepEqual(planCut({ ...base, remainingMs: ms }), { height: rows, truncated: { fromHeight: 30_000, reason: 'time' } });
    assert.deepEqual(planCut({ ...base, remainingMs: 0 }), { height: 720, truncated: { fromHeight: 30_000, reason: 'time' } });
    assert.deepEqual(planCut({ ...base, fullHeight: 500, remainingMs: 0 }), { height: 500 }, 'a page shorter than the first screen is whole');
  });

  test('the smallest cut wins; on a tie the reason first in TRUNCATION_REASONS', () => {
    assert.deepEqual(TRUNCATION_REASONS, ['height', 'endless', 'size', 'time']);
    assert.equal(planCut({ ...base, maxRows: 5000, cap: { height: 8000, reason: 'height' } }).truncated?.reason, 'size');
    assert.equal(planCut({ ...base, maxRows: 5000, cap: { height: 5000, reason: 'height' } }).truncated?.reason, 'height');
    assert.equal(planCut({ ...base, maxRows: 5000, remainingMs: 0 }).truncated?.reason, 'time');
  });
});

describe('the scroll bounds and the height cap', () => {
  const deadline = { at: 100_000, budgetMs: 20_000 };

  test('the scroll stops at the lowest capturable row; the endless rule is on unless fullPageMaxHeight replaces it', () => {
    const req = validateRequest({ html: 'x', fullPage: true, viewport: { width: 1280, height: 720, deviceScaleFactor: 2 } });
    const b = scrollBounds(req, 65_535, deadline);
    assert.deepEqual(b, { maxY: 32_767, growthViewports: ENDLESS_GROWTH_VIEWPORTS, endBy: 97_000 });
    assert.equal(heightCap(req, { startHeight: 2000, endlessAt: 9200 })?.reason, 'endless');
    assert.equal(heightCap(req, { startHeight: 2000 }), undefined);

    const bounded = validateRequest({ html: 'x', fullPage: true, fullPageMaxHeight: 8000 });
    assert.deepEqual(scrollBounds(bounded, 65_535, deadline), { maxY: 8000, growthViewports: null, endBy: 97_000 });
    assert.deepEqual(heightCap(bounded, { startHeight: 2000, endlessAt: 9200 }), { height: 8000, reason: 'height' });
  });

  test('fullPageMaxHeight: a whole number of CSS px, with fullPage only', () => {
    for (const bad of [0, 1.5, '100', FULL_PAGE_MAX_HEIGHT_MAX + 1]) {
      assert.throws(
        () => validateRequest({ html: 'x', fullPage: true, fullPageMaxHeight: bad }),
        /fullPageMaxHeight must be an integer number of CSS pixels between 1 and 655350/,
      );
    }
    for (const body of [
      { html: 'x', fullPageMaxHeight: 100 },
      { html: 'x', fullPage: false, fullPageMaxHeight: 100 },
    ]) {
      assert.throws(() => validateRequest(body), /fullPageMaxHeight is only allowed with fullPage: true/);
    }
    assert.equal(validateRequest({ html: 'x', fullPage: true, fullPageMaxHeight: 1 }).fullPageMaxHeight, 1);
  });
});

describe('x-capture-truncated', () => {
  test('"<full height>; reason=<reason>", read back as it was written', () => {
    assert.equal(formatTruncation({ fromHeight: 65_697, reason: 'time' }), '65697; reason=time');
    for (const reason of TRUNCATION_REASONS) assert.deepEqual(parseTruncation(formatTruncation({ fromHeight: 123, reason })), { fromHeight: 123, reason });
  });

  test('the old form (a bare integer) still reads, as the size ceiling; anything else does not', () => {
    assert.deepEqual(parseTruncation('30000'), { fromHeight: 30_000, reason: 'size' });
    assert.equal(Number.parseInt('65697; reason=time', 10), 65_697, 'a client reading the leading integer gets the full height');
    for (const v of [undefined, '', 'x', '12; reason=bogus', '-1']) assert.equal(parseTruncation(v), undefined, String(v));
  });
});
