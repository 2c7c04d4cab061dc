// The comparator's should-match and should-fail pairs (DESIGN §6: the suite is tested too).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { allowedDiff, compareImages, type Tolerance } from '../engine/compare.ts';
import { readPng, solid, type Rgba } from '../engine/image.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';

const T: Tolerance = { threshold: 0.1, maxDiffPixels: 100, maxDiffPixelRatio: 0.01 };

function paint(img: Rgba, x: number, y: number, w: number, h: number, rgba: [number, number, number, number]): Rgba {
  const out = { ...img, data: new Uint8Array(img.data) };
  for (let yy = y; yy < y + h; yy++) for (let xx = x; xx < x + w; xx++) out.data.set(rgba, (yy * img.width + xx) * 4);
  return out;
}

function shiftRight(img: Rgba, dx: number): Rgba {
  const out = { ...img, data: new Uint8Array(img.data.length) };
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const sx = Math.max(0, x - dx);
      out.data.set(img.data.subarray((y * img.width + sx) * 4, (y * img.width + sx) * 4 + 4), (y * img.width + x) * 4);
    }
  return out;
}

const golden = (name: string) => readPng(readFileSync(path.join(REPO_ROOT, 'golden', name)));

test('should match: identical images', () => {
  const a = solid(50, 40, [10, 20, 30, 255]);
  const r = compareImages(a, solid(50, 40, [10, 20, 30, 255]), T);
  assert.equal(r.pass, true);
  assert.equal(r.diffPixels, 0);
});

test('should match: a colour shift below the per-pixel threshold', () => {
  const r = compareImages(solid(50, 40, [100, 100, 100, 255]), solid(50, 40, [102, 101, 100, 255]), T);
  assert.equal(r.pass, true, r.detail);
});

test('should match: a few differing pixels within both budgets', () => {
  const a = solid(100, 100, [255, 255, 255, 255]);
  const r = compareImages(a, paint(a, 0, 0, 5, 5, [0, 0, 0, 255]), T); // 25 pixels, budget min(100, 100)
  assert.equal(r.pass, true, r.detail);
  assert.equal(r.diffPixels, 25);
});

test('should match: the share-card golden against itself re-read', () => {
  const g = golden('viewport.share-card-1200x630.png');
  assert.equal(compareImages(g, golden('viewport.share-card-1200x630.png'), T).pass, true);
});

test('should fail: different sizes', () => {
  const r = compareImages(solid(50, 40, [0, 0, 0, 255]), solid(50, 41, [0, 0, 0, 255]), T);
  assert.equal(r.pass, false);
  assert.match(r.detail, /size differs/);
});

test('should fail: a colour change above the threshold over a large area', () => {
  const r = compareImages(solid(50, 40, [224, 32, 32, 255]), solid(50, 40, [32, 160, 64, 255]), T);
  assert.equal(r.pass, false);
  assert.equal(r.diffPixels, 2000);
});

test('the smaller budget wins: under the pixel count but over the ratio fails', () => {
  const a = solid(20, 20, [255, 255, 255, 255]); // 400 px: ratio budget 4, count budget 100
  assert.equal(allowedDiff(400, T), 4);
  const r = compareImages(a, paint(a, 0, 0, 3, 3, [0, 0, 0, 255]), T); // 9 px differ
  assert.equal(r.pass, false, r.detail);
});

test('the smaller budget wins: under the ratio but over the pixel count fails', () => {
  const a = solid(1000, 1000, [255, 255, 255, 255]); // ratio budget 10000, count budget 100
  assert.equal(allowedDiff(1_000_000, T), 100);
  const r = compareImages(a, paint(a, 0, 0, 11, 11, [0, 0, 0, 255]), T); // 121 px differ
  assert.equal(r.pass, false, r.detail);
});

test('should fail: a banner painted over the share card', () => {
  const g = golden('viewport.share-card-1200x630.png');
  const r = compareImages(g, paint(g, 0, 530, 1200, 100, [122, 31, 31, 255]), { threshold: 0.1, maxDiffPixels: 2000, maxDiffPixelRatio: 0.005 });
  assert.equal(r.pass, false, r.detail);
});

test('should fail: the share card shifted three pixels (layout moved)', () => {
  const g = golden('viewport.share-card-1200x630.png');
  const r = compareImages(g, shiftRight(g, 3), { threshold: 0.1, maxDiffPixels: 2000, maxDiffPixelRatio: 0.005 });
  assert.equal(r.pass, false, r.detail);
});

test('should fail: transparency lost (white instead of alpha 0)', () => {
  const g = golden('omitBackground.transparent.png');
  const opaque = { ...g, data: new Uint8Array(g.data) };
  for (let i = 0; i < opaque.data.length; i += 4) if (opaque.data[i + 3] === 0) opaque.data.set([255, 255, 255, 255], i);
  const r = compareImages(g, opaque, { threshold: 0.1, maxDiffPixels: 2000, maxDiffPixelRatio: 0.005 });
  // pixelmatch blends alpha over a checkerboard, so transparent vs white differs
  assert.equal(r.pass, false, r.detail);
});

test('a diff image is produced for equal sizes', () => {
  const a = solid(10, 10, [255, 255, 255, 255]);
  const r = compareImages(a, paint(a, 0, 0, 10, 1, [0, 0, 0, 255]), T);
  assert.ok(r.diff);
  assert.equal(r.diff!.data.length, 400);
});

test('should match: the share card shifted by one pixel is within the declared tolerance (anti-aliasing edges)', () => {
  const g = golden('viewport.share-card-1200x630.png');
  const r = compareImages(g, shiftRight(g, 1), { threshold: 0.1, maxDiffPixels: 2000, maxDiffPixelRatio: 0.005 });
  assert.equal(r.pass, true, r.detail);
});
