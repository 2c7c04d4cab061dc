// Cache-Control both ways: what a request's asks of the result cache, and a signed link's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cachePolicy, linkCacheControl } from './cache-control.ts';

test("a request's Cache-Control: no-cache and max-age=0 render fresh; no-store also stores nothing", () => {
  assert.deepEqual(cachePolicy(undefined), { lookup: true, store: true });
  assert.deepEqual(cachePolicy('no-cache'), { lookup: false, store: true });
  assert.deepEqual(cachePolicy('No-Cache, foo'), { lookup: false, store: true });
  assert.deepEqual(cachePolicy('max-age=0'), { lookup: false, store: true });
  assert.deepEqual(cachePolicy('max-age=60'), { lookup: true, store: true });
  assert.deepEqual(cachePolicy('no-store'), { lookup: false, store: false });
});

test("a signed link's Cache-Control: public for its TTL, never past the expiry", () => {
  assert.equal(linkCacheControl(300, 10_000, 1_000), 'public, max-age=300, immutable');
  assert.equal(linkCacheControl(86400, 1_060, 1_000), 'public, max-age=60, immutable', 'never past the expiry');
  assert.equal(linkCacheControl(0, 10_000, 1_000), 'public, no-cache');
});
