// The names of a render's steps are gathered from the steps (STEP_LABELS): each name once, so that
// Server-Timing never repeats one and the step metric's labels stay few.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STEP_LABELS } from './pipeline.ts';

test("every step's name is one label, and names are unique", () => {
  const names = STEP_LABELS.map((l) => l.name);
  assert.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
  );
  for (const must of ['browser', 'address', 'css', 'banners', 'last-look', 'action-0', 'load', 'delay', 'capture']) assert.ok(names.includes(must), must);
});
