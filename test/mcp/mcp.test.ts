// The MCP server end to end (spec §4.2, §5): the official SDK client over loopback
// against a real reference server (real Chromium, real store). One server for the whole file;
// every credit check reads the ledger itself.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { publicCompareSchema } from '../../server/compare/schema.ts';
import { CAPTURE_META_KEY, toolInputSchema, type ToolCaptureFacts } from '../../server/mcp/tool.ts';
import { MCP_IMAGE_BUDGET_BYTES } from '../../server/mcp/shrink.ts';
import { blocksOf, EMULATED, greenBut, pick, serveProbe } from '../support/emulation.ts';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { PREP_CSS, PREP_JS, servePrepPage } from '../support/prepare-page.ts';
import { decode } from '../support/image.ts';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';
import { balance, connect, imageOf, MCP_SERVER_ENV, mcpUrl, plainToolCall, textOf } from './helpers.ts';

const RED_PAGE = '<!doctype html><html><body style="margin:0;background:#ff0000"><h1 id="t">fixture</h1></body></html>';
/** Seeded colour noise over the viewport: a PNG of it is several MB, far over the MCP budget. */
const NOISE_PAGE = `<!doctype html><html><body style="margin:0;overflow:hidden"><canvas id="c"></canvas><script>
const c = document.getElementById('c'); c.width = innerWidth; c.height = innerHeight;
const g = c.getContext('2d'); const img = g.createImageData(c.width, c.height); let s = 2463534242;
for (let i = 0; i < img.data.length; i++) { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; img.data[i] = (i & 3) === 3 ? 255 : s & 255; }
g.putImageData(img, 0, 0);
</script></body></html>`;

let fx: Fixture;
let probeUrl: string;
let ts: TestServer;
let client: Client;

before(async () => {
  fx = await startFixture();
  page(fx, '/red.html', RED_PAGE);
  page(fx, '/cached.html', RED_PAGE);
  probeUrl = serveProbe(fx).url;
  ts = await startTestServer(MCP_SERVER_ENV, fx);
  client = await connect(mcpUrl(ts));
});

after(async () => {
  await client?.close();
  await ts?.close();
  await fx?.close();
});

const call = async (args: Record<string, unknown>) => (await client.callTool({ name: 'take_screenshot', arguments: args })) as CallToolResult;

test('tools/list: take_screenshot, whose input schema is the REST body schema, compare_screenshots and the batch tools', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ['take_screenshot', 'compare_screenshots', 'submit_batch', 'get_batch'],
  );
  assert.deepEqual(
    tools[1]!.inputSchema.properties,
    (publicCompareSchema() as { properties: unknown }).properties,
    "the compare tool takes POST /v1/compare's body",
  );
  assert.deepEqual(tools[0].inputSchema, toolInputSchema());
  assert.match(tools[0].description ?? '', /url/);
  assert.match(tools[0].description ?? '', /html/);
});

test('compare_screenshots: the diff picture, the figures in words and in _meta; a failure is an isError result, free', async () => {
  const before = await balance(ts.server);
  const page = (extra: string) => `<body style="margin:0;background:#fff">${extra}</body>`;
  const viewport = { width: 160, height: 100 };
  const r = (await client.callTool({
    name: 'compare_screenshots',
    arguments: {
      html: page('<div style="position:absolute;left:20px;top:30px;width:40px;height:10px;background:#000"></div>'),
      viewport,
      baseline: { request: { html: page(''), viewport } },
    },
  })) as CallToolResult;
  assert.notEqual(r.isError, true, textOf(r));
  const img = await decode(imageOf(r).data);
  assert.deepEqual([img.width, img.height], [160, 100]);
  assert.match(textOf(r), /^400 pixels differ .*\nChanged regions \(1\): 40x10 at 20,30\./);
  const meta = (r._meta as Record<string, { diffPixels: number; regions: unknown; credits: { charged: number } }>)['screenshot-service/compare']!;
  assert.deepEqual([meta.diffPixels, meta.regions, meta.credits.charged], [400, [{ x: 20, y: 30, width: 40, height: 10 }], 2]);
  assert.equal(await balance(ts.server), before - 2);
  const bad = (await client.callTool({
    name: 'compare_screenshots',
    arguments: { html: page(''), baseline: { image: 'bm90IGFuIGltYWdl' } },
  })) as CallToolResult;
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /^bad_request: baseline\.image must be a base64 PNG, JPEG or WebP image\nNo credit was charged\./);
  assert.equal(await balance(ts.server), before - 2);
});

test('html capture: a PNG image of the requested viewport plus a text part; one credit', async () => {
  const before = await balance(ts.server);
  const r = await call({ html: RED_PAGE, viewport: { width: 320, height: 200 } });
  assert.notEqual(r.isError, true, textOf(r));
  const img = imageOf(r);
  assert.equal(img.mimeType, 'image/png');
  const meta = await sharp(img.data).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ['png', 320, 200]);
  const { data } = await sharp(img.data).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([...data.subarray(0, 3)], [255, 0, 0], 'top-left pixel is the page background');
  const text = textOf(r);
  assert.match(text, /Screenshot of the supplied HTML: PNG 320x200, [\d,]+ bytes\./);
  assert.match(text, /Banner cleanup: /);
  assert.match(text, /Credits: 1 charged/);
  assert.equal(await balance(ts.server), before - 1);
});

test('url capture of a loopback fixture (allowed by EGRESS_ALLOW), with format and quality', async () => {
  const before = await balance(ts.server);
  const r = await call({ url: `${fx.origin}/red.html`, format: 'jpeg', quality: 80, viewport: { width: 300, height: 150 } });
  assert.notEqual(r.isError, true, textOf(r));
  const img = imageOf(r);
  assert.equal(img.mimeType, 'image/jpeg');
  const meta = await sharp(img.data).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 300, 150]);
  assert.match(textOf(r), new RegExp(`Screenshot of ${fx.origin}/red.html, target answered HTTP 200: JPEG 300x150`));
  assert.ok(fx.hits.includes('/red.html'));
  assert.equal(await balance(ts.server), before - 1);
});

test('a cached url result costs nothing, as in REST', async () => {
  const args = { url: `${fx.origin}/cached.html`, viewport: { width: 200, height: 100 } };
  const first = await call(args);
  assert.notEqual(first.isError, true, textOf(first));
  const mid = await balance(ts.server);
  const second = await call(args);
  assert.notEqual(second.isError, true, textOf(second));
  assert.match(textOf(second), /Credits: 0 charged, \d+ remaining \(cache hit\)/);
  assert.equal(await balance(ts.server), mid);
});

test('validation errors: isError with bad_request and the field-naming message; nothing billed', async () => {
  const before = await balance(ts.server);
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ html: '<p>x</p>', viewport: { width: 0, height: 100 } }, /^bad_request: .*viewport\.width/],
    [{}, /^bad_request: .*(url|html)/],
    [{ url: `${fx.origin}/red.html`, html: '<p>x</p>' }, /^bad_request: .*(url|html)/],
    [{ html: '<p>x</p>', quality: 50 }, /^bad_request: .*quality/],
  ];
  for (const [args, pattern] of cases) {
    const r = await call(args);
    assert.equal(r.isError, true, JSON.stringify(args));
    assert.ok(!r.content.some((c) => c.type === 'image'));
    assert.match(textOf(r), pattern);
    assert.match(textOf(r), /No credit was charged\./);
  }
  assert.equal(await balance(ts.server), before);
});

test("the emulation fields: listed in the tool's schema (device presets as an enum) and applied as in REST", async () => {
  const { tools } = await client.listTools();
  const props = tools[0]!.inputSchema.properties as Record<string, { enum?: string[]; description?: string }>;
  assert.ok(props.device?.enum?.includes(EMULATED.device) && (props.device.enum.length ?? 0) > 100);
  for (const f of ['timezone', 'locale', 'geolocation', 'mediaType', 'reducedMotion', 'javaScriptEnabled']) assert.ok(props[f]?.description, f);
  const { timezone, locale, device, geolocation } = EMULATED;
  const r = await call({
    url: probeUrl,
    waitUntil: 'load',
    device,
    viewport: { width: 320, height: 240, deviceScaleFactor: 1 },
    timezone,
    locale,
    geolocation,
    mediaType: 'print',
    reducedMotion: 'reduce',
    colorScheme: 'dark',
  });
  assert.notEqual(r.isError, true, textOf(r));
  const blocks = blocksOf(await decode(imageOf(r).data));
  const green = greenBut();
  assert.deepEqual(pick(blocks, green), green);
  const off = await call({ url: probeUrl, waitUntil: 'load', viewport: { width: 320, height: 240 }, javaScriptEnabled: false });
  assert.deepEqual(pick(blocksOf(await decode(imageOf(off).data)), { scripts: 'blue', zone: 'yellow' }), { scripts: 'blue', zone: 'yellow' });
  const unknown = await call({ html: '<p>x</p>', device: 'iPhone 99' });
  assert.equal(unknown.isError, true);
  assert.match(textOf(unknown), /^bad_request: device must be the name of a device preset .*: the closest are "iPhone /);
});

test('the egress guard applies: a loopback target outside EGRESS_ALLOW is bad_request; nothing billed', async () => {
  const before = await balance(ts.server);
  const blocked = new URL(ts.server.url);
  const r = await call({ url: `http://127.0.0.1:${blocked.port}/healthz` });
  assert.equal(r.isError, true);
  assert.match(textOf(r), /^bad_request: /);
  assert.equal(await balance(ts.server), before);
});

test('a render failure (selector_not_found) is an isError result and releases the credit', async () => {
  const before = await balance(ts.server);
  const r = await call({ html: RED_PAGE, selector: '#missing', viewport: { width: 200, height: 100 } });
  assert.equal(r.isError, true);
  assert.match(textOf(r), /^selector_not_found: /);
  assert.equal(await balance(ts.server), before);
});

test('preparing the page: css, actions, js, blocking, clip and delay as tool arguments; failOnTargetError is an isError result, free', async () => {
  servePrepPage(fx, '/prep.html');
  fx.route('/gone.html', (_req, res) => void res.writeHead(410, { 'content-type': 'text/html' }).end('<p>gone</p>'));
  const hits = fx.hits.length;
  const r = await call({
    url: `${fx.origin}/prep.html`,
    viewport: { width: 200, height: 100 },
    waitUntil: 'load',
    blockCookieBanners: false,
    delay: 50,
    css: PREP_CSS,
    actions: [{ click: '#b' }],
    js: PREP_JS,
    blockResourceTypes: ['image'],
    clip: { x: 60, y: 0, width: 40, height: 40 },
  });
  assert.notEqual(r.isError, true, textOf(r));
  const { data, info } = await sharp(imageOf(r).data).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([info.width, info.height], [40, 40], 'the clip');
  assert.deepEqual([...data.subarray(0, 3)], [0, 170, 0], 'css, the click, then js');
  assert.ok(!fx.hits.slice(hits).some((h) => h.startsWith('/prep.png')), 'the image never left the browser');
  const before = await balance(ts.server);
  const gone = await call({ url: `${fx.origin}/gone.html`, failOnTargetError: true, waitUntil: 'load' });
  assert.equal(gone.isError, true);
  assert.match(textOf(gone), /^target_error: the target answered HTTP 410/);
  assert.equal(await balance(ts.server), before);
});

test('an image over the MCP budget is re-encoded to fit and the text says what was done', async () => {
  const before = await balance(ts.server);
  const r = await call({ html: NOISE_PAGE, viewport: { width: 1280, height: 720 } });
  assert.notEqual(r.isError, true, textOf(r));
  const img = imageOf(r);
  assert.ok(img.data.length <= MCP_IMAGE_BUDGET_BYTES, `${img.data.length} bytes`);
  assert.equal(img.mimeType, 'image/jpeg');
  const meta = await sharp(img.data).metadata();
  assert.equal(meta.format, 'jpeg');
  const text = textOf(r);
  assert.match(text, /The capture \(PNG 1280x720, [\d,]+ bytes\) was over this tool's 750,000-byte image budget/);
  assert.match(text, /re-encoded as JPEG quality \d+/);
  assert.match(text, new RegExp(`: ${img.data.length.toLocaleString('en-US')} bytes\\.`));
  // The same, as data (tool.ts ToolCaptureFacts), without structuredContent so the image survives.
  assert.equal(r.structuredContent, undefined);
  const facts = r._meta?.[CAPTURE_META_KEY] as ToolCaptureFacts;
  assert.deepEqual(
    { format: facts.format, mimeType: facts.mimeType, bytes: facts.bytes, width: facts.width, height: facts.height },
    { format: 'jpeg', mimeType: 'image/jpeg', bytes: img.data.length, width: meta.width, height: meta.height },
  );
  assert.equal(facts.changed?.from.format, 'png');
  assert.deepEqual([facts.changed?.from.width, facts.changed?.from.height], [1280, 720]);
  assert.ok(facts.changed!.from.bytes > MCP_IMAGE_BUDGET_BYTES);
  assert.equal(facts.changed?.reencoded, true);
  assert.match(facts.changed!.reason, /bytes/);
  assert.equal(facts.credits.charged, 1);
  assert.equal(await balance(ts.server), before - 1, 'one capture, one credit, whatever the MCP side does');
});

test('unknown tool name is a protocol error, not a capture', async () => {
  const before = await balance(ts.server);
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /unknown tool/);
  assert.equal(await balance(ts.server), before);
});

test('auth: the SDK client says the API key is missing or invalid', async () => {
  // The TypeScript SDK prints the 401 body after "Error POSTing to endpoint:"; the message is in it.
  await assert.rejects(connect(mcpUrl(ts), null), (e: Error) => /401|Error POSTing/.test(e.message) && /the API key is missing/.test(e.message));
  await assert.rejects(connect(mcpUrl(ts), 'wrong-key-0123456789abcdef'), (e: Error) => /the API key is invalid/.test(e.message));
});

test('auth: the 401 is a JSON-RPC error (what MCP clients read) with WWW-Authenticate: Bearer', async () => {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const cases = [
    [undefined, /^Bearer realm="screenshot"$/, /the API key is missing/],
    [
      'Bearer wrong-key-0123456789abcdef',
      /^Bearer realm="screenshot", error="invalid_token", error_description="the API key is invalid[^"]*"$/,
      /the API key is invalid/,
    ],
    ['Basic Zm9vOmJhcg==', /^Bearer realm="screenshot"$/, /the API key is missing/],
  ] as const;
  for (const [auth, challenge, message] of cases) {
    const res = await fetch(mcpUrl(ts), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(auth ? { authorization: auth } : {}) },
      body: JSON.stringify(init),
    });
    assert.equal(res.status, 401, String(auth));
    assert.match(res.headers.get('www-authenticate') ?? '', challenge);
    const body = (await res.json()) as { jsonrpc: string; id: null; error: { code: number; message: string; data: { error: string } } };
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /^unauthorized: /);
    assert.match(body.error.message, message);
    assert.deepEqual(body.error.data, { error: 'unauthorized' });
  }
});

test('auth: the OAuth discovery and registration a client tries after a 401 are 404s that name the key', async () => {
  const probes: Array<[string, string]> = [
    ['GET', '/.well-known/oauth-protected-resource/mcp'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/openid-configuration'],
    ['POST', '/register'],
  ];
  for (const [method, path] of probes) {
    const res = await fetch(new URL(path, ts.server.url), {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
    });
    assert.equal(res.status, 404, path);
    const body = (await res.json()) as { error: string; message: string };
    assert.equal(body.error, 'not_found');
    assert.match(body.message, /no OAuth here/);
    assert.match(body.message, /API key your client sent is missing or invalid/);
  }
});

test('stateless: GET and DELETE on /mcp are 405 with Allow: POST', async () => {
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(mcpUrl(ts), { method, headers: { authorization: `Bearer ${TEST_KEY}`, accept: 'text/event-stream' } });
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get('allow'), 'POST');
    assert.equal(((await res.json()) as { error: string }).error, 'method_not_allowed');
  }
});

test('plain HTTP works too: a JSON-RPC tools/call without the SDK', async () => {
  const res = await plainToolCall(ts, 7, { html: '<p>x</p>', viewport: { width: 0, height: 10 } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = (await res.json()) as { id: number; result: CallToolResult };
  assert.equal(body.id, 7);
  assert.equal(body.result.isError, true);
  assert.match(textOf(body.result), /^bad_request: viewport\.width/);
});
