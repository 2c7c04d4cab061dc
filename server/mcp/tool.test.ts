// Result shaping of take_screenshot against a stand-in capture service (no browser, no store):
// the input schema is the REST schema, every catalogue error becomes isError with its code and
// message, unexpected faults are not leaked, and success carries image + text, the facts in
// _meta, and no structuredContent. The real path over HTTP is tested in test/mcp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { pino } from 'pino';
import { ServiceError } from '../errors.ts';
import { CROSS_FIELD_RULES, publicSchema, type ScreenshotRequest } from '../request/schema.ts';
import { validateRequest } from '../request/validate.ts';
import { captureFacts as facts } from '../../test/support/facts.ts';
import type { CaptureOutcome, CaptureService } from '../service.ts';
import { callTakeScreenshot, CAPTURE_META_KEY, describeBanner, toolDefinition, TOOL_NAME } from './tool.ts';

const log = pino({ level: 'silent' });
const account = { id: 'acct-1' };
const request: ScreenshotRequest = validateRequest({ html: '<p>x</p>', viewport: { width: 64, height: 32 } });

const ctx = (capture: (body: unknown) => Promise<CaptureOutcome>, onError?: (c: string) => void) => ({
  account,
  capture: ((_a: unknown, body: unknown) => capture(body)) as unknown as CaptureService,
  log,
  requestId: 'req-1',
  cache: { lookup: true, store: true },
  onError,
});

test('the tool is take_screenshot and its input schema is the REST body schema', () => {
  const t = toolDefinition();
  assert.equal(t.name, TOOL_NAME);
  assert.equal(t.name, 'take_screenshot');
  assert.deepEqual(t.inputSchema.properties, publicSchema().properties);
  assert.equal(t.inputSchema.type, 'object');
  assert.ok(!JSON.stringify(t.inputSchema).includes('x-rule'));
  // No top-level combinators (several clients refuse them); the cross-field rules are in words.
  assert.equal((t.inputSchema as Record<string, unknown>).allOf, undefined);
  for (const rule of CROSS_FIELD_RULES) assert.ok(String(t.inputSchema.description).includes(rule), rule);
});

test('the tool schema describes every field, viewport.* included, and url/html state the exactly-one rule', () => {
  const { inputSchema } = toolDefinition();
  const walk = (props: Record<string, any>, prefix: string): string[] =>
    Object.entries(props).flatMap(([k, v]) => [...(v.description ? [] : [`${prefix}${k}`]), ...(v.properties ? walk(v.properties, `${prefix}${k}.`) : [])]);
  assert.deepEqual(walk(inputSchema.properties ?? {}, ''), [], 'fields without a description');
  assert.ok(Object.keys((inputSchema.properties as any).viewport.properties).length >= 3);
  for (const k of ['url', 'html']) assert.match((inputSchema.properties as any)[k].description, /exactly one of url and html/i, k);
  // The extension fields come with the schema, described like the others.
  for (const k of ['cacheTtl', 'deterministic', 'colorScheme', 'userAgent', 'headers', 'cookies'])
    assert.ok((inputSchema.properties as any)[k]?.description, k);
  assert.match(String(inputSchema.description), /headers and cookies are only allowed with url/);
  for (const combinator of ['allOf', 'anyOf', 'oneOf', 'not', 'if']) assert.ok(!(combinator in inputSchema), combinator);
});

test('arguments reach the capture service unchanged; success is image + text, no structuredContent', async () => {
  const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  let seen: unknown;
  const args = { html: '<p>x</p>', viewport: { width: 64, height: 32 }, unknownField: 1 };
  const r = await callTakeScreenshot(
    args,
    ctx(async (body) => {
      seen = body;
      return {
        body: png,
        request,
        contentType: 'image/png',
        width: 64,
        height: 32,
        facts: facts({ bannerAction: 'hidden', timings: [{ step: 'capture', stage: 'capturing', ms: 5 }] }),
      };
    }),
  );
  assert.equal(seen, args);
  assert.equal(r.isError, undefined);
  assert.equal(r.structuredContent, undefined);
  assert.equal(r.content.length, 2);
  const [img, text] = r.content;
  assert.equal(img.type, 'image');
  assert.ok(img.type === 'image' && img.mimeType === 'image/png' && Buffer.from(img.data, 'base64').equals(png));
  assert.ok(text.type === 'text');
  assert.match(text.text, /Screenshot of the supplied HTML: PNG 64x32, [\d,]+ bytes\./);
  assert.match(text.text, /Banner cleanup: hidden \(banner and overlay elements were hidden\)\./);
  assert.match(text.text, /Credits: 1 charged, 41 remaining \(cache miss\)\./);
  // The facts as data in _meta (a program's view); nothing changed, so no `changed`.
  assert.deepEqual(r._meta?.[CAPTURE_META_KEY], {
    format: 'png',
    mimeType: 'image/png',
    width: 64,
    height: 32,
    bytes: png.length,
    credits: { charged: 1, remaining: 41 },
    cache: 'miss',
    bannerAction: 'hidden',
  });
});

/** The tool's answer to args when the service returns a 64x32 green PNG with these facts. */
async function greenCapture(args: Record<string, unknown>, extra: Parameters<typeof facts>[0]) {
  const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#00aa00' } })
    .png()
    .toBuffer();
  const outcome = { body: png, request, contentType: 'image/png', width: 64, height: 32, facts: facts({ credits: { charged: 1, remaining: 40 }, ...extra }) };
  return callTakeScreenshot(
    args,
    ctx(async () => outcome),
  );
}

test('a capture cut short (captureOnTimeout) says which waits did not finish, in the text and in _meta', async () => {
  const r = await greenCapture({ html: '<p>x</p>', captureOnTimeout: true }, { waitTimedOut: ['load', 'idle'] });
  const text = r.content[1];
  assert.ok(text?.type === 'text');
  assert.match(text.text, /did not settle within the render budget \(waits not finished: load, idle\).*may be incomplete/);
  assert.deepEqual((r._meta?.[CAPTURE_META_KEY] as { waitTimedOut?: string[] }).waitTimedOut, ['load', 'idle']);
});

test('a capture cut short of the page says its full height and why, in the text and in _meta', async () => {
  const r = await greenCapture({ html: '<p>x</p>', fullPage: true }, { truncated: { fromHeight: 65697, reason: 'endless' } });
  const text = r.content[1];
  assert.ok(text?.type === 'text');
  assert.match(
    text.text,
    /The page was 65697 CSS px tall; the capture was cut where the page had grown to as it was scrolled: it keeps growing \(an endless feed\) \(reason endless\)\./,
  );
  const meta = r._meta?.[CAPTURE_META_KEY] as { truncatedFromHeight?: number; truncationReason?: string };
  assert.deepEqual([meta.truncatedFromHeight, meta.truncationReason], [65697, 'endless']);
});

test('no arguments at all go to validation as an empty body', async () => {
  let seen: unknown;
  await callTakeScreenshot(
    undefined,
    ctx(async (body) => {
      seen = body;
      throw new ServiceError('bad_request', 'exactly one of url and html must be given');
    }),
  );
  assert.deepEqual(seen, {});
});

for (const [code, message, errorFacts] of [
  ['bad_request', 'viewport.width must be an integer between 1 and 10000', {}],
  ['selector_not_found', 'selector "#nope" matches no element', {}],
  ['insufficient_credits', 'the key has no credits left', {}],
  ['rate_limited', 'too many requests', { retryAfterSeconds: 7 }],
  ['render_timeout', 'rendering exceeded the 20-second render budget (while waiting for a selector)', {}],
] as const) {
  test(`a ${code} failure is an isError result carrying the code and message`, async () => {
    let logged = '';
    const r = await callTakeScreenshot(
      {},
      ctx(
        async () => {
          throw new ServiceError(code, message, errorFacts);
        },
        (c) => (logged = c),
      ),
    );
    assert.equal(r.isError, true);
    assert.equal(r.content.length, 1);
    const t = r.content[0];
    assert.ok(t.type === 'text');
    const [first, second] = t.text.split('\n');
    assert.equal(first, `${code}: ${message}`);
    assert.match(second, /^No credit was charged\./);
    if ('retryAfterSeconds' in errorFacts) assert.match(second, /Retry after 7 s\./);
    assert.equal(logged, code);
  });
}

test('an unexpected fault is internal_error naming the request, without its details', async () => {
  const r = await callTakeScreenshot(
    {},
    ctx(async () => {
      throw new Error('secret stack detail');
    }),
  );
  assert.equal(r.isError, true);
  const t = r.content[0];
  assert.ok(t.type === 'text');
  assert.match(t.text, /^internal_error: an unexpected error occurred \(request req-1\)/);
  assert.ok(!t.text.includes('secret'));
});

test('banner cleanup wording', () => {
  assert.equal(describeBanner('rejected onetrust', request), 'Banner cleanup: rejected onetrust (a reject-all control was clicked).');
  assert.equal(describeBanner('none', request), 'Banner cleanup: none (nothing to remove).');
  assert.equal(describeBanner(undefined, request), 'Banner cleanup: none (nothing to remove).');
  assert.equal(describeBanner('none', { ...request, blockCookieBanners: false }), 'Banner cleanup: off (blockCookieBanners false).');
});
