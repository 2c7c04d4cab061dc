// The batch body is described once: the bounds GET /openapi.json states for POST /v1/batches are
// the bounds the validator enforces, read here from the document itself and tried at and past each
// edge; every bad field of every request is named by position in one 400. Over real HTTP:
// test/api/batches.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../errors.ts';
import { openApiDocument } from '../http/openapi.ts';
import { validateBatch } from './validate.ts';

const doc = openApiDocument() as any;
const body = doc.paths['/v1/batches'].post.requestBody.content['application/json'].schema;

function refusal(b: unknown): string {
  try {
    validateBatch(b);
  } catch (e) {
    assert.ok(e instanceof ServiceError, String(e));
    assert.equal(e.code, 'bad_request');
    return e.message;
  }
  assert.fail(`accepted: ${JSON.stringify(b).slice(0, 200)}`);
}

const item = { html: '<p>x</p>' };
const items = (n: number) => Array.from({ length: n }, () => item);
/** An https URL of exactly n characters. */
const urlOf = (n: number) => {
  const head = 'https://hooks.example/';
  return head + 'a'.repeat(n - head.length);
};

test("the document's bounds on requests are the validator's", () => {
  const { minItems, maxItems } = body.properties.requests;
  assert.ok(Number.isInteger(minItems) && Number.isInteger(maxItems));
  assert.equal(validateBatch({ requests: items(minItems) }).requests.length, minItems);
  assert.equal(validateBatch({ requests: items(maxItems) }).requests.length, maxItems);
  for (const n of [minItems - 1, maxItems + 1]) assert.match(refusal({ requests: items(n) }), /^requests must be an array of 1 to 1000 capture requests$/);
  assert.match(refusal({}), /^requests must be an array/, 'requests is required');
  assert.deepEqual(body.required, ['requests']);
});

test("the document's webhook.url is the validator's: its length, its format, and no other field", () => {
  const { url } = body.properties.webhook.properties;
  assert.equal(url.format, 'uri');
  assert.ok(Number.isInteger(url.maxLength));
  assert.deepEqual(validateBatch({ requests: [item], webhook: { url: urlOf(url.maxLength) } }).webhook, { url: urlOf(url.maxLength) });
  assert.match(
    refusal({ requests: [item], webhook: { url: urlOf(url.maxLength + 1) } }),
    /^webhook\.url must be an absolute http\(s\) URL of at most 2048 characters$/,
  );
  for (const bad of ['ftp://x.example/', 'not a url', '/relative', 5])
    assert.match(refusal({ requests: [item], webhook: { url: bad } }), /^webhook\.url must be an absolute http\(s\) URL/, String(bad));
  assert.equal(body.properties.webhook.additionalProperties, false);
  assert.match(refusal({ requests: [item], webhook: { url: urlOf(40), secret: 'x' } }), /^webhook must be an object with url alone$/);
  assert.match(refusal({ requests: [item], webhook: {} }), /webhook\.url is required/);
  assert.equal(body.additionalProperties, false);
  assert.match(refusal({ requests: [item], callback: 'x' }), /^body must be an object of requests and, optionally, webhook/);
  assert.equal(validateBatch({ requests: [item] }).webhook, null);
});

test('each request is a capture request: every bad field of every request named by position, in one message', () => {
  const m = refusal({
    requests: [
      { url: 'https://a.example/' },
      { url: 'https://a.example/', viewport: { width: 0, height: 10 } },
      { html: 'x', url: 'https://a.example/' },
      { html: 'x', quality: 50 },
      5,
      { html: 'x', viewport: { width: 10 } },
    ],
  }).split('; ');
  assert.ok(
    m.some((x) => /^requests\[1\]\.viewport\.width must be /.test(x)),
    m.join('\n'),
  );
  assert.ok(m.includes('requests[2]: exactly one of url and html must be given, not both'), m.join('\n'));
  assert.ok(m.includes('requests[3]: quality is only allowed with format "jpeg" or "webp"'), m.join('\n'));
  assert.ok(m.includes('requests[4] must be an object: a capture request'), m.join('\n'));
  assert.ok(m.includes('requests[5].viewport.height is required when requests[5].viewport is given'), m.join('\n'));
  assert.ok(!m.some((x) => x.startsWith('requests[0]')), m.join('\n'));
  assert.equal(refusal({ requests: [{}] }), 'requests[0]: exactly one of url and html is required');
});

test('the requests are kept as sent (each is validated again, with its defaults, when its item runs)', () => {
  const sent = { requests: [{ html: 'x' }] };
  const b = validateBatch(sent);
  assert.deepEqual(b.requests, [{ html: 'x' }]);
  assert.deepEqual(sent, { requests: [{ html: 'x' }] });
});
