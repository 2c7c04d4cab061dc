// Signed links without a server: the canonical form (one encoding, sorted, stable for
// repeated names, form decoding of the received query), typing by the schema (the GET of options
// is the POST of the same options), what links refuse, the HMAC check, and the sealing of secrets
// (AES-GCM bound to its key id; the KEK file is 0600). Over HTTP: test/api/links.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { validateRequest } from '../request/validate.ts';
import { canonicalQuery, encode, fromQuery, parseQuery, stringToSign, toQuery, type Pair } from './canonical.ts';
import { KEK_FILE, kekId, resolveKek } from './kek.ts';
import { makeLink } from './make.ts';
import { generateSecret, seal, unseal } from './secrets.ts';
import { signatureMatches, signPairs } from './verify.ts';

test('encoding: RFC 3986 unreserved kept, everything else %XX upper-case UTF-8, a space is %20', () => {
  assert.equal(encode("a-b.c_d~e f+g/h?i=j&k!'()*é€"), 'a-b.c_d~e%20f%2Bg%2Fh%3Fi%3Dj%26k%21%27%28%29%2A%C3%A9%E2%82%AC');
});

test('the canonical query: sorted by encoded name, repeated names in their order, signature left out', () => {
  const pairs: Pair[] = [
    ['url', 'https://example.com/a b'],
    ['hideSelectors', '#b'],
    ['expires', '10'],
    ['hideSelectors', '.a'],
    ['signature', 'x'],
    ['keyId', 'key_1'],
    ['blockAds', 'true'],
  ];
  assert.equal(canonicalQuery(pairs), 'blockAds=true&expires=10&hideSelectors=%23b&hideSelectors=.a&keyId=key_1&url=https%3A%2F%2Fexample.com%2Fa%20b');
  assert.equal(stringToSign(pairs), `/v1/screenshot?${canonicalQuery(pairs)}`);
  // Upper case sorts before lower case (code units): blockAds < blockCookieBanners.
  assert.equal(
    canonicalQuery([
      ['blockCookieBanners', 'false'],
      ['blockAds', 'true'],
    ]),
    'blockAds=true&blockCookieBanners=false',
  );
});

test('a received query is decoded as a form: + and %20 are spaces, %2B a plus; the canonical form does not depend on the spelling', () => {
  const a = parseQuery('url=https%3A%2F%2Fexample.com%2F%3Fq%3Da+b%2Bc&keyId=key_1');
  const b = parseQuery('keyId=key_1&url=https://example.com/?q=a%20b%2Bc'.replace('?q=', '%3Fq%3D'));
  assert.deepEqual(a[0], ['url', 'https://example.com/?q=a b+c']);
  assert.equal(canonicalQuery(a), canonicalQuery(b));
  assert.throws(() => parseQuery('url=%E0%A4%A'), /not valid percent-encoded UTF-8/);
});

test('fromQuery types values by the schema, so GET and POST of the same options validate to the same request', () => {
  const options = {
    url: 'https://example.com/',
    viewport: { width: 1200, height: 630, deviceScaleFactor: 2 },
    fullPage: true,
    format: 'jpeg',
    quality: 70,
    hideSelectors: ['.a', '#b'],
    cacheTtl: 0,
    deterministic: true,
    colorScheme: 'dark',
  };
  const parsed = fromQuery(parseQuery(canonicalQuery(toQuery(options))));
  assert.deepEqual(parsed, options);
  assert.deepEqual(validateRequest(parsed), validateRequest(options));
  // A value of the wrong form stays a string, and validation names its field.
  assert.throws(
    () =>
      validateRequest(
        fromQuery([
          ['html', 'x'],
          ['viewport.width', 'wide'],
          ['viewport.height', '1'],
          ['fullPage', 'yes'],
        ]),
      ),
    /viewport\.width must be .*fullPage must be a boolean|fullPage must be a boolean.*viewport\.width must be/,
  );
  assert.deepEqual(
    fromQuery([
      ['html', 'x'],
      ['futureField', '1'],
      ['keyId', 'k'],
      ['expires', '1'],
      ['signature', 's'],
    ]),
    { html: 'x' },
    'unknown and link parameters are not options',
  );
});

test('the fields that prepare the page travel in a link: actions as JSON items, clip by its fields, the rest as values', () => {
  const options = {
    url: 'https://example.com/',
    css: 'body { color: red } /* & = ? */',
    js: 'return 1 + 1',
    delay: 100,
    failOnTargetError: true,
    actions: [{ click: '#menu' }, { type: '#q', text: 'a & b = c?' }, { wait: 50 }],
    clip: { x: 0, y: 10, width: 20, height: 30 },
    blockResourceTypes: ['image', 'font'],
    blockUrls: ['*/ads/*', '*?x=1'],
  };
  const pairs = toQuery(options);
  assert.deepEqual(
    pairs.filter(([n]) => n === 'actions').map(([, v]) => v),
    ['{"click":"#menu"}', '{"type":"#q","text":"a & b = c?"}', '{"wait":50}'],
  );
  const parsed = fromQuery(parseQuery(canonicalQuery(pairs)));
  assert.deepEqual(parsed, options);
  assert.deepEqual(validateRequest(parsed), validateRequest(options));
  // An item that is not JSON stays text, and validation names it.
  const actionsFromLink = (item: string) => () =>
    validateRequest(
      fromQuery([
        ['html', 'x'],
        ['actions', item],
      ]),
    );
  assert.throws(actionsFromLink('click=#menu'), /^.*actions\[0\] must be an object with exactly one action/);
  assert.throws(actionsFromLink('{"click":'), /actions\[0\] must be an object/);
});

test('what a link refuses: headers and cookies (public), a field given twice, a sub-field that does not exist', () => {
  assert.throws(() => toQuery({ url: 'https://example.com/', headers: { A: '1' } }), /headers cannot be sent in a signed link/);
  assert.throws(
    () =>
      fromQuery([
        ['url', 'u'],
        ['cookies', 's=v'],
      ]),
    /cookies cannot be sent in a signed link/,
  );
  assert.throws(
    () =>
      fromQuery([
        ['viewport.width', '1'],
        ['viewport.width', '2'],
      ]),
    /viewport\.width is given twice/,
  );
  assert.throws(() => fromQuery([['viewport.depth', '1']]), /names no field of viewport/);
});

test('HMAC-SHA256 in lower-case hex; any secret of the key may match; nothing else does', () => {
  const pairs: Pair[] = [
    ['html', '<p>x</p>'],
    ['keyId', 'key_0123456789abcdef'],
    ['expires', '4102444800'],
  ];
  const s1 = generateSecret();
  const s2 = generateSecret();
  const sig = signPairs(s1, pairs);
  assert.match(sig, /^[0-9a-f]{64}$/);
  assert.ok(signatureMatches([s1], pairs, sig) && signatureMatches([s2, s1], pairs, sig) && signatureMatches([s1], pairs, sig.toUpperCase()));
  assert.ok(!signatureMatches([s2], pairs, sig));
  assert.ok(!signatureMatches([s1], [...pairs, ['fullPage', 'true']], sig));
  assert.ok(!signatureMatches([s1], pairs, sig.slice(0, 63)));
  const url = new URL(
    makeLink({ options: { html: '<p>x</p>' }, keyId: 'key_0123456789abcdef', secret: s1, expires: 4102444800, baseUrl: 'https://s.example/' }),
  );
  assert.equal(url.searchParams.get('signature'), sig, 'makeLink signs the same string');
});

test('sealed secrets open only with their KEK and key id; the KEK file is created 0600', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kek-test-'));
  try {
    const kek = resolveKek({ linkSigningKek: null, databaseUrl: null, dataDir: dir })!;
    assert.equal(statSync(path.join(dir, KEK_FILE)).mode & 0o777, 0o600);
    assert.ok(resolveKek({ linkSigningKek: null, databaseUrl: null, dataDir: dir })!.equals(kek), 'the same KEK on the next start');
    assert.equal(resolveKek({ linkSigningKek: null, databaseUrl: 'postgres://x', dataDir: dir }), null, 'PostgreSQL needs LINK_SIGNING_KEK');
    const secret = generateSecret();
    const sealed = seal(kek, 'key_a', secret);
    assert.ok(!sealed.includes(secret.slice(4, 20)));
    assert.notEqual(seal(kek, 'key_a', secret), sealed, 'a fresh IV each time');
    assert.equal(unseal(kek, 'key_a', sealed), secret);
    assert.equal(unseal(kek, 'key_b', sealed), null, 'moved to another key: does not open');
    assert.equal(unseal(Buffer.alloc(32, 1), 'key_a', sealed), null, 'another KEK: does not open');
    assert.notEqual(kekId(kek), kekId(Buffer.alloc(32, 1)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
