// The pairwise generator (conformance/pairwise): the same seed gives the same cases, every pair a
// profile must cover is covered where it is judged, constraints are never broken, and the oracle's
// arithmetic is the spec's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { allCases } from '../cases/index.ts';
import type { Case, Probe } from '../model/model.ts';
import { pairwiseGenerated } from '../pairwise/cases.ts';
import { classify, complete, pairwiseCoverage } from '../pairwise/coverage.ts';
import { coveringArray, pairCoverage, pairsOf, type Constraint, type Parameter, type Visibility } from '../pairwise/covering.ts';
import { CARD, fixtureHtml, LATE, LID, PAGE_HEIGHT, stripNamed } from '../pairwise/fixture.ts';
import { frameOf, outputOf, whole } from '../pairwise/frame.ts';
import { judgedRows, lookOf, marginOf, oracle } from '../pairwise/oracle.ts';
import { SPEC_PARAMS, specCombo, WEBP_MAX_SIDE, type SpecCombo } from '../pairwise/parameters.ts';
import { PLANS, SEED } from '../pairwise/plans.ts';
import { Validity } from '../pairwise/validity.ts';
import { FIXTURE_FILE } from '../pairwise/write-fixture.ts';
import { EXTENSION_FIELDS } from '../pairwise/extension-values.ts';

const generated = pairwiseGenerated();
const gen = (profile: string) => generated.find((g) => g.plan.profile === profile)!;

/** A combination of each parameter's first value (the defaults, and the small viewport), changed where given. */
const combo = (over: Record<string, string> = {}): SpecCombo =>
  specCombo({ ...Object.fromEntries(Object.values(SPEC_PARAMS).map((p) => [p.name, p.values[0]!.id])), ...over });

test('the same seed gives the same rows; another seed other rows, as complete', () => {
  for (const plan of PLANS) {
    const o = { seed: SEED, constraints: plan.constraints, visibility: plan.visibility, required: plan.required };
    const again = coveringArray(plan.params, o);
    assert.deepEqual(
      again.rows,
      gen(plan.profile).rows.map((r) => r.row),
      plan.profile,
    );
    const other = coveringArray(plan.params, { ...o, seed: SEED + 1 });
    assert.notDeepEqual(other.rows, again.rows, plan.profile);
    assert.equal(pairCoverage(plan.params, other.rows, plan).missing.length, 0, plan.profile);
  }
});

test('every profile covers 100% of its possible pairs, read back from the cases the suite runs', () => {
  const reports = pairwiseCoverage(allCases());
  assert.deepEqual(
    reports.map((r) => r.plan.profile),
    ['core', 'extensions', 'reference'],
  );
  for (const r of reports) {
    assert.ok(complete(r), `${r.plan.profile}: ${r.covered}/${r.possible}, unreadable ${r.unreadable.join(', ')}`);
    assert.ok(r.possible > 50 && r.cases > 0);
  }
  // a pair the core array must cover: fullPage with the 10000 px tall window, judged (no selector)
  assert.ok(gen('core').rows.some((r) => r.ids.fullPage === 'on' && r.ids.selector === 'off' && r.ids.viewport === 'max-height'));
});

test('coverage notices a missing case', () => {
  const core = allCases().filter((c) => c.id.startsWith('pairs.core.'));
  const [r] = pairwiseCoverage(core.slice(1));
  assert.ok(r!.covered < r!.possible);
});

test('a case body classifies back to its row', () => {
  for (const g of generated) for (const r of g.rows) assert.deepEqual(classify(g.plan.params, (r.case.request as { body: unknown }).body), r.row, r.case.id);
});

test('no generated row breaks a constraint', () => {
  for (const g of generated) {
    const v = new Validity(g.plan.params, g.plan.constraints, g.plan.visibility);
    for (const r of g.rows) assert.equal(v.broken(r.row)?.why ?? null, null, r.case.id);
  }
  for (const { ids, case: c } of generated.flatMap((g) => g.rows)) {
    if (ids.quality !== 'none') assert.ok(['jpeg', 'webp'].includes(ids.format!), `${c.id}: quality only with jpeg/webp`);
    if (ids.viewport === 'default') assert.equal(ids.scale, 'default', `${c.id}: deviceScaleFactor needs a viewport`);
    if (ids.format === 'webp') assert.ok(c.expect.image!.width! <= WEBP_MAX_SIDE && c.expect.image!.height! <= WEBP_MAX_SIDE, c.id);
  }
});

test('constraints and visibility on a small example: a forbidden pair never meets, a hidden effect does not count', () => {
  const params: Parameter[] = [
    { name: 'a', values: [{ id: '0' }, { id: '1' }] },
    { name: 'b', values: [{ id: '0' }, { id: '1' }, { id: '2' }] },
    { name: 'c', values: [{ id: '0' }, { id: '1' }] },
  ];
  const constraints: Constraint[] = [{ why: 'a=1 never with b=2', params: ['a', 'b'], allows: (x) => !(x.a === '1' && x.b === '2') }];
  const visibility: Visibility[] = [{ param: 'c', value: '1', why: 'c=1 shows only with a=0', reads: ['a'], shows: (x) => x.a === '0' }];
  const arr = coveringArray(params, { seed: 1, constraints, visibility });
  assert.ok(arr.rows.every((r) => !(r[0] === 1 && r[1] === 2)));
  // (a=1, b=2) is forbidden; (a=1, c=1) can never be judged: both are left out of the possible pairs
  assert.deepEqual(arr.impossible.map((p) => `${p.a}:${p.va}|${p.b}:${p.vb}`).sort(), ['0:1|1:2', '0:1|2:1']);
  assert.equal(arr.possible, 2 * 3 + 2 * 2 + 3 * 2 - 2);
  assert.equal(pairCoverage(params, arr.rows, { constraints, visibility }).missing.length, 0);
  // c=1 with b counts only in rows where a=0
  const v = new Validity(params, constraints, visibility);
  assert.equal(v.counts([1, 0, 1], { a: 1, va: 0, b: 2, vb: 1 }), false);
  assert.equal(v.counts([0, 0, 1], { a: 1, va: 0, b: 2, vb: 1 }), true);
  assert.ok(pairsOf([0, 0, 1]).length === 3);
});

test('frames and sizes: viewport x scale, full page x scale, the element box x scale; selector wins over fullPage', () => {
  const vp = { width: 200, height: 360 };
  assert.deepEqual(outputOf(frameOf({ viewport: vp, scale: 2, fullPage: false, selector: false }), 2), { width: 400, height: 720, cut: false });
  assert.deepEqual(outputOf(frameOf({ viewport: vp, scale: 4, fullPage: true, selector: false }), 4), { width: 800, height: 4 * PAGE_HEIGHT, cut: false });
  // a window taller than the page: the scrollable page is the window
  assert.deepEqual(frameOf({ viewport: { width: 10, height: 10000 }, scale: 1, fullPage: true, selector: false }), { y: 0, width: 10, height: 10000 });
  const card = frameOf({ viewport: vp, scale: 0.1, fullPage: true, selector: true });
  assert.deepEqual(card, { y: CARD.y0, width: 200, height: CARD.y1 - CARD.y0 });
  assert.deepEqual(outputOf(card, 0.1), { width: 20, height: (CARD.y1 - CARD.y0) / 10, cut: false });
  assert.deepEqual(outputOf(frameOf({ viewport: null, scale: null, fullPage: false, selector: false }), 1), { width: 1280, height: 720, cut: false });
  assert.equal(whole({ y: 0, width: 1, height: 360 }, 0.1), false);
  assert.equal(whole({ y: 40, width: 200, height: 300 }, 0.1), true);
});

test('an output ceiling cuts rows, never columns', () => {
  const tall = frameOf({ viewport: { width: 10, height: 10000 }, scale: 4, fullPage: true, selector: false });
  assert.deepEqual(outputOf(tall, 4, { maxSide: WEBP_MAX_SIDE }), { width: 40, height: WEBP_MAX_SIDE, cut: true });
  assert.deepEqual(outputOf(tall, 4, { maxPixels: 40 * 1000 + 39 }), { width: 40, height: 1000, cut: true });
  assert.deepEqual(outputOf(tall, 1, { maxPixels: 100_000_000, maxSide: WEBP_MAX_SIDE }), { width: 10, height: 10000, cut: false });
  const e = oracle({ combo: combo({ viewport: 'max-height', scale: '4', fullPage: 'on' }), profile: 'reference', ceiling: { maxSide: 20000 } });
  assert.equal(e.image!.height, 20000);
  const below = e.probes!.filter((p) => p.label?.startsWith('below the page'));
  assert.equal(below.length, 1);
  assert.equal(below[0]!.region.y + below[0]!.region.h, 20000);
});

test('margins: PNG exact, lossy at 100 two pixels, below it whole 16 px block rows of one strip', () => {
  assert.deepEqual(judgedRows(80, 180, 720, marginOf('png', null)), [80, 180]);
  assert.deepEqual(judgedRows(80, 180, 720, marginOf('jpeg', 100)), [82, 178]);
  assert.deepEqual(judgedRows(80, 180, 720, marginOf('webp', 1)), [84, 172]); // blocks 80..176, 4 px in
  assert.deepEqual(judgedRows(0, 40, 40, marginOf('jpeg', null)), [0, 40]); // the whole image: no neighbour to bleed
  assert.equal(judgedRows(4, 9, 100, marginOf('jpeg', null)), null);
  assert.deepEqual(judgedRows(-80, 20, 30, marginOf('png', null)), [0, 20]);
});

const probeOf = (e: ReturnType<typeof oracle>, strip: string): Probe | undefined => e.probes!.find((p) => p.label?.startsWith(`${strip}:`));

test('looks: a hidden element shows what is under it, a waited element is there, transparency only where the spec says', () => {
  const lid = stripNamed('lid');
  assert.deepEqual(lookOf(lid, combo(), [], 'core'), { rgb: LID.rgb, why: 'the element that is not hidden' });
  assert.deepEqual((lookOf(lid, combo({ hideSelectors: 'lid+root' }), [], 'core') as { rgb: unknown }).rgb, lid.rgb);
  assert.equal(lookOf(stripNamed('late'), combo(), [], 'core'), undefined);
  assert.deepEqual((lookOf(stripNamed('late'), combo({ waitForSelector: 'on' }), [], 'core') as { rgb: unknown }).rgb, LATE.rgb);
  const clear = stripNamed('clear');
  assert.ok('transparent' in lookOf(clear, combo({ omitBackground: 'on' }), [], 'core')!);
  assert.equal(lookOf(clear, combo({ omitBackground: 'on', format: 'webp' }), [], 'core'), undefined);
  assert.ok('transparent' in lookOf(clear, combo({ omitBackground: 'on', format: 'webp' }), [], 'reference')!);
  assert.deepEqual((lookOf(clear, combo({ omitBackground: 'on', format: 'jpeg' }), [], 'reference') as { rgb: unknown }).rgb, [255, 255, 255]);
  const dark = EXTENSION_FIELDS.find((f) => f.field === 'colorScheme')!.values.find((x) => x.id === 'dark')!;
  assert.equal(lookOf(clear, combo(), [{ field: 'colorScheme', json: 'dark', effect: dark.effect }], 'extensions'), undefined);
});

test('the oracle of a whole case: size, type, alpha and probes where the strips are', () => {
  const e = oracle({ combo: combo({ scale: '2', fullPage: 'on', omitBackground: 'on', hideSelectors: 'lid', waitForSelector: 'on' }), profile: 'core' });
  assert.deepEqual(e.image, { type: 'png', width: 400, height: 2 * PAGE_HEIGHT, hasAlpha: true });
  assert.deepEqual(probeOf(e, 'lid')!.region, { x: 0, y: 80, w: 400, h: 100 });
  assert.deepEqual(probeOf(e, 'late')!.region, { x: 0, y: 180, w: 400, h: 100 });
  assert.deepEqual(probeOf(e, 'clear'), {
    kind: 'alpha',
    region: { x: 0, y: 280, w: 400, h: 100 },
    min: 0,
    max: 0,
    label: 'clear: no background: transparent (omitBackground, PNG)',
  });
  const jpeg = oracle({ combo: combo({ format: 'jpeg', selector: 'on', fullPage: 'on' }), profile: 'core' });
  assert.deepEqual(jpeg.image, { type: 'jpeg', width: 200, height: CARD.y1 - CARD.y0, hasAlpha: false });
  assert.equal(probeOf(jpeg, 'head'), undefined); // above the element
  const opaque = oracle({ combo: combo({ format: 'webp', quality: '100' }), profile: 'core' });
  assert.ok(opaque.probes!.some((p) => p.kind === 'alpha' && p.min === 255 && p.region.w === 200 && p.region.h === 360));
});

test('every generated case is well-formed: probes inside the image, at least one, frames whole at their scale', () => {
  const cases: Case[] = generated.flatMap((g) => g.rows.map((r) => r.case));
  assert.ok(cases.length > 40);
  for (const c of cases) {
    const img = c.expect.image!;
    assert.ok((c.expect.probes ?? []).length > 0, c.id);
    for (const p of c.expect.probes!) {
      assert.ok(p.region.x >= 0 && p.region.y >= 0 && p.region.w > 0 && p.region.h > 0, `${c.id} ${p.label}`);
      assert.ok(p.region.x + p.region.w <= img.width! && p.region.y + p.region.h <= img.height!, `${c.id} ${p.label}`);
    }
    assert.equal(c.profile === 'extensions', (c.fields ?? []).length > 0, c.id);
  }
  assert.ok(cases.filter((c) => c.profile === 'core').every((c) => !c.fields));
});

test('fixtures/pages/pairwise.html is written from fixture.ts and up to date (node --import tsx conformance/pairwise/write-fixture.ts)', () => {
  assert.equal(readFileSync(FIXTURE_FILE, 'utf8'), fixtureHtml());
});
