// GET /openapi.json as users meet it: the live document is linted with Redocly's
// `recommended` rules, a typed client is generated from it with openapi-typescript, and a small
// program using openapi-fetch is compiled with tsc and run with node against a reference server on
// port 0. All three tools are pinned devDependencies; nothing leaves loopback (Redocly's telemetry
// and update check are switched off).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';
import { call } from '../support/http.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

/**
 * Redocly `recommended` warnings we keep, and why: `no-required-schema-properties-undefined` reads
 * `required` inside `not`, `if` and `then` as if those subschemas declared their own properties. In
 * JSON Schema they apply to the same object, whose properties the request schema declares; these
 * are the cross-field rules (exactly one of url/html, quality only with jpeg/webp, headers and
 * cookies only with url).
 */
const ACCEPTED_WARNINGS = [
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/1/not/required/0',
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/1/not/required/1',
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/2/if/required/0',
  // headers and cookies only with url: the same reading of `if` and `then`.
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/3/if/anyOf/0/required/0',
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/3/if/anyOf/1/required/0',
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/3/then/required/0',
  // geolocation only with url (server/emulation/): the same reading of `if` and `then`.
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/4/if/required/0',
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/4/then/required/0',
  // clip and selector not together; js not with javaScriptEnabled false: the same reading.
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/5/not/required/0',
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/5/not/required/1',
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/6/then/not/required/0',
  // fullPageMaxHeight only with fullPage (server/tall-pages/): the same reading of `if`.
  'no-required-schema-properties-undefined #/components/requestBodies/ScreenshotRequest/content/application~1json/schema/allOf/7/if/required/0',
  // GET /v1/devices takes no input and needs no key: it has no 4xx to list.
  'operation-4xx-response #/paths/~1v1~1devices/get/responses',
];
// POST /v1/compare's body is a capture request's (its rules at the top) with a second one under
// baseline.request, and baseline's own "not both image and request": the same reading.
const CAPTURE_BODY = '#/components/requestBodies/ScreenshotRequest/content/application~1json/schema';
const COMPARE_BODY = '#/components/requestBodies/CompareRequest/content/application~1json/schema';
const BATCH_BODY = '#/paths/~1v1~1batches/post/requestBody/content/application~1json/schema';
ACCEPTED_WARNINGS.push(
  ...ACCEPTED_WARNINGS.filter((w) => w.includes(CAPTURE_BODY)).flatMap((w) => [
    w.replace(CAPTURE_BODY, COMPARE_BODY),
    w.replace(CAPTURE_BODY, `${COMPARE_BODY}/properties/baseline/properties/request`),
    // POST /v1/batches: each of its requests is a capture request, the same reading.
    w.replace(CAPTURE_BODY, `${BATCH_BODY}/properties/requests/items`),
  ]),
  ...[0, 1].map((i) => `no-required-schema-properties-undefined ${COMPARE_BODY}/properties/baseline/allOf/1/not/required/${i}`),
);

/** The user's program: a body of just {html}, the PNG as bytes, a typed error. */
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api.ts';

const [baseUrl, key] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });

// Only html: every other field has a default and is optional.
const shot = await client.POST('/v1/screenshot', {
  body: { html: '<body style="margin:0;background:#0a0">hello</body>', viewport: { width: 320, height: 200 } },
  parseAs: 'arrayBuffer',
});
if (!shot.data) throw new Error(\`expected an image, got \${shot.response.status}\`);
const png = new Uint8Array(shot.data);
const view = new DataView(shot.data);

const minimal: components['requestBodies']['ScreenshotRequest']['content']['application/json'] = { html: '<p>x</p>' };
// @ts-expect-error format is one of png, jpeg, webp
const wrongFormat: components['requestBodies']['ScreenshotRequest']['content']['application/json'] = { html: 'x', format: 'gif' };
void minimal; void wrongFormat;

const bad = await client.POST('/v1/screenshot', { body: { html: 'x', viewport: { width: 0, height: 100 } } });

// A signed link (GET): the options flattened into typed query parameters; this key does not exist.
const link = await client.GET('/v1/screenshot', {
  params: { query: { url: 'https://example.com/', 'viewport.width': 1200, 'viewport.height': 630, hideSelectors: ['.ad'], keyId: 'key_0000000000000000', expires: 4102444800, signature: '0'.repeat(64) } },
  parseAs: 'arrayBuffer',
});
const linkCode: components['schemas']['Error']['error'] | undefined = link.error?.error;
let code: components['schemas']['Error']['error'] | undefined;
let message: string | undefined;
if (bad.error) {
  code = bad.error.error; // typed: the catalogue's codes
  message = bad.error.message;
}

console.log(JSON.stringify({
  status: shot.response.status,
  type: shot.response.headers.get('content-type'),
  magic: Array.from(png.subarray(1, 4), (c) => String.fromCharCode(c)).join(''),
  width: view.getUint32(16),
  height: view.getUint32(20),
  charged: shot.response.headers.get('x-credits-charged'),
  errorStatus: bad.response.status,
  code,
  message,
  linkStatus: link.response.status,
  linkCode,
}));
`;

let srv: TestServer;
let work: string;
let docPath: string;

before(async () => {
  srv = await startTestServer();
  // Inside node_modules/.cache so that the program resolves openapi-fetch and @types/node from the
  // repository, as it would in a user's project; removed afterwards.
  mkdirSync(path.join(ROOT, 'node_modules', '.cache'), { recursive: true });
  work = mkdtempSync(path.join(ROOT, 'node_modules', '.cache', 'openapi-client-'));
  const r = await call(srv.url, '/openapi.json', undefined, { method: 'GET', key: null });
  assert.equal(r.status, 200);
  docPath = path.join(work, 'openapi.json');
  writeFileSync(docPath, r.body);
});

after(async () => {
  await srv?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('Redocly recommended: no errors; only the warnings we accept', async () => {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const out = await run(BIN('redocly'), ['lint', '--extends', 'recommended', '--format', 'json', docPath], { env, cwd: work, maxBuffer: 1 << 24 }).catch(
    (e) => e as { stdout: string; stderr: string },
  );
  const report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as {
    totals: { errors: number; warnings: number };
    problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
  };
  const problems = report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
  assert.equal(
    report.totals.errors,
    0,
    `errors: ${JSON.stringify(
      report.problems.filter((p) => p.severity === 'error'),
      null,
      1,
    )}`,
  );
  assert.deepEqual(
    problems.filter((p) => !ACCEPTED_WARNINGS.includes(p)),
    [],
    'no warning beyond the accepted ones',
  );
});

test('the document describes what the server really sends', async () => {
  const doc = JSON.parse((await call(srv.url, '/openapi.json', undefined, { method: 'GET', key: null })).body.toString('utf8'));
  const op = doc.paths['/v1/screenshot'].post;
  assert.equal(op.operationId, 'takeScreenshot');
  assert.ok(doc.servers.length > 0 && doc.info.license);
  assert.deepEqual(Object.keys(op.responses).sort(), ['200', '304', '400', '401', '402', '413', '415', '422', '424', '429', '500', '502', '503', '504']);
  assert.equal(op.responses['200'].headers['Cache-Control'].$ref, '#/components/headers/CacheControlPrivate');
  assert.ok(op.responses['200'].headers.ETag && op.parameters.some((p: { name: string }) => p.name === 'If-None-Match'));
  // The signed link: its parameters come from the same schema; no key header; its own codes.
  const get = doc.paths['/v1/screenshot'].get;
  assert.equal(get.operationId, 'getSignedScreenshot');
  assert.deepEqual(get.security, []);
  const names = get.parameters.map((p: { name: string }) => p.name);
  for (const n of [
    'url',
    'html',
    'viewport.width',
    'viewport.deviceScaleFactor',
    'hideSelectors',
    'deterministic',
    'cacheTtl',
    'captureOnTimeout',
    'keyId',
    'expires',
    'signature',
  ])
    assert.ok(names.includes(n), `GET has ${n}`);
  assert.ok(!names.includes('headers') && !names.includes('cookies'), 'links never carry headers or cookies');
  assert.deepEqual(Object.keys(get.responses).sort(), ['200', '304', '400', '402', '403', '410', '422', '424', '429', '500', '502', '503', '504']);
  assert.ok(!get.responses['200'].headers['x-credits-remaining'], 'a public answer shows no balance');
  for (const t of ['image/png', 'image/jpeg', 'image/webp'])
    assert.deepEqual(op.responses['200'].content[t].schema, { type: 'string', format: 'binary', contentMediaType: t });
  for (const h of [
    'Content-Disposition',
    'x-request-id',
    'x-credits-charged',
    'x-credits-remaining',
    'x-cache',
    'x-banner-action',
    'x-target-status',
    'x-capture-truncated',
    'x-wait-timed-out',
    'x-blocked-requests',
    'Server-Timing',
  ]) {
    assert.ok(op.responses['200'].headers[h], `200 describes ${h}`);
  }
  assert.ok(op.responses['401'].headers['WWW-Authenticate']);
  assert.ok(op.responses['429'].headers['Retry-After'] && op.responses['503'].headers['Retry-After']);
  const schema = doc.components.requestBodies.ScreenshotRequest.content['application/json'].schema;
  assert.ok(schema.allOf?.length, 'the cross-field rules are in the schema');
  assert.ok(!JSON.stringify(doc).includes('x-rule') && !JSON.stringify(doc).includes('499'), 'no internal annotations, no 499');
});

test('a client generated from the live document compiles with a body of just {html} and fetches a PNG and a typed error', async () => {
  const ast = await openapiTS(new URL('/openapi.json', srv.url));
  writeFileSync(path.join(work, 'api.ts'), astToString(ast));
  writeFileSync(path.join(work, 'program.ts'), PROGRAM);
  writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    path.join(work, 'tsconfig.json'),
    JSON.stringify({
      // skipLibCheck: node's and openapi-fetch's own .d.ts are not ours to check (a third of tsc's time).
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        lib: ['ES2022'],
        rewriteRelativeImportExtensions: true,
        outDir: 'out',
      },
      files: ['program.ts'],
    }),
  );
  const tsc = await run(BIN('tsc'), ['-p', path.join(work, 'tsconfig.json')], { cwd: work }).catch((e) => e as { stdout: string; code: number });
  assert.equal((tsc as { code?: number }).code ?? 0, 0, `tsc:\n${tsc.stdout}`);

  // Run what tsc emitted, with plain node: the program a user would ship.
  const { stdout } = await run(process.execPath, [path.join(work, 'out', 'program.js'), srv.url, TEST_KEY], { cwd: work });
  const out = JSON.parse(stdout.trim().split('\n').pop()!);
  assert.deepEqual(
    { status: out.status, type: out.type, magic: out.magic, width: out.width, height: out.height, charged: out.charged },
    { status: 200, type: 'image/png', magic: 'PNG', width: 320, height: 200, charged: '1' },
  );
  assert.equal(out.errorStatus, 400);
  assert.equal(out.code, 'bad_request');
  assert.match(out.message, /viewport\.width/);
  assert.equal(out.linkStatus, 403);
  assert.equal(out.linkCode, 'link_key_invalid');
});
