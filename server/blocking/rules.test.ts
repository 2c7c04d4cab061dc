// The blocklist's one decision (rules.ts): `*` is the only wildcard, patterns match whole URLs,
// types name the protocol's resource types, documents of the main frame and local URLs are never
// blocked; the browser's Fetch patterns escape what Fetch would read as wildcards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateRequest } from '../request/validate.ts';
import { Blocklist, fetchPattern, patternRegExp } from './rules.ts';

const list = (body: Record<string, unknown>) => Blocklist.of(validateRequest({ html: 'x', ...body }));

test('patterns: * is any characters, everything else itself, over the whole URL', () => {
  const re = (p: string) => patternRegExp(p);
  assert.ok(re('*://*.doubleclick.net/*').test('https://ad.doubleclick.net/x?y=1'));
  assert.ok(!re('*://*.doubleclick.net/*').test('https://doubleclick.net.evil.example/'), 'the dots are dots');
  assert.ok(re('*/ads/*').test('http://a.example/ads/1.js'));
  assert.ok(!re('ads').test('http://a.example/ads/1.js'), 'a pattern matches the whole URL');
  assert.ok(re('*.woff2').test('https://f.example/x.woff2') && !re('*.woff2').test('https://f.example/x.woff2?v=1'));
  assert.ok(re('*/a?b=1').test('http://x/a?b=1') && !re('*/a?b=1').test('http://x/aXb=1'), '? is a question mark');
  assert.ok(re('*(1)[2]{3}+$^|\\*').test('http://x/(1)[2]{3}+$^|\\'), 'regular-expression characters are themselves');
  assert.ok(!re('*/A').test('http://x/a'), 'case-sensitive');
});

test('Fetch patterns escape ? and \\ (Fetch reads them as a wildcard and an escape)', () => {
  assert.equal(fetchPattern('*/a?b=1'), '*/a\\?b=1');
  assert.equal(fetchPattern('*\\x*'), '*\\\\x*');
  const l = list({ blockUrls: ['*/a?b'], blockResourceTypes: ['image', 'other', 'websocket'] })!;
  const patterns = l.fetchPatterns();
  assert.deepEqual(
    patterns.map((p) => p.resourceType ?? p.urlPattern),
    ['Image', 'Other', 'Ping', 'EventSource', 'CSPViolationReport', '*/a\\?b'],
  );
  assert.ok(patterns.every((p) => p.requestStage === 'Request'));
});

test('blocks(): by type or URL; never the main document, data: or blob:; nothing asked, no list', () => {
  assert.equal(list({}), undefined);
  assert.equal(list({ blockResourceTypes: [], blockUrls: [] }), undefined);
  const l = list({ blockResourceTypes: ['image', 'other'], blockUrls: ['*/tracker.js'] })!;
  assert.ok(l.blocks('https://a.example/x.png', 'Image', false) && l.blocks('https://a.example/x.png', 'image', false), 'protocol or puppeteer spelling');
  assert.ok(l.blocks('https://a.example/beacon', 'Ping', false) && l.blocks('https://a.example/m.json', 'manifest', false), 'other: beacons, manifests...');
  assert.ok(l.blocks('https://a.example/tracker.js', 'Script', false));
  assert.ok(!l.blocks('https://a.example/app.js', 'Script', false));
  assert.ok(!l.blocks('https://a.example/x.css', 'Stylesheet', false));
  assert.ok(!l.blocks('https://a.example/f', 'preflight', false), 'a CORS preflight belongs to its fetch');
  assert.ok(!l.blocks('data:image/png;base64,AAAA', 'Image', false) && !l.blocks('blob:https://a.example/1', 'Image', false));
  const all = list({ blockUrls: ['*'] })!;
  assert.ok(!all.blocks('https://a.example/', 'Document', true), 'the page itself');
  assert.ok(all.blocks('https://a.example/frame', 'Document', false), 'a frame');
});

test('websockets: every one by type; by URL only those a pattern matches', () => {
  assert.deepEqual(list({ blockResourceTypes: ['websocket'] })!.websocketRule(), { all: true, urls: [] });
  assert.equal(list({ blockResourceTypes: ['image'] })!.websockets, false);
  const byUrl = list({ blockUrls: ['wss://chat.example/*'] })!;
  assert.equal(byUrl.websockets, true);
  assert.ok(new RegExp(byUrl.websocketRule().urls[0]!, 's').test('wss://chat.example/socket'));
});

test("xhr and fetch: Fetch's one XHR filter pauses both; a paused XHR is decided by its Network type unless both are blocked", () => {
  const both = list({ blockResourceTypes: ['xhr', 'fetch'] })!;
  assert.deepEqual(
    both.fetchPatterns().map((p) => p.resourceType),
    ['XHR'],
  );
  assert.equal(both.verdict('https://a.example/api', 'XHR', false), 'block');
  assert.equal(both.asksNetwork, false);
  const fetchOnly = list({ blockResourceTypes: ['fetch'] })!;
  assert.deepEqual(
    fetchOnly.fetchPatterns().map((p) => p.resourceType),
    ['XHR'],
  );
  assert.equal(fetchOnly.asksNetwork, true);
  assert.equal(fetchOnly.verdict('https://a.example/api', 'XHR', false), 'ask');
  assert.ok(fetchOnly.blocks('https://a.example/api', 'Fetch', false) && !fetchOnly.blocks('https://a.example/api', 'XHR', false));
  const urls = list({ blockResourceTypes: ['image'], blockUrls: ['*/api'] })!;
  assert.equal(urls.verdict('https://a.example/api', 'XHR', false), 'block', 'a URL pattern decides alone');
  assert.equal(urls.verdict('https://a.example/x.png', 'Image', false), 'block');
  assert.equal(urls.verdict('https://a.example/', 'Document', true), 'continue', 'never the page itself');
  assert.equal(urls.verdict('https://a.example/x.css', 'Stylesheet', false), 'continue');
});
