// The verdict logic against fake implementations served by msw (DESIGN §5: mocks only where the
// thing mocked is not ours to run; here, "any implementation"). Each handler answers like an implementation that is right, or wrong in one way; the executor must say which check fails.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { executeCase, type RunEnv } from '../engine/execute.ts';
import type { Observed } from '../engine/exchange.ts';
import { checkComparison, checkJson, checkText, checkTool } from '../engine/verdict.ts';
import { fetchClient } from '../engine/http.ts';
import { encodePng, solid } from '../engine/image.ts';
import type { Case, Expectation } from '../model/model.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { runSuite } from '../engine/runner.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BASE = 'http://impl.test';
const GREEN_PNG = encodePng(solid(320, 240, [0x20, 0xa0, 0x40, 255]));
const OK_HEADERS = { 'content-type': 'image/png', 'content-disposition': 'inline; filename="screenshot.png"' };

let behaviour: (body: any, req: Request) => Response | Promise<Response> = () => new HttpResponse(GREEN_PNG, { headers: OK_HEADERS });
const server = setupServer(
  http.post(`${BASE}/v1/screenshot`, async ({ request }) =>
    behaviour(
      await request
        .clone()
        .json()
        .catch(() => null),
      request,
    ),
  ),
);
before(() => server.listen({ onUnhandledFrame: 'error' }));
after(() => server.close());

const env: RunEnv = {
  baseUrl: BASE,
  apiKeys: ['k1'],
  fixtureOrigins: [],
  canary: false,
  isolatedNetwork: false,
  goldenDir: path.join(REPO_ROOT, 'golden'),
  updateGolden: false,
};
const mk = (expect: Expectation, body: unknown = { html: '<p>x</p>', viewport: { width: 320, height: 240 } }): Case => ({
  id: 'unit',
  must: 'The service MUST be right.',
  rules: ['2.3/success'],
  profile: 'core',
  request: { body },
  expect,
});
const imageCase = mk({
  status: 200,
  image: { type: 'png', width: 320, height: 240 },
  probes: [{ kind: 'color', region: { x: 0, y: 0, w: 320, h: 240 }, rgb: [0x20, 0xa0, 0x40] }],
  headers: { 'content-disposition': { matches: '^inline' } },
});
const failed = (o: { checks: { name: string; pass: boolean }[] }) => o.checks.filter((c) => !c.pass).map((c) => c.name);

test('a correct image response passes', async () => {
  behaviour = () => new HttpResponse(GREEN_PNG, { headers: OK_HEADERS });
  const o = await executeCase(imageCase, env, fetchClient);
  assert.equal(o.pass, true, JSON.stringify(o.checks));
});

test('the request carries the Bearer key and a JSON body', async () => {
  let auth = '';
  let type = '';
  behaviour = (_b, req) => {
    auth = req.headers.get('authorization') ?? '';
    type = req.headers.get('content-type') ?? '';
    return new HttpResponse(GREEN_PNG, { headers: OK_HEADERS });
  };
  await executeCase(imageCase, env, fetchClient);
  assert.equal(auth, 'Bearer k1');
  assert.equal(type, 'application/json');
});

test('a mislabelled content type fails the content-type check', async () => {
  behaviour = () => new HttpResponse(GREEN_PNG, { headers: { ...OK_HEADERS, 'content-type': 'image/jpeg' } });
  assert.deepEqual(failed(await executeCase(imageCase, env, fetchClient)), ['content-type']);
});

test('JSON instead of image bytes fails the image check', async () => {
  behaviour = () => HttpResponse.json({ image: GREEN_PNG.toString('base64') }, { headers: { 'content-type': 'image/png' } });
  assert.ok(failed(await executeCase(imageCase, env, fetchClient)).includes('image bytes'));
});

test('a wrong size fails the size check and the probe', async () => {
  behaviour = () => new HttpResponse(encodePng(solid(319, 240, [0x20, 0xa0, 0x40, 255])), { headers: OK_HEADERS });
  const f = failed(await executeCase(imageCase, env, fetchClient));
  assert.ok(f.includes('image size'));
});

test('a wrong colour fails the probe only', async () => {
  behaviour = () => new HttpResponse(encodePng(solid(320, 240, [0xe0, 0x20, 0x20, 255])), { headers: OK_HEADERS });
  const f = failed(await executeCase(imageCase, env, fetchClient));
  assert.equal(f.length, 1);
  assert.match(f[0]!, /^probe color/);
});

test('a missing content-disposition fails the header check', async () => {
  behaviour = () => new HttpResponse(GREEN_PNG, { headers: { 'content-type': 'image/png' } });
  assert.deepEqual(failed(await executeCase(imageCase, env, fetchClient)), ['header content-disposition']);
});

const notFound = mk({ status: 400, error: 'selector_not_found' });

test('the right error passes', async () => {
  behaviour = () => HttpResponse.json({ error: 'selector_not_found', message: 'selector "#x" matches no element' }, { status: 400 });
  assert.equal((await executeCase(notFound, env, fetchClient)).pass, true);
});

test('a renamed error code fails the error-code check', async () => {
  behaviour = () => HttpResponse.json({ error: 'element_not_found', message: 'nope' }, { status: 400 });
  assert.deepEqual(failed(await executeCase(notFound, env, fetchClient)), ['error code']);
});

test('a text/plain failure fails the body-shape check', async () => {
  behaviour = () => new HttpResponse('Bad Request', { status: 400, headers: { 'content-type': 'text/plain' } });
  assert.deepEqual(failed(await executeCase(notFound, env, fetchClient)), ['failure body is JSON {error, message}']);
});

test('a failure body without message fails', async () => {
  behaviour = () => HttpResponse.json({ error: 'selector_not_found' }, { status: 400 });
  assert.deepEqual(failed(await executeCase(notFound, env, fetchClient)), ['failure body is JSON {error, message}']);
});

test('504 turned into 500 fails the status check', async () => {
  behaviour = () => HttpResponse.json({ error: 'render_timeout', message: 'too slow' }, { status: 500 });
  assert.deepEqual(failed(await executeCase(mk({ status: 504, error: 'render_timeout' }), env, fetchClient)), ['status']);
});

test('a message that does not name the field fails', async () => {
  behaviour = () => HttpResponse.json({ error: 'bad_request', message: 'invalid request' }, { status: 400 });
  assert.deepEqual(failed(await executeCase(mk({ status: 400, error: 'bad_request', message: 'viewport.*width' }), env, fetchClient)), [
    'message names the field',
  ]);
});

test('a message echoing the body fails messageExcludes', async () => {
  behaviour = () => HttpResponse.json({ error: 'bad_request', message: 'Unexpected token in {"html":"secret-123"' }, { status: 400 });
  assert.deepEqual(failed(await executeCase(mk({ status: 400, error: 'bad_request', messageExcludes: 'secret-123' }), env, fetchClient)), [
    'message does not echo the body',
  ]);
});

test('status classes: 4xx accepts 413 and rejects 200', async () => {
  behaviour = () => HttpResponse.json({ error: 'payload_too_large', message: 'html too big' }, { status: 413 });
  assert.equal((await executeCase(mk({ status: '4xx' }), env, fetchClient)).pass, true);
  behaviour = () => new HttpResponse(GREEN_PNG, { headers: OK_HEADERS });
  assert.deepEqual(failed(await executeCase(mk({ status: '4xx' }), env, fetchClient)), ['status']);
});

test('multi-step header arithmetic (billing): remaining must drop by exactly one', async () => {
  let remaining = 100;
  behaviour = (b) => {
    if (b?.selector) return HttpResponse.json({ error: 'selector_not_found', message: 'no' }, { status: 400 });
    remaining -= b?.double ? 2 : 1;
    return new HttpResponse(GREEN_PNG, { headers: { ...OK_HEADERS, 'x-credits-remaining': String(remaining) } });
  };
  const c: Case = {
    ...imageCase,
    then: [
      { request: { body: { html: 'x', selector: '#n' } }, expect: { status: 400, error: 'selector_not_found' } },
      {
        request: { body: { html: 'x', viewport: { width: 320, height: 240 } } },
        expect: { status: 200, image: { type: 'png', width: 320, height: 240 }, compare: [{ read: { header: 'x-credits-remaining' }, fromStep: 0, plus: -1 }] },
      },
    ],
  };
  assert.equal((await executeCase(c, env, fetchClient)).pass, true);
  const charged2: Case = { ...c, then: [{ ...c.then![1]!, request: { body: { html: 'x', double: true, viewport: { width: 320, height: 240 } } } }] };
  remaining = 100;
  assert.deepEqual(failed(await executeCase(charged2, env, fetchClient)), ['step 2: header x-credits-remaining vs step 1']);
});

test('relations: quality that changes nothing fails bytes-less', async () => {
  behaviour = () => new HttpResponse(GREEN_PNG, { headers: OK_HEADERS });
  const c = mk({ status: 200, image: { type: 'png', width: 320, height: 240 }, relation: { request: { body: { html: 'y' } }, relation: 'bytes-less' } });
  assert.deepEqual(failed(await executeCase(c, env, fetchClient)), ['relation bytes-less']);
});

test('response-time bounds are checked', async () => {
  behaviour = async () => {
    await new Promise((r) => setTimeout(r, 300));
    return HttpResponse.json({ error: 'render_timeout', message: 'slow' }, { status: 504 });
  };
  assert.deepEqual(failed(await executeCase(mk({ status: 504, error: 'render_timeout', maxDurationMs: 100 }), env, fetchClient)), ['response time']);
  assert.equal((await executeCase(mk({ status: 504, error: 'render_timeout', minDurationMs: 200 }), env, fetchClient)).pass, true);
});

test('a connection failure is a failed check, not a crash', async () => {
  behaviour = () => HttpResponse.error();
  const o = await executeCase(imageCase, env, fetchClient);
  assert.deepEqual(failed(o), ['exchange']);
});

test('a failed case reports how long the implementation took and the load average, in the console and report.json', async () => {
  behaviour = async (b) => {
    await new Promise((r) => setTimeout(r, 150));
    return b?.html === 'ok' ? new HttpResponse(GREEN_PNG, { headers: OK_HEADERS }) : HttpResponse.json({ error: 'internal', message: 'x' }, { status: 500 });
  };
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-timing-'));
  const lines: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => void lines.push(a.join(' '));
  try {
    const cases = [
      { ...imageCase, id: 'unit.fails' },
      { ...mk(imageCase.expect, { html: 'ok', viewport: { width: 320, height: 240 } }), id: 'unit.passes' },
    ];
    const options = {
      baseUrl: BASE,
      apiKeys: ['k1'],
      profiles: ['core' as const],
      fixtureOrigins: [],
      canary: false,
      isolatedNetwork: false,
      updateGolden: false,
      goldenDir: env.goldenDir,
      reportDir,
      workers: 1,
    };
    const run = await runSuite(options, { cases, http: fetchClient });
    const [fails, passes] = run.records;
    assert.equal(fails!.verdict, 'fail');
    assert.equal(fails!.timing!.responseMs.length, 1, 'one exchange');
    assert.ok(fails!.timing!.responseMs[0]! >= 140, `answer time ${fails!.timing!.responseMs[0]} ms`);
    assert.equal(fails!.timing!.loadAverage.length, 3);
    assert.ok(fails!.timing!.cpus >= 1);
    assert.equal(passes!.timing, undefined, 'only failed cases carry it');
    assert.ok(
      lines.some((l) => /· the implementation answered in \d+ ms; load average [\d. ]+ on \d+ CPUs?/.test(l)),
      lines.join('\n'),
    );
    const json = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8'));
    const result = json.results.find((r: { id: string }) => r.id === 'unit.fails');
    assert.equal(result.timing.responseMs.length, 1);
    assert.equal(result.timing.loadAverage.length, 3);
    assert.equal(json.results.find((r: { id: string }) => r.id === 'unit.passes').timing, undefined);
    assert.equal(json.runInfo.machine.loadAverage.length, 3);
  } finally {
    console.log = log;
    rmSync(reportDir, { recursive: true, force: true });
  }
});

// The checks MCP cases use, on observed exchanges as the MCP transport builds them.
const observed = (json: unknown, text?: string): Observed => ({
  status: 200,
  headers: {},
  body: Buffer.alloc(0),
  durationMs: 1,
  json,
  ...(text !== undefined ? { text } : {}),
});

test('json assertions: present, type, equals (deep), matches, length', () => {
  const o = observed({ tools: [{ name: 'take_screenshot', inputSchema: { type: 'object', properties: { a: { default: 1 } } } }] });
  assert.equal(checkJson({ path: ['tools'], length: 1 }, o.json).pass, true);
  assert.equal(checkJson({ path: ['tools', 0, 'inputSchema', 'properties'], equals: { a: { default: 1 } } }, o.json).pass, true);
  assert.equal(checkJson({ path: ['tools', 0, 'inputSchema', 'properties'], equals: { a: { default: 2 } } }, o.json).pass, false);
  assert.equal(checkJson({ path: ['tools', 0, 'name'], matches: '^take_' }, o.json).pass, true);
  assert.equal(checkJson({ path: ['tools', 1], present: true }, o.json).pass, false);
  assert.equal(checkJson({ path: ['tools', 0], type: 'array' }, o.json).pass, false);
});

test('tool results: a refusal is isError with text and no image, or a JSON-RPC error; a success is not', () => {
  assert.deepEqual(
    checkTool({ isError: true }, observed({ isError: true, content: [{ type: 'text' }] }, 'bad_request: x')).map((k) => k.pass),
    [true, true, true],
  );
  assert.equal(checkTool({ isError: true }, observed({ rpcError: { code: -32602, message: 'Invalid params' } }, 'Invalid params'))[0]!.pass, true);
  assert.deepEqual(
    checkTool({ isError: true }, observed({ content: [{ type: 'image' }] }, '')).map((k) => k.pass),
    [false, false, false],
  );
  assert.deepEqual(
    checkTool({ isError: false, images: 1 }, observed({ content: [{ type: 'image' }, { type: 'text' }] }, 'ok')).map((k) => k.pass),
    [true, true],
  );
  assert.deepEqual(
    checkTool({ isError: false, images: 1 }, observed({ isError: true, content: [{ type: 'text' }] }, 'no')).map((k) => k.pass),
    [false, false],
  );
});

test('text and comparisons across steps read numbers out of the text', () => {
  const first = observed({}, 'Credits: 1 charged, 42 remaining');
  assert.equal(checkText('Credits: 1 charged', first).pass, true);
  assert.equal(checkText('^selector_not_found: ', first).pass, false);
  const read = { text: 'Credits: \\d+ charged, (\\d+) remaining' };
  assert.equal(checkComparison({ read, fromStep: 0, plus: -1 }, observed({}, 'Credits: 1 charged, 41 remaining'), [first]).pass, true);
  assert.equal(checkComparison({ read, fromStep: 0, plus: -1 }, observed({}, 'Credits: 1 charged, 40 remaining'), [first]).pass, false);
  assert.equal(checkComparison({ read, fromStep: 0, plus: 0 }, observed({}, 'no credits here'), [first]).pass, false);
});
