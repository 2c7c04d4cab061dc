// The cache key material: every field that changes the picture counts, cacheTtl and
// captureOnTimeout do not, and header/cookie values, css, js and actions appear only as a digest. The picture's ETag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheKey } from '../cache/index.ts';
import { validateRequest } from '../request/validate.ts';
import { etagOf, ifNoneMatchHits } from './etag.ts';
import { pictureOf } from './picture.ts';

const key = (body: Record<string, unknown>) => cacheKey('acc', pictureOf(validateRequest({ url: 'https://example.com/', ...body })));

test('every picture-changing field changes the key; cacheTtl does not', () => {
  const base = key({});
  assert.equal(key({ cacheTtl: 60 }), base);
  assert.equal(key({ cacheTtl: 0, deterministic: false }), base, 'defaults are filled in first');
  assert.equal(key({ captureOnTimeout: true }), base, 'only settled captures are stored: the same picture with or without the option');
  const variants = [
    { deterministic: true },
    { colorScheme: 'dark' },
    { colorScheme: 'light' },
    { userAgent: 'Bot/1' },
    { headers: { 'X-A': '1' } },
    { headers: { 'X-A': '2' } },
    { cookies: [{ name: 'a', value: '1' }] },
    { cookies: [{ name: 'a', value: '2' }] },
    { viewport: { width: 1200, height: 630 } },
    { format: 'jpeg' },
    { fullPage: true },
    { device: 'iPhone 15 Pro' },
    { device: 'iPhone 15 Pro', viewport: { width: 1200, height: 630 } },
    { timezone: 'Asia/Tokyo' },
    { timezone: 'Europe/Zurich' },
    { locale: 'de-CH' },
    { locale: 'fr-CH' },
    { geolocation: { latitude: 47.3769, longitude: 8.5417 } },
    { geolocation: { latitude: 47.3769, longitude: 8.5417, accuracy: 10 } },
    { mediaType: 'print' },
    { reducedMotion: 'reduce' },
    { reducedMotion: 'no-preference' },
    { javaScriptEnabled: false },
    { css: 'a{}' },
    { css: 'b{}' },
    { js: 'return 1' },
    { js: 'return 2' },
    { actions: [{ click: '#a' }] },
    { actions: [{ type: '#a', text: 'x' }] },
    { blockResourceTypes: ['image'] },
    { blockUrls: ['*x*'] },
    { clip: { x: 0, y: 0, width: 10, height: 10 } },
    { delay: 10 },
    { failOnTargetError: true },
  ];
  const keys = variants.map(key);
  assert.equal(new Set([base, ...keys]).size, variants.length + 1, 'all different');
  assert.equal(key({ headers: { 'x-a': '1' } }), key({ headers: { 'X-A': '1' } }), 'header names are case-insensitive');
  // One spelling per value: what is applied is what is keyed (server/emulation/resolve.ts).
  assert.equal(key({ timezone: 'asia/tokyo', locale: 'DE-ch' }), key({ timezone: 'Asia/Tokyo', locale: 'de-CH' }));
  assert.equal(key({ mediaType: 'screen', javaScriptEnabled: true }), base, 'defaults are filled in first');
  assert.equal(key({ deterministic: true, timezone: 'UTC', reducedMotion: 'reduce' }), key({ deterministic: true }), 'what deterministic implies, said or not');
});

test('header and cookie values, css, js and actions never appear in the key material', () => {
  const req = validateRequest({
    url: 'https://example.com/',
    headers: { Authorization: 'Bearer secret-token-1' },
    cookies: [{ name: 'session', value: 'secret-cookie-2' }],
    css: '.secret-css-3{}',
    js: 'secretJs4()',
    actions: [{ type: '#password', text: 'secret-text-5' }],
  });
  const material = JSON.stringify(pictureOf(req));
  for (const secret of ['secret-token-1', 'secret-cookie-2', 'session', 'secret-css-3', 'secretJs4', 'secret-text-5', '#password'])
    assert.ok(!material.includes(secret), material);
  assert.equal(req.headers?.Authorization, 'Bearer secret-token-1', 'the request itself is untouched');
});

test('ETag and If-None-Match', () => {
  const tag = etagOf(Buffer.from('png bytes'));
  assert.match(tag, /^"[A-Za-z0-9_-]{43}"$/);
  assert.equal(etagOf(Buffer.from('png bytes')), tag);
  assert.ok(ifNoneMatchHits(tag, tag) && ifNoneMatchHits(`"x", W/${tag}`, tag) && ifNoneMatchHits('*', tag));
  assert.ok(!ifNoneMatchHits('"other"', tag) && !ifNoneMatchHits(undefined, tag) && !ifNoneMatchHits('', tag));
});
