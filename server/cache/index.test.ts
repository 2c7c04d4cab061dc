// The result cache's keys (normalised url-mode requests per account and browser version, html
// never cached). The store itself: shared.test.ts; the request's Cache-Control:
// server/http-caching/cache-control.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateRequest } from '../request/validate.ts';
import { PICTURE_FACTS } from '../render/picture-facts.ts';
import { cacheKey, canonicalJson, entryShape } from './index.ts';

test('cacheKey: identical normalised requests share a key, per account; any field difference does not', () => {
  const k = (acc: string, body: object) => cacheKey(acc, validateRequest(body));
  const base = k('acc_1', { url: 'https://example.com' });
  assert.equal(k('acc_1', { url: 'https://EXAMPLE.com:443/', format: 'png', fullPage: false, unknownField: 1 }), base);
  assert.equal(k('acc_1', { viewport: { height: 720, width: 1280 }, url: 'https://example.com/' }), base);
  assert.notEqual(k('acc_2', { url: 'https://example.com' }), base, 'per account');
  assert.notEqual(k('acc_1', { url: 'https://example.com/?a=1' }), base);
  assert.notEqual(k('acc_1', { url: 'https://example.com', fullPage: true }), base);
  assert.notEqual(k('acc_1', { url: 'https://example.com', hideSelectors: ['.ad'] }), base);
  assert.ok(!base.includes('example.com'), 'the key does not carry the request in clear');
  assert.notEqual(cacheKey('acc_1', validateRequest({ url: 'https://example.com' }), 'HeadlessChrome/157.0.1.2'), base, 'per browser version');
  assert.throws(() => k('acc_1', { html: '<p>hi</p>' }), /never cached/);
});

test('canonicalJson sorts keys at every level and drops undefined', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: undefined, w: null }], c: 'x' } }), '{"a":{"c":"x","d":[2,{"w":null,"y":1}]},"b":1}');
});

test('the entry shape is derived from the facts an entry holds: a new fact makes new keys by itself', () => {
  const req = validateRequest({ url: 'https://example.com' });
  // x-final-url's fact, added after the first shape: entries stored without it are never read.
  assert.match(entryShape(), /\bfinalUrl\b/);
  for (const fact of Object.keys(PICTURE_FACTS)) assert.ok(entryShape().split(/[:,]/).includes(fact), fact);
  const withNewFact = entryShape({ ...PICTURE_FACTS, someNewFact: true });
  assert.notEqual(withNewFact, entryShape());
  assert.notEqual(cacheKey('acc_1', req, '', withNewFact), cacheKey('acc_1', req), 'a new fact: another key');
  assert.equal(cacheKey('acc_1', req, '', entryShape({ ...PICTURE_FACTS })), cacheKey('acc_1', req), 'the same facts: the same key');
});
