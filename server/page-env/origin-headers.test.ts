// The header rewrite of origin-headers.ts, request by request: the target's exact origin
// gets the caller's headers and cookies (merged with the page's own cookies); any other origin gets
// none, and loses them if a request carries them over. In a browser: test/api/page-env.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headersFor } from './origin-headers.ts';

const origin = 'https://app.example.com';
const extras = { headers: { 'X-Tenant': 't-1', Authorization: 'Bearer s' }, cookies: [{ name: 'sess', value: 'c-1' }] };

test('the target origin gets them, replacing same-named headers and keeping the page cookies', () => {
  const out = headersFor('https://app.example.com/img.png?x', { accept: '*/*', authorization: 'Basic old', cookie: 'own=1' }, origin, extras);
  assert.deepEqual(out, { accept: '*/*', authorization: 'Bearer s', 'x-tenant': 't-1', cookie: 'own=1; sess=c-1' });
});

test('other origins get none: another host, scheme or port, and they are stripped if carried', () => {
  for (const url of ['https://cdn.example.net/a.js', 'http://app.example.com/', 'https://app.example.com:8443/', 'https://evil.app.example.com/']) {
    const out = headersFor(url, { accept: '*/*', 'x-tenant': 't-1', cookie: 'own=1; sess=c-1' }, origin, extras);
    assert.deepEqual(out, { accept: '*/*', cookie: 'own=1' }, url);
  }
  assert.deepEqual(
    headersFor('https://cdn.example.net/', { 'x-tenant': 'theirs' }, origin, extras),
    { 'x-tenant': 'theirs' },
    "a page's own header of the same name is not ours",
  );
  assert.deepEqual(headersFor('data:image/png;base64,AA', {}, origin, extras), {});
});
