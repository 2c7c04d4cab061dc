// Every mutant (mutants/mutants.ts) names the cases it runs against by a tag written on the case
// (or, for a pair mutant, by the generated cases holding its pair): a renamed or retagged case must
// not leave a mutant with nothing to run, which would make its "kill" meaningless.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allCases, selectCases } from '../cases/index.ts';
import { MUTANTS, selects } from '../mutants/mutants.ts';
import { PROPERTIES } from '../properties/list.ts';

const all = allCases();
// what run-mutants.ts runs them against
const runnable = selectCases(['reference', 'extensions']);

test('every mutant selects at least one case of the profiles the mutants run, or a property (and every property it names exists)', () => {
  const empty = MUTANTS.filter((m) => !runnable.some((c) => selects(m, c)) && !m.properties?.length).map((m) => m.id);
  assert.deepEqual(empty, [], `mutants with no case: ${empty.join(', ')}`);
  const ids = new Set(PROPERTIES.map((p) => p.id));
  const unknown = MUTANTS.flatMap((m) => (m.properties ?? []).filter((p) => !ids.has(p)).map((p) => `${m.id}: ${p}`));
  assert.deepEqual(unknown, []);
});

test('every tag on a case is the id of a mutant (a misspelt tag would select nothing)', () => {
  const ids = new Set(MUTANTS.map((m) => m.id));
  const stray = all.flatMap((c) => (c.tags ?? []).filter((t) => !ids.has(t)).map((t) => `${c.id}: ${t}`));
  assert.deepEqual(stray, []);
});

test('mutant ids are unique, and the check above can fail: a mutant with an unused tag selects nothing', () => {
  assert.equal(new Set(MUTANTS.map((m) => m.id)).size, MUTANTS.length);
  assert.equal(
    runnable.some((c) => selects({ cases: { tag: 'no-case-has-this-tag' } }, c)),
    false,
  );
  assert.equal(
    runnable.some((c) => selects({ cases: { ids: new Set(['pairs.core.renamed']) } }, c)),
    false,
  );
});
