// The MCP server (spec §4.2, §5) as data cases, run by the same executor as the REST cases.
// `core` checks only what the spec states: a Bearer-authenticated MCP endpoint with a tool that
// captures a page or HTML. The tool's name, parameters and results are "not shown", so core finds
// the tool by name or description and drives it with the REST body's field names (§2.1) when its
// input schema declares them (skipped otherwise). `reference` checks the reference server's
// decisions (rules mcp/*): tool `take_screenshot` whose input schema is the REST body schema
// (derived here from the one schema, server/request/schema.ts, never a copy), 401 as a JSON-RPC
// error, errors as isError "<code>: <message>", the 750,000-byte image budget, billing.
import reference from '../data/reference-request.json' with { type: 'json' };
import type { CaseSpec, Expectation, HttpRequestSpec, McpRequestSpec, Probe } from '../model/model.ts';

const BLUE: [number, number, number] = [32, 64, 192];
const GREEN: [number, number, number] = [32, 160, 64]; // fixtures/pages/plain.html
const BLUE_PAGE = '<!doctype html><html><body style="margin:0;background:#2040c0"></body></html>';
/** Seeded colour noise over the viewport: several MB as PNG, far over the reference budget. */
const NOISE_PAGE = `<!doctype html><html><body style="margin:0;overflow:hidden"><canvas id="c"></canvas><script>
const c = document.getElementById('c'); c.width = innerWidth; c.height = innerHeight;
const g = c.getContext('2d'); const img = g.createImageData(c.width, c.height); let s = 2463534242;
for (let i = 0; i < img.data.length; i++) { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; img.data[i] = (i & 3) === 3 ? 255 : s & 255; }
g.putImageData(img, 0, 0);
</script></body></html>`;
const REF_BUDGET = 750_000; // DESIGN (rule mcp/size-budget)

/** The JSON-RPC initialize request, for bare exchanges with the endpoint. */
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'screenshot-conformance', version: '1.0.0' } },
};
const ACCEPT = { accept: 'application/json, text/event-stream' };
const initialize = (auth: HttpRequestSpec['auth'], label: string): HttpRequestSpec => ({ endpoint: 'mcp', auth, headers: ACCEPT, body: INITIALIZE, label });
const call = (args: Record<string, unknown>, extra: Partial<McpRequestSpec> = {}): McpRequestSpec => ({ mcp: 'call-tool', arguments: args, ...extra });

/** The page colour in the middle half of whatever size the image has. */
const middle = (rgb: [number, number, number]): Probe => ({
  kind: 'color',
  region: { x: 0.25, y: 0.25, w: 0.5, h: 0.5, unit: 'fraction' },
  rgb,
  tolerance: 24,
  label: 'page colour in the middle half',
});
const captured = (rgb?: [number, number, number], extra: Partial<Expectation> = {}): Expectation => ({
  status: 200,
  tool: { isError: false, images: 1 },
  image: { type: 'any' },
  probes: rgb ? [middle(rgb)] : [],
  ...extra,
});
const refused = (text: string[] = []): Expectation => ({ status: 200, tool: { isError: true }, ...(text.length ? { text } : {}) });
const CREDITS = 'Credits: \\d+ charged, (\\d+) remaining';
const NOTHING_CHARGED = 'No credit was charged';

/** The REST body schema as the implementation must serve it in the tool (reference): the one schema, shipped as data (scripts/suite-data.ts). */
const restSchema = reference.schema as { properties: Record<string, unknown> };
const toolSchema = ['tools', 0, 'inputSchema'];
/** The reference server's 401 on /mcp: a JSON-RPC error, the shape MCP clients show. */
const UNAUTHORIZED: Expectation = {
  status: 401,
  anyFailureBody: true,
  headers: { 'www-authenticate': { matches: '^Bearer\\b' } },
  json: [
    { path: ['jsonrpc'], equals: '2.0' },
    { path: ['error', 'code'], type: 'number' },
    { path: ['error', 'data', 'error'], equals: 'unauthorized' },
    { path: ['error', 'message'], matches: 'API key is (missing|invalid)', label: 'the message says the API key is missing or invalid' },
  ],
};
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** MCP cases of the core profile: the spec's MCP rules (§4.2). */
export const mcpCoreCases: CaseSpec[] = [
  {
    id: 'mcp-core-auth-required',
    must: 'The MCP server MUST refuse a request without a valid Bearer key (no tool access) and serve it with one.',
    rules: ['4.2/mcp', '5/bearer'],
    needs: ['mcp'],
    request: initialize('none', 'no Authorization'),
    expect: { status: '4xx', anyFailureBody: true },
    then: [
      { request: initialize('invalid', 'unknown key'), expect: { status: '4xx', anyFailureBody: true } },
      // ...and the same request with the key is served, so the refusals were about the key.
      { request: initialize('valid', 'valid key'), expect: { status: '2xx' } },
    ],
  },
  {
    id: 'mcp-core-tool-listed',
    must: 'The MCP server MUST, with a valid Bearer key, initialize with the tools capability and list a screenshot tool.',
    rules: ['4.2/mcp', '1/mcp', '5/bearer'],
    needs: ['mcp'],
    request: { mcp: 'list-tools' },
    expect: {
      status: 200,
      json: [
        { path: ['capabilities', 'tools'], present: true, label: 'the tools capability' },
        { path: ['tool'], type: 'object', label: 'a screenshot tool is listed' },
        { path: ['tool', 'inputSchema', 'type'], equals: 'object', label: 'its input schema is an object schema' },
      ],
    },
  },
  {
    id: 'mcp-core-capture-html',
    must: 'The MCP server MUST offer a screenshot tool that captures supplied HTML and returns it as image content.',
    rules: ['4.2/mcp', '1/mcp', '2.1/html'],
    needs: ['mcp'],
    request: call({ html: BLUE_PAGE }),
    expect: captured(BLUE),
  },
  {
    id: 'mcp-core-capture-url',
    must: 'The MCP server MUST offer a screenshot tool that captures a page by URL and returns it as image content.',
    rules: ['4.2/mcp', '1/mcp', '2.1/url'],
    needs: ['mcp', 'fixtures'],
    request: call({ url: { $fixtureUrl: '/pages/plain.html' } }),
    expect: captured(GREEN),
  },
  {
    id: 'mcp-core-invalid-request',
    must: 'The MCP server MUST answer a tool call with neither url nor html with an error, never with an image or an empty success.',
    rules: ['4.2/mcp', '2.1/rule-1'],
    needs: ['mcp'],
    request: call({}, { params: ['html', 'url'] }),
    expect: refused(),
  },
];

/** MCP cases of the reference profile: the reference server's own decisions (DESIGN §3). */
export const mcpReferenceCases: CaseSpec[] = [
  {
    id: 'mcp-ref-unauthorized',
    must: 'The MCP server MUST answer a missing, malformed or unknown key with 401, WWW-Authenticate: Bearer and a JSON-RPC error body (what MCP clients show) whose message says so and whose data.error is "unauthorized".',
    rules: ['mcp/auth', 'D3/unauthorized', '5/bearer'],
    needs: ['mcp'],
    request: initialize('none', 'no Authorization'),
    expect: UNAUTHORIZED,
    then: [
      { request: initialize('invalid', 'unknown key'), expect: UNAUTHORIZED },
      { request: initialize('malformed', 'Basic scheme'), expect: UNAUTHORIZED },
    ],
  },
  {
    id: 'mcp-ref-stateless',
    must: 'The MCP server MUST, being stateless, answer GET and DELETE with 405 method_not_allowed and Allow: POST.',
    rules: ['mcp/auth', 'D3/method-not-allowed'],
    needs: ['mcp'],
    request: { endpoint: 'mcp', method: 'GET', headers: { accept: 'text/event-stream' }, label: 'GET' },
    expect: { status: 405, error: 'method_not_allowed', headers: { allow: 'POST' } },
    then: [
      {
        request: { endpoint: 'mcp', method: 'DELETE', headers: { accept: 'text/event-stream' }, label: 'DELETE' },
        expect: { status: 405, error: 'method_not_allowed', headers: { allow: 'POST' } },
      },
    ],
  },
  {
    id: 'mcp-ref-tool-schema',
    must: 'The MCP server MUST list take_screenshot first, whose input schema is the REST body schema (every field, bound and default) with the cross-field rules in words.',
    rules: ['mcp/tool', '2.1/format', '2.1/waitUntil', '2.1/blockCookieBanners'],
    needs: ['mcp'],
    request: { mcp: 'list-tools' },
    expect: {
      status: 200,
      json: [
        { path: ['tools', 0, 'name'], equals: 'take_screenshot' },
        { path: [...toolSchema, 'properties'], equals: restSchema.properties, label: 'the REST body fields, bounds and defaults' },
        ...reference.crossFieldRules.map((rule) => ({ path: [...toolSchema, 'description'], matches: escape(rule), label: `states "${rule}"` })),
      ],
    },
  },
  {
    id: 'mcp-ref-errors',
    must: 'The MCP server MUST answer a failed tool call with isError and "<code>: <message>" (the REST code and the field-naming message), and charge nothing.',
    rules: ['mcp/results', '2.1/rule-3', '7/row-4', '7/row-1', '7/row-5'],
    needs: ['mcp'],
    request: call({ html: '<p>x</p>', viewport: { width: 0, height: 100 } }, { label: 'viewport.width 0' }),
    expect: refused(['^bad_request: .*viewport\\.width', NOTHING_CHARGED]),
    then: [
      { request: call({}, { label: 'neither url nor html' }), expect: refused(['^bad_request: ', NOTHING_CHARGED]) },
      {
        request: call({ html: BLUE_PAGE, selector: '#none', viewport: { width: 100, height: 50 } }, { label: 'selector matches nothing' }),
        expect: refused(['^selector_not_found: ', NOTHING_CHARGED]),
      },
    ],
  },
  {
    id: 'mcp-ref-text-part',
    must: 'The MCP server MUST return with a successful tool call, besides the image, a text part with size, format, banner cleanup and credits.',
    rules: ['mcp/results', '2.2/exact-frame'],
    needs: ['mcp'],
    request: call({ html: BLUE_PAGE, viewport: { width: 320, height: 200 } }),
    expect: captured(BLUE, { image: { type: 'png', width: 320, height: 200 }, text: ['PNG 320x200, [\\d,]+ bytes', 'Banner cleanup: \\w+', CREDITS] }),
  },
  {
    id: 'mcp-ref-size-budget',
    must: `The MCP server MUST re-encode or downscale an image over ${REF_BUDGET.toLocaleString('en-US')} bytes to fit, and say so in the text part.`,
    rules: ['mcp/size-budget'],
    needs: ['mcp'],
    heavy: true,
    timeoutMs: 120_000,
    request: call({ html: NOISE_PAGE, viewport: { width: 1280, height: 720 } }),
    expect: captured(undefined, {
      image: { type: 'any', maxBytes: REF_BUDGET },
      text: ['The capture \\(PNG 1280x720, [\\d,]+ bytes\\) was over .* re-encoded as (JPEG|WEBP) quality \\d+'],
    }),
  },
  {
    id: 'mcp-ref-billing',
    must: 'The MCP server MUST charge one credit for a successful capture and nothing for a failed one, as over REST.',
    rules: ['1/billing-success', '1/billing-failed', '8/cost', 'mcp/tool'],
    needs: ['mcp', 'mcpFreshKey'],
    request: call({ html: BLUE_PAGE, viewport: { width: 100, height: 50 } }, { auth: 'mcp-fresh', label: 'first success' }),
    expect: captured(BLUE, { text: ['Credits: 1 charged'] }),
    then: [
      { request: call({ html: '<p>x</p>', viewport: { width: 0, height: 1 } }, { auth: 'mcp-fresh', label: 'invalid request' }), expect: refused() },
      {
        request: call({ html: BLUE_PAGE, selector: '#none', viewport: { width: 100, height: 50 } }, { auth: 'mcp-fresh', label: 'selector matches nothing' }),
        expect: refused(),
      },
      {
        request: call({ html: BLUE_PAGE, viewport: { width: 100, height: 50 } }, { auth: 'mcp-fresh', label: 'second success' }),
        expect: captured(BLUE, {
          text: ['Credits: 1 charged'],
          compare: [{ read: { text: CREDITS }, fromStep: 0, plus: -1, label: 'two failures between two successes cost nothing' }],
        }),
      },
    ],
  },
  {
    id: 'mcp-ref-cache-free',
    must: 'The MCP server MUST charge nothing for a cached url result, as over REST.',
    rules: ['1/billing-cached', '8/cost', 'D3/cache-header'],
    needs: ['mcp', 'fixtures', 'mcpFreshKey'],
    request: call({ url: { $fixtureUrl: '/pages/plain.html?mcp-cache' }, viewport: { width: 100, height: 50 } }, { auth: 'mcp-fresh', label: 'first call' }),
    expect: captured(GREEN, { text: ['Credits: 1 charged'] }),
    then: [
      {
        request: call(
          { url: { $fixtureUrl: '/pages/plain.html?mcp-cache' }, viewport: { width: 100, height: 50 } },
          { auth: 'mcp-fresh', label: 'second call' },
        ),
        expect: captured(GREEN, {
          text: ['Credits: 0 charged', 'cache hit'],
          compare: [{ read: { text: CREDITS }, fromStep: 0, plus: 0, label: 'balance unchanged by the hit' }],
        }),
      },
    ],
  },
];
