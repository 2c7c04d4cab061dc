// Suggestions for a mistyped name: case, spaces and punctuation do not count, the nearest come first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closest } from './closest.ts';

const NAMES = ['iPhone 15', 'iPhone 15 landscape', 'iPhone 15 Pro', 'iPhone 15 Pro Max', 'Pixel 5', 'Galaxy S9+', 'iPad Mini'];

test('spelling, case and spacing aside, the same name comes first', () => {
  assert.equal(closest('iphone15pro', NAMES)[0], 'iPhone 15 Pro');
  assert.equal(closest('IPHONE 15', NAMES)[0], 'iPhone 15');
  assert.equal(closest('galaxy s9 plus', NAMES, 1)[0], 'Galaxy S9+');
});

test("a near miss gets the nearest names, in the list's order on ties", () => {
  assert.deepEqual(closest('iPhone 16 Pro', NAMES), ['iPhone 15 Pro', 'iPhone 15', 'iPhone 15 Pro Max']);
  assert.deepEqual(closest('Pixel 7', NAMES, 1), ['Pixel 5']);
  assert.equal(closest('x'.repeat(10_000), NAMES).length, 3, 'a long value is cheap and still answered');
});
