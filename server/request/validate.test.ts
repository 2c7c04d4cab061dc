// The one schema and what derives from it: defaults come from the schema's `default`s,
// cross-field rules are the schema's own `allOf` with field-naming messages, unknown fields are
// dropped, the caller's object is left as sent, and every field carries what clients and error
// messages need. Over real HTTP the same rules are tested in test/api/request.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../errors.ts';
import { CROSS_FIELD_RULES, DEFAULT_VIEWPORT, publicSchema, REQUEST_DEFAULTS, screenshotRequestSchema } from './schema.ts';
import { validateRequest } from './validate.ts';

function refusal(body: unknown): ServiceError {
  try {
    validateRequest(body);
  } catch (e) {
    assert.ok(e instanceof ServiceError);
    return e;
  }
  assert.fail(`accepted: ${JSON.stringify(body)}`);
}

test('every field states a type, a description and the rule its error message quotes', () => {
  const walk = (name: string, s: Record<string, any>) => {
    assert.ok(s.type, `${name} has a type`);
    assert.ok(typeof s.description === 'string' && s.description.length > 10, `${name} has a description`);
    assert.ok(typeof s['x-rule'] === 'string', `${name} has an x-rule`);
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(`${name}.${k}`, v as Record<string, any>);
  };
  for (const [k, v] of Object.entries(screenshotRequestSchema.properties)) walk(k, v);
});

test("defaults are the schema's: a body of just html gets every one of them", () => {
  const req = validateRequest({ html: '<p>x</p>' });
  for (const [k, v] of Object.entries(REQUEST_DEFAULTS)) assert.deepEqual((req as Record<string, unknown>)[k], v, k);
  assert.deepEqual(req.viewport, DEFAULT_VIEWPORT);
  // The spec's defaults (§2.1, §2.2); fields added beyond the spec bring their own.
  const spec = {
    fullPage: false,
    format: 'png',
    viewport: { width: 1280, height: 720, deviceScaleFactor: 1 },
    omitBackground: false,
    waitUntil: 'networkidle2',
    blockCookieBanners: true,
    hideSelectors: [],
    blockAds: false,
  };
  for (const [k, v] of Object.entries(spec)) assert.deepEqual(REQUEST_DEFAULTS[k], v, `the spec §2.1/§2.2 default of ${k}`);
  assert.equal(req.quality, undefined, 'png has no quality');
});

test('defaults are fresh objects: changing one request does not change the next', () => {
  const a = validateRequest({ html: 'a' });
  a.viewport.width = 5;
  a.hideSelectors.push('#x');
  const b = validateRequest({ html: 'b' });
  assert.equal(b.viewport.width, 1280);
  assert.deepEqual(b.hideSelectors, []);
});

test("the caller's body is left as sent; unknown fields are dropped (spec §2.1 rule 2)", () => {
  const body = { html: 'x', viewport: { width: 10, height: 20, extra: true }, futureField: 1 };
  const sent = structuredClone(body);
  const req = validateRequest(body);
  assert.deepEqual(body, sent);
  assert.equal((req as Record<string, unknown>).futureField, undefined);
  assert.deepEqual(req.viewport, { width: 10, height: 20, deviceScaleFactor: 1 });
});

test('cross-field rules come from the schema, with the field-naming messages', () => {
  assert.equal(refusal({}).message, 'exactly one of url and html is required');
  assert.equal(refusal({ url: 'http://example.com/', html: 'x' }).message, 'exactly one of url and html must be given, not both');
  assert.equal(refusal({ html: 'x', quality: 50 }).message, 'quality is only allowed with format "jpeg" or "webp"');
  assert.equal(refusal({ html: 'x', format: 'png', quality: 50 }).message, 'quality is only allowed with format "jpeg" or "webp"');
  assert.deepEqual(CROSS_FIELD_RULES, [
    'exactly one of url and html is required',
    'exactly one of url and html must be given, not both',
    'quality is only allowed with format "jpeg" or "webp"',
    'headers and cookies are only allowed with url (they are sent to the target origin only)', // extension
    'geolocation is only allowed with url (it is granted to the target origin only)', // extension (server/emulation/)
    "clip and selector cannot be combined (clip is a region of the page, selector captures an element's box)", // extension
    'js is not allowed with javaScriptEnabled false (the page runs no timers or event handlers then)', // extension
    'fullPageMaxHeight is only allowed with fullPage: true', // extension (server/tall-pages/)
  ]);
  assert.equal(
    refusal({ html: 'x', js: 'return 1', javaScriptEnabled: false }).message,
    'js is not allowed with javaScriptEnabled false (the page runs no timers or event handlers then)',
  );
  assert.equal(validateRequest({ html: 'x', js: 'return 1', javaScriptEnabled: true }).js, 'return 1');
  assert.equal(
    refusal({ html: 'x', headers: { 'X-A': '1' } }).message,
    'headers and cookies are only allowed with url (they are sent to the target origin only)',
  );
  assert.equal(
    refusal({ html: 'x', cookies: [{ name: 'a', value: '1' }] }).message,
    'headers and cookies are only allowed with url (they are sent to the target origin only)',
  );
  assert.equal(refusal({ html: 'x', fullPageMaxHeight: 100 }).message, 'fullPageMaxHeight is only allowed with fullPage: true');
  // ...and clients see them as JSON Schema (OpenAPI): allOf without our annotations.
  const pub = publicSchema();
  assert.equal((pub.allOf as unknown[]).length, CROSS_FIELD_RULES.length);
  assert.ok(!/"x-[a-z]+":/.test(JSON.stringify(pub)), 'no x- annotation keys');
});

test('every bad field is named in one message; values are never quoted', () => {
  const e = refusal({ html: 'x', format: 'gif', viewport: { width: 0, height: 'tall' }, hideSelectors: ['a', ''], selector: 'SECRET-VALUE'.repeat(1000) });
  assert.equal(e.code, 'bad_request');
  for (const field of ['format', 'viewport.width', 'viewport.height', 'hideSelectors[1]', 'selector'])
    assert.ok(e.message.includes(field), `${field}: ${e.message}`);
  assert.ok(!e.message.includes('SECRET-VALUE') && !e.message.includes('gif') && !e.message.includes('tall'));
  assert.match(refusal({ html: 'x', viewport: { width: 100 } }).message, /^viewport\.height is required when viewport is given$/);
  assert.equal(refusal(null).message, 'body must be a JSON object');
  assert.equal(refusal([{ html: 'x' }]).message, 'body must be a JSON object');
  assert.equal(refusal({ url: 'ftp://example.com/' }).message, 'url must be an absolute http or https URL');
});

test('normalisation: url href, whole-pixel viewport, quality rounded with its lossy default', () => {
  assert.equal(validateRequest({ url: 'HTTP://Example.COM/a b' }).url, 'http://example.com/a%20b');
  assert.deepEqual(validateRequest({ html: 'x', viewport: { width: 99.5, height: 10.4, deviceScaleFactor: 1.5 } }).viewport, {
    width: 100,
    height: 10,
    deviceScaleFactor: 1.5,
  });
  assert.equal(validateRequest({ html: 'x', format: 'jpeg' }).quality, 80);
  assert.equal(validateRequest({ html: 'x', format: 'webp', quality: 55.5 }).quality, 56);
  assert.equal(refusal({ html: 'x', viewport: { width: 0.49, height: 10 } }).message, 'viewport.width must be a number between 1 and 10000');
});

test('html over 2,000,000 UTF-8 bytes is 413 payload_too_large (DESIGN §3)', () => {
  const e = refusal({ html: 'é'.repeat(1_000_001) });
  assert.equal(e.code, 'payload_too_large');
});

test('extension fields: bounds named, forbidden header names refused, values never quoted', () => {
  const secret = 'do-not-echo-7f3a';
  const m = refusal({
    url: 'http://example.com/',
    cacheTtl: -1,
    colorScheme: 'blue',
    userAgent: `x\n${secret}`,
    headers: { Host: secret },
    cookies: [{ name: 'a', value: `${secret};` }],
  }).message;
  for (const f of ['cacheTtl', 'colorScheme', 'userAgent', 'headers', 'cookies[0].value']) assert.ok(m.includes(`${f} must be`), `${f} named in: ${m}`);
  assert.ok(!m.includes(secret), m);
  for (const name of [
    'host',
    'HOST',
    'Cookie',
    'content-length',
    'Proxy-Authorization',
    'sec-fetch-site',
    'User-Agent',
    'Origin',
    'x-http-method-override',
    'bad name',
    '',
  ]) {
    assert.match(refusal({ url: 'http://example.com/', headers: { [name]: 'v' } }).message, /^headers must be /, name);
  }
  assert.match(refusal({ url: 'http://example.com/', headers: { 'X-A': 'line\r\nbreak' } }).message, /^headers\.\* must be /);
  assert.match(
    refusal({ url: 'http://example.com/', headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-${i}`, 'v'])) }).message,
    /^headers must be/,
  );
  assert.match(refusal({ url: 'http://example.com/', cookies: [{ name: 'a', value: 'b', domain: 'evil.example' }] }).message, /^cookies\[0\] must be/);
  const ok = validateRequest({
    url: 'http://example.com/',
    headers: { Authorization: 'Bearer t', 'Accept-Language': 'fr' },
    cookies: [{ name: 's', value: 'v' }],
    cacheTtl: 0,
    colorScheme: 'dark',
    userAgent: 'Bot/1.0 (+https://example.com)',
  });
  assert.equal(ok.cacheTtl, 0);
  assert.deepEqual(ok.cookies, [{ name: 's', value: 'v' }]);
});

test('css, js, actions, delay, failOnTargetError: bounds and shapes named, values never quoted', () => {
  const secret = 'do-not-echo-91c2';
  const ok = validateRequest({
    html: 'x',
    css: `.a{color:red} /* ${secret} */`,
    js: 'return 1',
    delay: 10000,
    failOnTargetError: true,
    actions: [
      { click: '#a' },
      { hover: '#b' },
      { type: '#c', text: 'hello' },
      { press: 'Enter' },
      { press: 'Control+Shift+ArrowLeft' },
      { press: 'a' },
      { press: 'Control++' },
      { scrollTo: '#d' },
      { waitForSelector: '#e' },
      { waitForHidden: '#f' },
      { waitForFunction: 'window.ready' },
      { wait: 0 },
    ],
  });
  assert.equal(ok.actions?.length, 12);
  assert.equal(validateRequest({ html: 'x' }).delay, 0, 'delay defaults to 0');
  assert.equal(validateRequest({ html: 'x' }).failOnTargetError, false);
  const refusals: Array<[Record<string, unknown>, RegExp]> = [
    [{ css: 'é'.repeat(50_001) }, /^css must be a string of at most 100000 UTF-8 bytes$/], // 100,002 bytes in 50,001 characters
    [{ js: '' }, /^js must be a non-empty string/],
    [{ js: `${secret}`.repeat(12_000) }, /^js must be/],
    [{ delay: 10_001 }, /^delay must be an integer number of milliseconds between 0 and 10000$/],
    [{ delay: 1.5 }, /^delay must be/],
    [{ failOnTargetError: 'yes' }, /^failOnTargetError must be a boolean$/],
    [{ actions: Array.from({ length: 21 }, () => ({ wait: 1 })) }, /^actions must be an array of at most 20 action objects$/],
    [{ actions: [{ click: '#a', hover: secret }] }, /^actions\[0\] must be an object with exactly one action: \{click: selector\}/],
    [{ actions: [{ type: '#a' }] }, /^actions\[0\] must be an object with exactly one action/],
    [{ actions: [{ click: '#a', text: secret }] }, /^actions\[0\] must be an object with exactly one action/],
    [{ actions: [{ [secret]: 1 }] }, /^actions\[0\] must be an object with exactly one action/],
    [{ actions: [{ wait: 1 }, { click: '' }] }, /^actions\[1\]\.click must be a non-empty CSS selector of at most 1000 characters$/],
    [{ actions: [{ press: 'Foo' }] }, /^actions\[0\]\.press must be a key name/],
    [{ actions: [{ press: 'Shift+' }] }, /^actions\[0\]\.press must be a key name/],
    [{ actions: [{ wait: 10_001 }] }, /^actions\[0\]\.wait must be an integer number of milliseconds between 0 and 10000$/],
    [{ actions: [{ type: '#a', text: 'x'.repeat(1001) }] }, /^actions\[0\]\.text must be a string of at most 1000 characters$/],
    [{ actions: { click: '#a' } }, /^actions must be an array/],
  ];
  for (const [body, message] of refusals) {
    const m = refusal({ html: 'x', ...body }).message;
    assert.match(m, message, JSON.stringify(body).slice(0, 80));
    assert.ok(!m.includes(secret), m);
  }
});

test('blockResourceTypes and blockUrls: bounds named, values never quoted', () => {
  const secret = 'do-not-echo-5d0e';
  const ok = validateRequest({
    html: 'x',
    blockResourceTypes: ['image', 'media', 'font', 'stylesheet', 'script', 'xhr', 'fetch', 'websocket', 'other'],
    blockUrls: Array.from({ length: 50 }, (_, i) => `*/${i}/*`),
  });
  assert.equal(ok.blockUrls?.length, 50);
  const refusals: Array<[Record<string, unknown>, RegExp]> = [
    [{ blockResourceTypes: ['image', 'image'] }, /^blockResourceTypes must be an array of distinct resource types$/],
    [
      { blockResourceTypes: [secret] },
      /^blockResourceTypes\[0\] must be one of "image", "media", "font", "stylesheet", "script", "xhr", "fetch", "websocket", "other"$/,
    ],
    [{ blockResourceTypes: ['document'] }, /^blockResourceTypes\[0\] must be one of/],
    [{ blockUrls: Array.from({ length: 51 }, () => '*') }, /^blockUrls must be an array of at most 50 URL patterns$/],
    [{ blockUrls: ['*', ''] }, /^blockUrls\[1\] must be a non-empty URL pattern of at most 2000 characters$/],
    [{ blockUrls: [secret.repeat(200)] }, /^blockUrls\[0\] must be/],
    [{ blockUrls: secret }, /^blockUrls must be an array/],
  ];
  for (const [body, message] of refusals) {
    const m = refusal({ html: 'x', ...body }).message;
    assert.match(m, message);
    assert.ok(!m.includes(secret), m);
  }
});

test("each action kind is one branch of the schema's oneOf, and every named key exists in puppeteer's keyboard", async () => {
  const { ACTION_KINDS, NAMED_KEYS } = await import('../prepare/fields.ts');
  const items = screenshotRequestSchema.properties.actions.items;
  assert.deepEqual(
    items.oneOf.map((b) => b.required[0]),
    [...ACTION_KINDS],
  );
  assert.deepEqual(
    Object.keys(items.properties).filter((k) => k !== 'text'),
    [...ACTION_KINDS],
  );
  const { _keyDefinitions } = (await import('puppeteer-core/lib/esm/puppeteer/common/USKeyboardLayout.js')) as { _keyDefinitions: Record<string, unknown> };
  for (const k of NAMED_KEYS) assert.ok(k in _keyDefinitions, k);
  for (let c = 0x21; c <= 0x7e; c++) assert.ok(String.fromCharCode(c) in _keyDefinitions, String.fromCharCode(c));
});
