// Semantic probes on synthetic images.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { solid } from '../engine/image.ts';
import { evaluateProbe, resolveRegion } from '../engine/probes.ts';

const img = solid(100, 50, [224, 32, 32, 255]);
for (let x = 50; x < 100; x++) for (let y = 0; y < 50; y++) img.data.set([0, 0, 0, 0], (y * 100 + x) * 4);

test('negative coordinates count from the right and bottom', () => {
  assert.deepEqual(resolveRegion(img, { x: -10, y: -5, w: 10, h: 5 }), { x: 90, y: 45, w: 10, h: 5 });
  assert.equal(resolveRegion(img, { x: 95, y: 0, w: 10, h: 5 }), null);
});

test('colour: holds on the red half, fails on the transparent half', () => {
  assert.equal(evaluateProbe(img, { kind: 'color', region: { x: 0, y: 0, w: 50, h: 50 }, rgb: [224, 32, 32] }).pass, true);
  assert.equal(evaluateProbe(img, { kind: 'color', region: { x: 40, y: 0, w: 20, h: 50 }, rgb: [224, 32, 32] }).pass, false);
  assert.equal(evaluateProbe(img, { kind: 'color', region: { x: 40, y: 0, w: 20, h: 50 }, rgb: [224, 32, 32], fraction: 0.5 }).pass, true);
});

test('absent: the colour is gone from the right half only', () => {
  assert.equal(evaluateProbe(img, { kind: 'absent', region: { x: 50, y: 0, w: 50, h: 50 }, rgb: [224, 32, 32] }).pass, true);
  assert.equal(evaluateProbe(img, { kind: 'absent', region: { x: 0, y: 0, w: 100, h: 50 }, rgb: [224, 32, 32] }).pass, false);
});

test('alpha: exact range', () => {
  assert.equal(evaluateProbe(img, { kind: 'alpha', region: { x: -10, y: 0, w: 10, h: 10 }, min: 0, max: 0 }).pass, true);
  assert.equal(evaluateProbe(img, { kind: 'alpha', region: { x: 0, y: 0, w: 10, h: 10 }, min: 0, max: 0 }).pass, false);
});

test('a region outside the image fails with a clear message', () => {
  const r = evaluateProbe(img, { kind: 'color', region: { x: 0, y: 40, w: 10, h: 20 }, rgb: [0, 0, 0] });
  assert.equal(r.pass, false);
  assert.match(r.detail, /outside/);
});
