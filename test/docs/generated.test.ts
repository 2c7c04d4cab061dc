// The reference tables of docs/ are generated (scripts/docs.ts) from the schema, the error
// catalogue and the settings table: a field, error code or setting added without its
// documentation fails here, as does a docs file whose tables are stale. Links between the docs
// files point at files and headings that exist.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ERROR_CATALOGUE } from '../../server/errors.ts';
import { screenshotRequestSchema } from '../../server/request/schema.ts';
import { GENERATED_FILES, regenerate, ROOT } from '../../scripts/docs.ts';

test('the generated tables of docs/ are up to date (npm run docs)', () => {
  for (const f of GENERATED_FILES) {
    const text = readFileSync(path.join(ROOT, f), 'utf8');
    assert.ok(/<!-- generated: /.test(text), `${f} holds generated tables`);
    assert.equal(text, regenerate(text, f), `${f} is stale: run npm run docs`);
  }
});

test('every request field (and every property of an object field) has a description', () => {
  for (const [name, s] of Object.entries(screenshotRequestSchema.properties as Record<string, any>)) {
    assert.ok(typeof s.description === 'string' && s.description.length > 10, `${name} has a description`);
    for (const [sub, ss] of Object.entries((s.properties ?? {}) as Record<string, any>)) assert.ok(typeof ss.description === 'string' && ss.description.length > 10, `${name}.${sub} has a description`);
  }
});

test('every error code says when it is sent', () => {
  for (const [code, e] of Object.entries(ERROR_CATALOGUE)) assert.ok(e.when.length > 10, code);
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (h: string) => h.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

test('links between README.md, CONTRIBUTING.md and docs/ reach files and headings that exist', () => {
  const files = ['README.md', 'CONTRIBUTING.md', 'conformance/RUNNING.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const anchorsOf = (f: string) => new Set([...readFileSync(path.join(ROOT, f), 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1]!)));
  for (const f of files) {
    const text = readFileSync(path.join(ROOT, f), 'utf8');
    for (const m of text.matchAll(/\]\(([^)\s]+?\.md)?(#[a-z0-9-]+)?\)/g)) {
      const [target, anchor] = [m[1], m[2]];
      if (!target && !anchor) continue;
      const file = target ? path.normalize(path.join(path.dirname(f), target)) : f;
      assert.ok(existsSync(path.join(ROOT, file)), `${f} links to ${target}, which does not exist`);
      if (anchor) assert.ok(anchorsOf(file).has(anchor.slice(1)), `${f} links to ${file}${anchor}, a heading that does not exist`);
    }
  }
});
