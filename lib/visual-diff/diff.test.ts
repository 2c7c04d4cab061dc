// The comparator on pictures made here: what counts as a difference, where it is, masks, sizes,
// and that looking only at differing rows gives pixelmatch's own count for the whole picture.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { compareEncoded, decodePicture, encodePng } from './compare.ts';
import { diffPictures, type Rgba } from './diff.ts';
import { diffPicture } from './picture.ts';
import { DiffPool } from './pool.ts';
import { MAX_REGIONS } from './regions.ts';

const OPTS = { threshold: 0.1, includeAA: false };
const solid = (width: number, height: number, rgba: number[]): Rgba => {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
};
const paint = (img: Rgba, x: number, y: number, w: number, h: number, rgba: number[]): Rgba => {
  const out = { ...img, data: new Uint8Array(img.data) };
  for (let yy = y; yy < y + h; yy++) for (let xx = x; xx < x + w; xx++) out.data.set(rgba, (yy * img.width + xx) * 4);
  return out;
};
const golden = (name: string): Rgba => {
  const png = PNG.sync.read(readFileSync(path.resolve(import.meta.dirname, '../../golden', name)));
  return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
};
const WHITE = [255, 255, 255, 255];
const BLACK = [0, 0, 0, 255];

test('identical pictures: 0 pixels, no region', () => {
  const d = diffPictures(golden('viewport.default-1280x720.png'), golden('viewport.default-1280x720.png'), OPTS);
  assert.deepEqual([d.diffPixels, d.ratio, d.regions, d.regionCount], [0, 0, [], 0]);
});

test('one changed block: its pixels, its ratio and its exact box', () => {
  const a = solid(200, 100, WHITE);
  const d = diffPictures(paint(a, 30, 40, 20, 10, BLACK), a, OPTS);
  assert.equal(d.diffPixels, 200);
  assert.equal(d.ratio, 200 / 20000);
  assert.deepEqual(d.regions, [{ x: 30, y: 40, width: 20, height: 10 }]);
});

test('changes close together are one region, apart are two (reading order)', () => {
  const a = solid(300, 200, WHITE);
  const near = paint(paint(a, 10, 10, 5, 5, BLACK), 20, 10, 5, 5, BLACK); // 5 px apart
  assert.deepEqual(diffPictures(near, a, OPTS).regions, [{ x: 10, y: 10, width: 15, height: 5 }]);
  const apart = paint(paint(a, 200, 10, 5, 5, BLACK), 10, 150, 5, 5, BLACK);
  assert.deepEqual(diffPictures(apart, a, OPTS).regions, [
    { x: 200, y: 10, width: 5, height: 5 },
    { x: 10, y: 150, width: 5, height: 5 },
  ]);
});

test('at most MAX_REGIONS regions, the largest; the count says how many', () => {
  let b = solid(1000, 1000, WHITE);
  for (let i = 0; i < 60; i++) b = paint(b, (i % 10) * 100, Math.floor(i / 10) * 100, i === 59 ? 30 : 2, 2, BLACK);
  const d = diffPictures(b, solid(1000, 1000, WHITE), OPTS);
  assert.equal(d.regionCount, 60);
  assert.equal(d.regions.length, MAX_REGIONS);
  assert.ok(
    d.regions.some((r) => r.width === 30),
    'the largest is kept',
  );
});

test('masks: a masked change does not count; the rest still does', () => {
  const a = solid(200, 100, WHITE);
  const b = paint(paint(a, 10, 10, 10, 10, BLACK), 100, 50, 10, 10, BLACK);
  const d = diffPictures(b, a, { ...OPTS, masks: [{ x: 5, y: 5, width: 20, height: 20 }] });
  assert.equal(d.diffPixels, 100);
  assert.deepEqual(d.regions, [{ x: 100, y: 50, width: 10, height: 10 }]);
});

test('the threshold: a small colour shift is no difference at 0.1 and one at 0', () => {
  const a = solid(50, 40, [100, 100, 100, 255]);
  const b = solid(50, 40, [104, 102, 100, 255]);
  assert.equal(diffPictures(b, a, OPTS).diffPixels, 0);
  assert.equal(diffPictures(b, a, { ...OPTS, threshold: 0 }).diffPixels, 2000);
});

test('different sizes: compared where they overlap, what only one has counts, both sizes reported', () => {
  const a = solid(100, 50, WHITE);
  const taller = solid(100, 70, WHITE);
  const d = diffPictures(taller, a, OPTS);
  assert.deepEqual([d.width, d.height, d.current, d.baseline], [100, 70, { width: 100, height: 70 }, { width: 100, height: 50 }]);
  assert.equal(d.diffPixels, 2000);
  assert.deepEqual(d.regions, [{ x: 0, y: 50, width: 100, height: 20 }]);
  const wider = diffPictures(a, solid(120, 40, WHITE), OPTS); // 120x40 vs 100x50: strips of 20x40 and 100x10
  assert.equal(wider.diffPixels, 20 * 40 + 100 * 10);
  assert.equal(wider.ratio, 1800 / (120 * 50));
});

test("only differing rows are compared, and the count is pixelmatch's over the whole picture (anti-aliasing included)", () => {
  const g = golden('viewport.share-card-1200x630.png');
  const shifted = { ...g, data: new Uint8Array(g.data) };
  // Shift a band of rows 1 px right: edges of text and shapes, where anti-aliasing is judged.
  for (let y = 200; y < 400; y++) shifted.data.copyWithin((y * g.width + 1) * 4, y * g.width * 4, ((y + 1) * g.width - 1) * 4);
  for (const includeAA of [false, true]) {
    const whole = pixelmatch(shifted.data, g.data, undefined, g.width, g.height, { threshold: 0.1, includeAA });
    assert.equal(diffPictures(shifted, g, { threshold: 0.1, includeAA }).diffPixels, whole, `includeAA ${includeAA}`);
  }
});

test('the diff picture: changed pixels red, the rest the current picture in grey, masks tinted, regions outlined', async () => {
  const a = solid(200, 100, [0, 128, 255, 255]);
  const b = paint(a, 50, 40, 20, 10, BLACK);
  const d = diffPictures(b, a, { ...OPTS, masks: [{ x: 150, y: 0, width: 50, height: 100 }] });
  const pic = diffPicture(b, d, [{ x: 150, y: 0, width: 50, height: 100 }]);
  const at = (x: number, y: number) => [...pic.data.subarray((y * 200 + x) * 4, (y * 200 + x) * 4 + 4)];
  assert.deepEqual(at(55, 45), [255, 0, 0, 255], 'a changed pixel');
  const grey = at(5, 5);
  assert.ok(grey[0] === grey[1] && grey[1] === grey[2] && grey[0]! > 180, `faded grey, got ${grey}`);
  const masked = at(170, 50);
  assert.ok(masked[2]! > masked[0]! + 40, `tinted blue, got ${masked}`);
  assert.deepEqual(at(50 - 3, 45), [230, 0, 126, 255], 'the outline, 2 px off the region');
  // And as a PNG, through sharp.
  const back = await decodePicture(await encodePng(pic));
  assert.deepEqual([back.width, back.height, [...back.data.subarray((45 * 200 + 55) * 4, (45 * 200 + 55) * 4 + 4)]], [200, 100, [255, 0, 0, 255]]);
});

test('encoded pictures through the worker pool: figures and the diff picture; a picture that is not one is named', async () => {
  const pool = new DiffPool(1);
  try {
    const a = solid(64, 48, WHITE);
    const [pa, pb] = await Promise.all([encodePng(a), encodePng(paint(a, 8, 8, 4, 4, BLACK))]);
    const [r1, r2] = await Promise.all([pool.compare(pb, pa, OPTS), pool.compare(pa, pa, OPTS)]); // the second waits for the one worker
    assert.deepEqual([r1.diffPixels, r1.regions, r1.width, r1.height], [16, [{ x: 8, y: 8, width: 4, height: 4 }], 64, 48]);
    assert.equal(r2.diffPixels, 0);
    assert.equal((await decodePicture(r1.png)).width, 64);
    await assert.rejects(
      pool.compare(pa, Buffer.from('not a picture'), OPTS),
      (e: Error & { which?: string }) => e.name === 'UndecodablePicture' && e.which === 'baseline',
    );
    assert.equal((await pool.compare(pa, pa, OPTS)).diffPixels, 0, 'the pool still works after a failure');
  } finally {
    await pool.close();
  }
  // In-process, the same function the workers run.
  const a = await encodePng(solid(10, 10, WHITE));
  assert.equal((await compareEncoded(a, a, OPTS)).diffPixels, 0);
});
