// The suite's data: every spec rule has a case, the cases are well-formed, the expectations files
// are valid, the goldens decode to the size their cases expect, and fixtures are self-contained.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { allCases, selectCases, validateCases } from '../cases/index.ts';
import { consentCases } from '../cases/consent.ts';
import { coverageMatrix, uncovered } from '../report/coverage.ts';
import { schemaErrors } from '../model/export.ts';
import { loadExpectations, parseExpectations } from '../engine/expectations.ts';
import { FONT_TOKEN, PAGES_DIR, pageFixture, REPO_ROOT, sizedHtml } from '../fixture-pages/fixtures.ts';
import { readPng } from '../engine/image.ts';
import { RULES } from '../model/rules.ts';

const cases = allCases();
const ids = new Set(cases.map((c) => c.id));

test('every spec rule has at least one case (REST and MCP alike)', () => {
  assert.deepEqual(
    uncovered(cases).map((r) => r.id),
    [],
  );
});

test('every case is valid against case.schema.json (the export format)', () => {
  for (const c of cases) assert.equal(schemaErrors(JSON.parse(JSON.stringify(c))), null, c.id);
});

test('every rule id is unique and every non-spec rule without a case says why', () => {
  assert.equal(new Set(RULES.map((r) => r.id)).size, RULES.length);
  for (const row of coverageMatrix(cases)) {
    const n = Object.values(row.cases).reduce((sum, ids) => sum + ids.length, 0);
    if (n === 0) assert.ok(row.rule.untested, `${row.rule.id} has no case and no reason`);
  }
});

test('cases are well-formed (ids unique, MUST sentence, known rules, probes on image cases)', () => {
  validateCases(cases);
});

test('the core profile holds only core cases and reference includes core', () => {
  assert.ok(selectCases(['core']).every((c) => c.profile === 'core'));
  const ref = selectCases(['reference']);
  assert.ok(ref.some((c) => c.profile === 'core') && ref.some((c) => c.profile === 'reference'));
  assert.ok(!ref.some((c) => c.profile === 'security'));
});

test('core cases never depend on reference decisions (no x- headers, no DESIGN §3 codes)', () => {
  const designCodes =
    /^(unauthorized|insufficient_credits|payload_too_large|unsupported_media_type|rate_limited|overloaded|navigation_failed|render_failed|not_found|method_not_allowed|internal_error)$/;
  for (const c of selectCases(['core'])) {
    for (const e of [c.expect, ...(c.then ?? []).map((s) => s.expect)]) {
      for (const h of Object.keys(e.headers ?? {})) assert.ok(!h.startsWith('x-'), `${c.id} checks ${h}`);
      if (e.error) assert.ok(!designCodes.test(e.error), `${c.id} expects ${e.error}`);
      if (typeof e.status === 'number') assert.ok([200, 400, 504].includes(e.status), `${c.id} expects status ${e.status}`);
    }
    assert.ok(!c.rules.some((r) => r.startsWith('D3/')), `${c.id} cites a DESIGN rule`);
  }
});

test('consent manifest cases exist when the manifest does, with probes', () => {
  for (const c of consentCases()) {
    assert.ok(c.expect.probes && c.expect.probes.length > 0, c.id);
  }
});

test('the reference expectations file is valid', () => {
  loadExpectations(path.join(REPO_ROOT, 'conformance', 'expectations', 'reference.json'), ids);
});

test('expectations need a reason and known case ids', () => {
  assert.throws(() => parseExpectations('{"failures":[{"case":"format.png"}]}', ids), /reason/);
  assert.throws(() => parseExpectations('{"failures":[{"case":"no.such.case","reason":"x"}]}', ids), /unknown case/);
  assert.equal(parseExpectations('{"implementation":"x","failures":[{"case":"format.png","reason":"bug 12"}]}', ids).failures.size, 1);
});

test('every golden on disk belongs to a case and has the size the case expects', () => {
  const dir = path.join(REPO_ROOT, 'golden');
  const byName = new Map(cases.filter((c) => c.expect.golden).map((c) => [c.expect.golden!.name ?? `${c.id}.png`, c]));
  for (const c of byName.values()) assert.ok(c.expect.golden!.guards.length > 20, `${c.id}: the golden says what it guards`);
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.png'))) {
    const c = byName.get(f);
    assert.ok(c, `golden/${f} belongs to no case`);
    const img = readPng(readFileSync(path.join(dir, f)));
    if (c.expect.image?.width !== undefined) assert.equal(img.width, c.expect.image.width, f);
    if (c.expect.image?.height !== undefined) assert.equal(img.height, c.expect.image.height, f);
  }
});

test('fixture pages are self-contained: no external URLs, fonts inlined', () => {
  for (const f of readdirSync(PAGES_DIR).filter((f) => f.endsWith('.html'))) {
    const raw = readFileSync(path.join(PAGES_DIR, f), 'utf8').replace(/<!--[\s\S]*?-->/g, '');
    assert.ok(!/(src|href|action)\s*=\s*["']?(https?:)?\/\//i.test(raw), `${f} references an external URL`);
    assert.ok(!/url\(\s*["']?(https?:)?\/\//i.test(raw), `${f} references an external URL in CSS`);
    assert.ok(!/@import/i.test(raw), `${f} imports CSS`);
    const text = pageFixture(f.replace(/\.html$/, ''));
    assert.ok(!text.includes(FONT_TOKEN), `${f}: font token left`);
    if (raw.includes(FONT_TOKEN)) assert.match(text, /data:font\/woff2;base64,/);
  }
});

test('sizedHtml is exact in UTF-8 bytes, also with two-byte fill', () => {
  for (const n of [2_000_000, 2_000_001, 2_000_002]) {
    assert.equal(Buffer.byteLength(sizedHtml(n), 'utf8'), n);
    assert.equal(Buffer.byteLength(sizedHtml(n, 'é'), 'utf8'), n);
  }
  assert.ok(sizedHtml(2_000_002, 'é').length < 2_000_000, 'two-byte fill: fewer characters than bytes');
});

test('every fixture a case names exists', () => {
  const walk = (v: unknown): string[] =>
    Array.isArray(v) ? v.flatMap(walk) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => (k === '$fixture' ? [x as string] : walk(x))) : [];
  for (const c of cases)
    for (const name of walk([c.request, ...(c.then ?? []).map((s) => s.request), c.expect.relation?.request])) {
      assert.ok(existsSync(path.join(PAGES_DIR, `${name}.html`)), `${c.id}: fixture ${name} missing`);
    }
});

test('case.schema.json is the one generated from model.ts (node --import tsx scripts/case-schema.ts)', async () => {
  const { caseSchema } = await import('../../scripts/case-schema.ts');
  const { CASE_SCHEMA_FILE } = await import('../model/export.ts');
  assert.equal((await import('node:fs')).readFileSync(CASE_SCHEMA_FILE, 'utf8'), caseSchema());
});
