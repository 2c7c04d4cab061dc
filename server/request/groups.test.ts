// Every request field names a group of options, one that exists, and /openapi.json carries them
// (the playground's form reads them there); everything else clients see stays without annotations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRequestSchema, publicCompareSchema } from '../compare/schema.ts';
import { openApiDocument } from '../http/openapi.ts';
import { FIELD_GROUPS } from './groups.ts';
import { publicSchema, screenshotRequestSchema } from './schema.ts';

const NAMES = new Set<string>(FIELD_GROUPS.map((g) => g.name));

test('every capture and compare field has a group of the list, and every group has a field', () => {
  const used = new Set<string>();
  for (const schema of [screenshotRequestSchema, compareRequestSchema]) {
    for (const [field, s] of Object.entries<Record<string, unknown>>(schema.properties)) {
      const group = s['x-group'];
      assert.ok(typeof group === 'string' && NAMES.has(group), `${field}: x-group ${String(group)}`);
      used.add(group);
    }
  }
  assert.deepEqual(
    [...NAMES].filter((n) => !used.has(n)),
    [],
    'a group without fields',
  );
  assert.equal(new Set(FIELD_GROUPS.map((g) => g.title)).size, FIELD_GROUPS.length);
  assert.ok(FIELD_GROUPS.some((g) => g.open) && FIELD_GROUPS.some((g) => !g.open), 'essentials open, the rest folded');
});

test('/openapi.json keeps x-group on each field and lists x-groups; other public schemas carry none', () => {
  const doc = openApiDocument() as any;
  for (const body of ['ScreenshotRequest', 'CompareRequest']) {
    const schema = doc.components.requestBodies[body].content['application/json'].schema;
    assert.deepEqual(schema['x-groups'], FIELD_GROUPS, body);
    for (const [field, s] of Object.entries<any>(schema.properties)) assert.ok(NAMES.has(s['x-group']), `${body}.${field}`);
    assert.ok(!/"x-(rule|message|max-bytes|suggest)":/.test(JSON.stringify(schema)), `${body}: no other annotation`);
  }
  for (const schema of [publicSchema(), publicCompareSchema()]) assert.ok(!/"x-[a-z-]+":/.test(JSON.stringify(schema)), 'MCP and the suite see none');
});
