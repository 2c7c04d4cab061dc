// The response registry: every header is described and documented, its writers agree with when
// it is sent, and the headers of capture and error answers, the OpenAPI names and the facts as JSON members
// come out of it as the routes and clients expect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE, ServiceError } from '../errors.ts';
import { captureFacts } from '../../test/support/facts.ts';
import { OCCASIONS } from './header.ts';
import { componentName } from './openapi.ts';
import { EXPOSED_HEADERS, HEADER_LIST, wireName } from './registry.ts';
import { captureHeaders, compareHeaders, errorHeaders, jsonFacts } from './write.ts';
import type { CompareFacts } from './facts.ts';

/** Where the response headers are documented: one table row (or a row naming several) each. */
const DOCS = { file: 'docs/api.md', section: '### The response' };

const FACTS = captureFacts({
  etag: '"abc"',
  bannerAction: 'rejected:onetrust',
  targetStatus: 404,
  format: 'jpeg',
  timings: [{ step: 'capture', stage: 'capturing', ms: 12.34 }],
});

test('every response header has a description, a value schema and when it is sent', () => {
  for (const h of HEADER_LIST) {
    assert.ok(h.description.trim().length >= 20, `${h.name}: a description a client can act on`);
    assert.ok(Object.keys(h.schema).length > 0, `${h.name}: a value schema`);
    assert.ok(h.sent.length > 0 && h.sent.every((o) => o in OCCASIONS), `${h.name}: when it is sent`);
  }
  const names = HEADER_LIST.map(wireName);
  assert.equal(new Set(names).size, names.length, 'each name once');
});

test('writers agree with when a header is sent', () => {
  for (const h of HEADER_LIST) {
    const onCaptures = h.sent.includes('image') || h.sent.includes('not-modified');
    if (h.fromFacts) assert.ok(onCaptures, `${h.name} is written from capture facts, so it is sent on capture answers`);
    if (onCaptures && !h.fromFacts) assert.ok(h.notInOpenApi, `${h.name} is sent on capture answers: written from the facts, or by the content (Content-Type)`);
    if (h.privateOnly) assert.ok(h.fromFacts || h.fromCompare, `${h.name}: only capture and comparison answers have audiences`);
    assert.equal(
      !!h.fromCompare,
      h.sent.includes('diff') && !h.notInOpenApi,
      `${h.name}: written from a comparison's facts exactly when sent on comparison answers`,
    );
    if (h.fromError) {
      assert.ok(h.sent.includes('error'), `${h.name} is written from error facts, so it is sent on errors`);
      for (const c of h.fromError.codes ?? []) assert.ok(c in ERROR_CATALOGUE, `${h.name}: ${c} is a catalogue code`);
    }
  }
});

test(`${DOCS.file} "${DOCS.section}" lists every registry header, and no other`, () => {
  const md = readFileSync(path.resolve(import.meta.dirname, '../..', DOCS.file), 'utf8');
  const start = md.indexOf(`\n${DOCS.section}\n`);
  assert.ok(start >= 0, `${DOCS.file} has a section "${DOCS.section}"`);
  const level = DOCS.section.split(' ')[0]!;
  const rest = md.slice(start + DOCS.section.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
  const section = end < 0 ? rest : rest.slice(0, end);
  // First cells of the section's table rows, split where one row names several headers.
  const documented = section
    .split('\n')
    .filter((l) => /^\|.*\|$/.test(l.trim()) && !/^\|[\s:|-]+\|$/.test(l.trim()))
    .flatMap((l) => l.split('|')[1]!.split(','))
    .map((c) => c.trim().replace(/^`|`$/g, '').toLowerCase())
    .filter((c) => /^[a-z][a-z0-9-]*$/.test(c) && c !== 'header');
  const registry = HEADER_LIST.map(wireName);
  assert.deepEqual(
    registry.filter((n) => !documented.includes(n)),
    [],
    `headers without a row in ${DOCS.file} "${DOCS.section}"`,
  );
  assert.deepEqual(
    documented.filter((n) => !registry.includes(n)),
    [],
    'rows for headers the registry does not have',
  );
});

test("a capture answer's headers: private (POST) and public (signed link), 200 and 304", () => {
  const post = captureHeaders(FACTS, { kind: 'private' }, 'image');
  assert.deepEqual(post, {
    'x-credits-charged': '1',
    'x-credits-remaining': '41',
    'x-cache': 'miss',
    'x-banner-action': 'rejected:onetrust',
    'x-target-status': '404',
    'server-timing': 'capture;dur=12.3;desc="capturing"',
    'content-disposition': 'inline; filename="screenshot.jpg"',
    etag: '"abc"',
    'cache-control': 'no-store',
  });
  const link = captureHeaders(FACTS, { kind: 'public', expires: Math.floor(Date.now() / 1000) + 60 }, 'image');
  assert.equal(link['x-credits-remaining'], undefined, 'no balance on a public answer');
  assert.match(link['cache-control']!, /^public, max-age=(59|60), immutable$/, "never past the link's expiry");
  assert.equal(captureHeaders({ ...FACTS, cacheTtl: 0 }, { kind: 'public', expires: 4e9 }, 'image')['cache-control'], 'public, no-cache');
  const notModified = captureHeaders(FACTS, { kind: 'private' }, 'not-modified');
  assert.equal(notModified['content-disposition'], undefined, '304: no body, no filename');
  assert.equal(notModified.etag, '"abc"');
  const hit = captureHeaders(
    { ...FACTS, timings: undefined, targetStatus: undefined, truncated: { fromHeight: 30000, reason: 'size' }, waitTimedOut: ['load', 'idle'] },
    { kind: 'private' },
    'image',
  );
  assert.equal(hit['server-timing'], undefined, 'no timings on a cache hit');
  assert.equal(hit['x-target-status'], undefined);
  assert.equal(hit['x-capture-truncated'], '30000; reason=size');
  assert.equal(hit['x-wait-timed-out'], 'load, idle');
});

test("an error's headers come from its facts, for the codes that carry them", () => {
  assert.deepEqual(errorHeaders(new ServiceError('rate_limited', 'slow down', { retryAfterSeconds: 7 })), { 'retry-after': '7', 'cache-control': 'no-store' });
  assert.deepEqual(errorHeaders(new ServiceError('unauthorized', 'no key', { challenge: 'Bearer realm="x"' })), {
    'www-authenticate': 'Bearer realm="x"',
    'cache-control': 'no-store',
  });
  assert.deepEqual(errorHeaders(new ServiceError('method_not_allowed', 'POST only', { allow: 'POST' })), { allow: 'POST', 'cache-control': 'no-store' });
  assert.deepEqual(
    errorHeaders(new ServiceError('render_failed', 'crashed', { retryAfterSeconds: 1 })),
    { 'cache-control': 'no-store' },
    'Retry-After belongs to 429 and 503',
  );
});

test('the facts as JSON members (MCP _meta, batch items), the CORS expose list and the OpenAPI component names', () => {
  assert.deepEqual(jsonFacts(FACTS), { credits: { charged: 1, remaining: 41 }, cache: 'miss', bannerAction: 'rejected:onetrust', targetStatus: 404 });
  assert.deepEqual(jsonFacts({ ...FACTS, targetStatus: undefined, truncated: { fromHeight: 9000, reason: 'endless' }, waitTimedOut: ['idle'] }), {
    credits: { charged: 1, remaining: 41 },
    cache: 'miss',
    bannerAction: 'rejected:onetrust',
    truncatedFromHeight: 9000,
    truncationReason: 'endless',
    waitTimedOut: ['idle'],
  });
  for (const h of [
    'x-credits-charged',
    'x-credits-remaining',
    'x-cache',
    'x-banner-action',
    'x-wait-timed-out',
    'server-timing',
    'etag',
    'retry-after',
    'www-authenticate',
  ]) {
    assert.ok(EXPOSED_HEADERS.includes(h), `a listed origin's page may read ${h}`);
  }
  assert.ok(!EXPOSED_HEADERS.some((h) => h.startsWith('access-control-')), 'CORS headers are for the browser, not the page');
  for (const h of HEADER_LIST) assert.ok(!(h.expose && h.safelisted), `${h.name}: a safelisted header needs no exposing`);
  assert.deepEqual(
    ['x-request-id', 'WWW-Authenticate', 'ETag', 'Server-Timing'].map((n) => componentName(n)),
    ['RequestId', 'WwwAuthenticate', 'ETag', 'ServerTiming'],
  );
  assert.equal(componentName('Cache-Control', 'private'), 'CacheControlPrivate');
});

test("a comparison answer's headers: the figures, credits, and no balance on a signed link", () => {
  const f: CompareFacts = {
    diffPixels: 7,
    ratio: 7 / 921600,
    regions: [{ x: 1, y: 2, width: 3, height: 4 }],
    regionCount: 1,
    width: 1280,
    height: 720,
    current: { width: 1280, height: 720, cache: 'miss', format: 'png' },
    baseline: { width: 1280, height: 700, image: true },
    masks: 0,
    credits: { charged: 1, remaining: 9 },
    cacheTtl: 300,
  };
  assert.deepEqual(compareHeaders(f, { kind: 'private' }), {
    'x-credits-charged': '1',
    'x-credits-remaining': '9',
    'x-diff-pixels': '7',
    'x-diff-ratio': '0.0000076',
    'x-diff-regions': '[{"x":1,"y":2,"width":3,"height":4}]',
    'x-current-size': '1280x720',
    'x-baseline-size': '1280x700',
    'content-disposition': 'inline; filename="diff.png"',
    'cache-control': 'no-store',
  });
  assert.equal(compareHeaders(f, { kind: 'public', expires: Math.floor(Date.now() / 1000) + 60 })['x-credits-remaining'], undefined);
});
