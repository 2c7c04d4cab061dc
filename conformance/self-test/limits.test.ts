// The exact-limit cases (conformance/limits/) against the reference's own request validation: every
// bound the schema states has its cases, every exact value is valid and every value one past it is
// refused with a message naming the field; and the pages the relations draw (properties/pages.ts)
// keep the geometry their oracles rely on. No server: these run in well under a second of CPU.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { validateRequest } from '../../server/request/validate.ts';
import { resolveValue } from '../engine/resolve.ts';
import { boundKey, schemaBounds } from '../limits/bounds.ts';
import { limitsCases } from '../limits/cases.ts';
import { drawnPage } from '../properties/pages.ts';
import type { HttpRequestSpec } from '../model/model.ts';

/** A body as the runner sends it (directives resolved; fixture URLs to a public-looking address the validator accepts). */
const sent = (c: { request: unknown }) =>
  resolveValue((c.request as HttpRequestSpec).body, {
    baseUrl: 'http://impl.test',
    apiKey: 'k',
    fixtureOrigins: ['https://example.com'],
    nonce: 'n',
  }) as Record<string, unknown>;

test('every bound of the schema has its cases: one past always, the exact value unless the field means more than its syntax', () => {
  const ids = new Set(limitsCases().map((c) => c.id));
  for (const b of schemaBounds()) {
    assert.ok(ids.has(`limits.${boundKey(b)}.past`), boundKey(b));
    if (!b.node.format || b.node.format === 'uri') assert.ok(ids.has(`limits.${boundKey(b)}.exact`), boundKey(b));
  }
  const keys = schemaBounds().map(boundKey);
  for (const k of [
    'html.maxBytes',
    'hideSelectors.maxItems',
    'hideSelectors[].maxLength',
    'viewport.width.maximum',
    'viewport.deviceScaleFactor.minimum',
    'quality.maximum',
  ])
    assert.ok(keys.includes(k), k);
});

test('every exact value passes the reference validation; every value one past is refused naming the field', () => {
  for (const c of limitsCases()) {
    const body = sent(c);
    if (c.id.endsWith('.exact')) validateRequest(body);
    else
      assert.throws(
        () => validateRequest(body),
        (e: Error) => (c.expect.message ? new RegExp(c.expect.message).test(e.message) : true),
        c.id,
      );
  }
});

test('the exact html is exactly 2,000,000 UTF-8 bytes of two-byte characters, one past 2,000,001', () => {
  const html = (suffix: string) => sent(limitsCases().find((c) => c.id === `limits.html.maxBytes.${suffix}`)!).html as string;
  assert.equal(Buffer.byteLength(html('exact')), 2_000_000);
  assert.equal(Buffer.byteLength(html('past')), 2_000_001);
  assert.ok(html('exact').length < 1_100_000, 'mostly two-byte characters');
});

test('a drawn page: blocks inside the page, on the 10 px grid, none overlapping, the middle one always there', () => {
  fc.assert(
    fc.property(drawnPage(), (p) => {
      assert.ok(p.blocks.some((b) => b.id === 'b4'));
      for (const b of p.blocks) {
        assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= p.width && b.y + b.h <= p.height, JSON.stringify(b));
        assert.ok([b.x, b.y, b.w, b.h].every((v) => v % 10 === 0));
        assert.ok(
          [...b.rgb, ...(b.to ?? [])].every((v) => v <= 200),
          'no block is white',
        );
        for (const o of p.blocks)
          if (o !== b) assert.ok(o.x >= b.x + b.w || b.x >= o.x + o.w || o.y >= b.y + b.h || b.y >= o.y + o.h, `${b.id} overlaps ${o.id}`);
      }
    }),
    { seed: 7, numRuns: 300 },
  );
});
