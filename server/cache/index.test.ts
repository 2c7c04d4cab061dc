// The result cache: TTL, LRU bounded by bytes, keys of normalised url-mode requests per account,
// html never cached, Cache-Control handling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateRequest } from '../request/validate.ts';
import { cacheKey, cachePolicy, canonicalJson, createResultCache, type CachedResult } from './index.ts';

const result = (bytes: number, tag = 'x'): CachedResult => ({
  body: Buffer.alloc(bytes, tag),
  contentType: 'image/png',
  headers: { 'content-disposition': 'inline; filename="screenshot.png"', 'x-banner-action': 'none' },
  width: 10,
  height: 10,
});

test('an entry is served until its TTL, then gone', () => {
  let now = 1_000_000;
  const c = createResultCache({ ttlSeconds: 300, maxBytes: 1 << 20, now: () => now });
  c.set('k', result(100));
  now += 299_999;
  assert.equal(c.get('k')?.body.length, 100);
  now += 1;
  assert.equal(c.get('k'), undefined);
  assert.equal(c.size, 0);
  assert.equal(c.bytes, 0);
});

test('memory stays under maxBytes by evicting the least recently used', () => {
  const probe = createResultCache({ ttlSeconds: 300, maxBytes: 1 << 20 });
  probe.set('a', result(1000));
  const entry = probe.bytes; // the body plus headers, key and overhead
  assert.ok(entry >= 1000 && entry < 2000);
  const max = 3 * entry + 10; // room for three
  const c = createResultCache({ ttlSeconds: 300, maxBytes: max });
  c.set('a', result(1000, 'a'));
  c.set('b', result(1000, 'b'));
  c.set('c', result(1000, 'c'));
  assert.ok(c.get('a')); // a is now the most recently used
  c.set('d', result(1000, 'd'));
  assert.ok(c.bytes <= max);
  assert.equal(c.size, 3);
  assert.equal(c.get('b'), undefined, 'b was the least recently used');
  assert.ok(c.get('a') && c.get('c') && c.get('d'));
  c.set('huge', result(10_000));
  assert.equal(c.get('huge'), undefined, 'an entry larger than the cache is not stored');
  assert.ok(c.get('d'), 'and evicts nothing');
});

test('stored results are copies, and a set replaces the previous entry', () => {
  const c = createResultCache({ ttlSeconds: 300, maxBytes: 1 << 20 });
  const r = result(10, 'a');
  c.set('k', r);
  r.body.fill('z');
  r.headers['x-banner-action'] = 'changed';
  assert.equal(c.get('k')!.body.toString(), 'a'.repeat(10));
  assert.equal(c.get('k')!.headers['x-banner-action'], 'none');
  const before = c.bytes;
  c.set('k', result(10, 'b'));
  assert.equal(c.bytes, before);
  assert.equal(c.get('k')!.body.toString(), 'b'.repeat(10));
});

test('a TTL or size of 0 turns the cache off', () => {
  for (const o of [{ ttlSeconds: 0, maxBytes: 1 << 20 }, { ttlSeconds: 300, maxBytes: 0 }]) {
    const c = createResultCache(o);
    c.set('k', result(10));
    assert.equal(c.get('k'), undefined);
  }
});

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
  assert.throws(() => k('acc_1', { html: '<p>hi</p>' }), /never cached/);
});

test('canonicalJson sorts keys at every level and drops undefined', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: undefined, w: null }], c: 'x' } }), '{"a":{"c":"x","d":[2,{"w":null,"y":1}]},"b":1}');
});

test('Cache-Control: no-cache and max-age=0 render fresh; no-store also stores nothing', () => {
  assert.deepEqual(cachePolicy(undefined), { lookup: true, store: true });
  assert.deepEqual(cachePolicy('no-cache'), { lookup: false, store: true });
  assert.deepEqual(cachePolicy('No-Cache, foo'), { lookup: false, store: true });
  assert.deepEqual(cachePolicy('max-age=0'), { lookup: false, store: true });
  assert.deepEqual(cachePolicy('max-age=60'), { lookup: true, store: true });
  assert.deepEqual(cachePolicy('no-store'), { lookup: false, store: false });
});

test('per-entry TTL and a maximum age at lookup (cacheTtl, issue 12)', () => {
  let now = 1_000_000;
  const c = createResultCache({ ttlSeconds: 300, maxBytes: 1 << 20, now: () => now });
  c.set('short', result(10), { ttlSeconds: 10 });
  c.set('long', result(10), { ttlSeconds: 3600 });
  c.set('none', result(10), { ttlSeconds: 0 });
  assert.equal(c.get('none'), undefined, 'a TTL of 0 stores nothing');
  now += 9_999;
  assert.ok(c.get('short'));
  assert.equal(c.get('short', { maxAgeSeconds: 5 }), undefined, 'older than the caller accepts');
  assert.ok(c.get('short'), 'but still there for others');
  now += 1;
  assert.equal(c.get('short'), undefined, 'its own TTL ended');
  now += 600_000;
  assert.ok(c.get('long'), 'past the cache default, within its own TTL');
  assert.equal(c.get('long', { maxAgeSeconds: 600 }), undefined);
});
