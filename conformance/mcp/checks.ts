// The MCP section of the conformance suite (spec §4.2, §5; issue 7).
//
// Interface (for whoever wires this into the suite):
//   MCP_CHECKS: readonly McpCheck[]      the checks as data: id, one MUST sentence, rule ids
//                                         (conformance/rules.ts, plus MCP_RULES below), profile,
//                                         needs, and a run() that returns the list of Check
//                                         (model.ts) it made. A check that cannot run here throws
//                                         Skip(reason).
//   runMcpChecks(env, opts?)             runs them in order and returns one McpVerdict per check:
//                                         status 'pass' | 'fail' | 'skip', reason, checks, ms.
//   McpEnv = { mcpUrl, apiKey, fixturesUrl?, freshKey? }
//     mcpUrl      the implementation's MCP endpoint (--mcp-url)
//     apiKey      a valid key
//     fixturesUrl origin of the suite's fixture server as the implementation reaches it
//                 (conformance/fixture-server.ts; it serves /pages/plain.html). Without it the
//                 url-mode checks are skipped.
//     freshKey    a key no other case uses while these run (billing checks read its balance
//                 from the tool's text); without it the billing checks are skipped.
//   MCP_RULES: the reference server's MCP decisions (issue 7) as coverage-manifest rules, for
//              conformance/rules.ts to include.
// Profiles: `core` checks only what spec §4.2 / §5 state (a Bearer-authenticated MCP endpoint with
// a tool that captures a page or HTML). The tool's name, parameters and results are "not shown"
// in the spec, so core finds the tool by name/description and drives it with the REST body's
// field names (§2.1) when its input schema declares them (skip otherwise). `reference` checks the
// reference server's decisions: tool `take_screenshot` with the REST schema, 401 in the REST
// shape, errors as isError "<code>: <message>", the 750,000-byte image budget, billing.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Check, Profile } from '../model.ts';
import type { Rule } from '../rules.ts';
import { evaluateProbe } from '../probes.ts';
import { findScreenshotTool, hasParam, imagesOf, INITIALIZE, openClient, rawExchange, snippet, textOf, type ToolImage } from './client.ts';

export interface McpEnv {
  mcpUrl: string;
  apiKey: string;
  fixturesUrl?: string;
  freshKey?: string;
}

export type McpNeed = 'fixtures' | 'freshKey';

export interface McpCheck {
  id: string;
  must: string;
  rules: string[];
  profile: Profile;
  needs?: McpNeed[];
  /** Large images or several renders: budget for it. */
  heavy?: boolean;
  run(t: McpContext): Promise<Check[]>;
}

export interface McpVerdict {
  id: string;
  must: string;
  rules: string[];
  profile: Profile;
  status: 'pass' | 'fail' | 'skip';
  reason?: string;
  checks: Check[];
  durationMs: number;
}

export class Skip extends Error {}

export const MCP_RULES: readonly Rule[] = [
  { id: 'mcp/tool', source: 'design', quote: 'One tool, `take_screenshot`, whose input schema is generated from the same JSON Schema as the REST body: same validation, same defaults, same billing, same egress guard, same cleanup.' },
  { id: 'mcp/auth', source: 'design', quote: 'Streamable HTTP at `/mcp` (stateless), Bearer auth with the same keys as REST (401 otherwise).' },
  { id: 'mcp/results', source: 'design', quote: 'Success: image content (base64 data and mimeType) plus a short text part. Failure: a tool result with `isError: true` carrying the error code and message, never a silent empty result.' },
  { id: 'mcp/size-budget', source: 'design', quote: 'Images over 750,000 bytes (or 8000 px on a side) are re-encoded or downscaled to fit, and the text part says what was done; REST is unchanged.' },
];

const REF_BUDGET = 750_000;
const BLUE = [32, 64, 192] as const;
const GREEN = [32, 160, 64] as const; // fixtures/pages/plain.html
const BLUE_PAGE = '<!doctype html><html><body style="margin:0;background:#2040c0"></body></html>';
/** Seeded colour noise over the viewport: several MB as PNG, far over the reference budget. */
const NOISE_PAGE = `<!doctype html><html><body style="margin:0;overflow:hidden"><canvas id="c"></canvas><script>
const c = document.getElementById('c'); c.width = innerWidth; c.height = innerHeight;
const g = c.getContext('2d'); const img = g.createImageData(c.width, c.height); let s = 2463534242;
for (let i = 0; i < img.data.length; i++) { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; img.data[i] = (i & 3) === 3 ? 255 : s & 255; }
g.putImageData(img, 0, 0);
</script></body></html>`;
const REST_FIELDS = ['url', 'html', 'fullPage', 'format', 'quality', 'viewport', 'selector', 'omitBackground', 'waitUntil', 'waitForSelector', 'blockCookieBanners', 'hideSelectors', 'blockAds'];

/** Per-run state: one SDK session per key, opened on first use. */
export class McpContext {
  private clients = new Map<string, Promise<Client>>();
  constructor(readonly env: McpEnv) {}
  client(key = this.env.apiKey): Promise<Client> {
    let c = this.clients.get(key);
    if (!c) this.clients.set(key, (c = openClient(this.env.mcpUrl, key)));
    return c;
  }
  async tool(key?: string): Promise<Tool> {
    const { tools } = await (await this.client(key)).listTools();
    const tool = findScreenshotTool(tools);
    if (!tool) throw new Error(`no screenshot tool among ${JSON.stringify(tools.map((x) => x.name))}`);
    return tool;
  }
  async call(args: Record<string, unknown>, key?: string): Promise<CallToolResult> {
    const tool = await this.tool(key);
    return (await (await this.client(key)).callTool({ name: tool.name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
  }
  async close(): Promise<void> {
    for (const c of this.clients.values()) await c.then((x) => x.close()).catch(() => {});
  }
}

const check = (name: string, pass: boolean, detail: string): Check => ({ name, pass, detail });
const wrongKey = () => `conformance-invalid-${Math.random().toString(36).slice(2)}-key`;

async function needParams(t: McpContext, ...names: string[]): Promise<Tool> {
  const tool = await t.tool();
  const missing = names.filter((n) => !hasParam(tool, n));
  if (missing.length) throw new Skip(`the tool ${tool.name} declares no ${missing.join(', ')} parameter; the suite drives it with the REST body's field names (spec §2.1)`);
  return tool;
}

/** Image evidence: exactly one decodable image whose mimeType matches its bytes, with a colour probe. */
function imageChecks(r: CallToolResult, imgs: ToolImage[], rgb?: readonly [number, number, number]): Check[] {
  const out = [check('not an error result', r.isError !== true, r.isError ? `isError: ${snippet(textOf(r))}` : 'isError absent or false')];
  out.push(check('one image content block', imgs.length === 1, `${imgs.length} image block(s); content types ${JSON.stringify(r.content.map((c) => c.type))}`));
  const img = imgs[0];
  if (!img) return out;
  out.push(check('image bytes are PNG, JPEG or WebP matching mimeType', !!img.sniffed && img.mimeType === `image/${img.sniffed}`, `mimeType ${img.mimeType}, bytes look like ${img.sniffed ?? 'no known image'}`));
  if (img.decoded && rgb) {
    const { width: w, height: h } = img.decoded;
    out.push(evaluateProbe(img.decoded, { kind: 'color', region: { x: Math.floor(w / 4), y: Math.floor(h / 4), w: Math.max(1, Math.floor(w / 2)), h: Math.max(1, Math.floor(h / 2)) }, rgb: [...rgb], tolerance: 24, label: 'page colour in the middle half' }));
  }
  return out;
}

/** An error result: isError true, no image, a non-empty text (a JSON-RPC error also counts). */
async function errorChecks(t: McpContext, args: Record<string, unknown>): Promise<{ checks: Check[]; text: string }> {
  let r: CallToolResult;
  try {
    r = await t.call(args);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { checks: [check('refused with an error', msg.length > 0, `JSON-RPC error: ${snippet(msg)}`)], text: msg };
  }
  const text = textOf(r);
  return {
    text,
    checks: [
      check('isError: true', r.isError === true, `isError ${String(r.isError)}`),
      check('no image', !r.content.some((c) => c.type === 'image'), `content types ${JSON.stringify(r.content.map((c) => c.type))}`),
      check('a non-empty message', text.trim().length > 0, snippet(text) || '(empty)'),
    ],
  };
}

function credits(text: string): { charged: number; remaining: number } | null {
  const m = /Credits: (\d+) charged, (\d+) remaining/.exec(text);
  return m ? { charged: Number(m[1]), remaining: Number(m[2]) } : null;
}

export const MCP_CHECKS: readonly McpCheck[] = [
  {
    id: 'mcp-core-auth-required',
    must: 'The MCP endpoint MUST refuse a request without a valid Bearer key (no tool access).',
    rules: ['4.2/mcp', '5/bearer'],
    profile: 'core',
    async run(t) {
      const out: Check[] = [];
      for (const [label, headers] of [['no Authorization', {}], ['unknown key', { authorization: `Bearer ${wrongKey()}` }]] as const) {
        const res = await rawExchange(t.env.mcpUrl, 'POST', headers, INITIALIZE);
        out.push(check(`${label}: refused with 4xx`, res.status >= 400 && res.status < 500, `HTTP ${res.status}: ${snippet(res.text)}`));
      }
      // ...and the same request with the key is served, so the refusals were about the key.
      const ok = await rawExchange(t.env.mcpUrl, 'POST', { authorization: `Bearer ${t.env.apiKey}` }, INITIALIZE);
      out.push(check('valid key: initialize is served (2xx)', ok.status >= 200 && ok.status < 300, `HTTP ${ok.status}: ${snippet(ok.text)}`));
      return out;
    },
  },
  {
    id: 'mcp-core-tool-listed',
    must: 'With a valid Bearer key the MCP server MUST initialize and list a screenshot tool.',
    rules: ['4.2/mcp', '1/mcp', '5/bearer'],
    profile: 'core',
    async run(t) {
      const client = await t.client();
      const caps = client.getServerCapabilities();
      const { tools } = await client.listTools();
      const tool = findScreenshotTool(tools);
      return [
        check('initialize succeeded with the tools capability', !!caps?.tools, `capabilities ${JSON.stringify(caps ?? null)}`),
        check('a screenshot tool is listed', !!tool, `tools ${JSON.stringify(tools.map((x) => x.name))}`),
        check('its input schema is an object schema', tool?.inputSchema.type === 'object', `inputSchema.type ${String(tool?.inputSchema.type)}`),
      ];
    },
  },
  {
    id: 'mcp-core-capture-html',
    must: 'The MCP screenshot tool MUST capture supplied HTML and return it as image content.',
    rules: ['4.2/mcp', '1/mcp', '2.1/html'],
    profile: 'core',
    async run(t) {
      await needParams(t, 'html');
      const r = await t.call({ html: BLUE_PAGE });
      return imageChecks(r, await imagesOf(r), BLUE);
    },
  },
  {
    id: 'mcp-core-capture-url',
    must: 'The MCP screenshot tool MUST capture a page by URL and return it as image content.',
    rules: ['4.2/mcp', '1/mcp', '2.1/url'],
    profile: 'core',
    needs: ['fixtures'],
    async run(t) {
      await needParams(t, 'url');
      const r = await t.call({ url: `${t.env.fixturesUrl}/pages/plain.html` });
      return imageChecks(r, await imagesOf(r), GREEN);
    },
  },
  {
    id: 'mcp-core-invalid-request',
    must: 'A tool call with neither url nor html MUST be answered with an error, never with an image or an empty success.',
    rules: ['4.2/mcp', '2.1/rule-1'],
    profile: 'core',
    async run(t) {
      await needParams(t, 'html', 'url');
      return (await errorChecks(t, {})).checks;
    },
  },
  {
    id: 'mcp-ref-unauthorized',
    must: 'A missing, malformed or unknown key on /mcp MUST get 401 with WWW-Authenticate: Bearer and a JSON-RPC error body (what MCP clients show) whose message says so and whose data.error is "unauthorized".',
    rules: ['mcp/auth', 'D3/unauthorized', '5/bearer'],
    profile: 'reference',
    async run(t) {
      const out: Check[] = [];
      for (const [label, headers] of [['no Authorization', {}], ['unknown key', { authorization: `Bearer ${wrongKey()}` }], ['Basic scheme', { authorization: 'Basic Zm9vOmJhcg==' }]] as const) {
        const res = await rawExchange(t.env.mcpUrl, 'POST', headers, INITIALIZE);
        const body = res.json() as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown; data?: { error?: unknown } } } | undefined;
        out.push(check(`${label}: 401`, res.status === 401, `HTTP ${res.status}`));
        out.push(check(`${label}: WWW-Authenticate Bearer`, /^Bearer\b/i.test(res.headers.get('www-authenticate') ?? ''), `www-authenticate: ${res.headers.get('www-authenticate') ?? '(none)'}`));
        // The MCP 401 is a JSON-RPC error (the Python SDK shows error.message; REST keeps {error, message}).
        const rpc = body?.jsonrpc === '2.0' && typeof body.error?.code === 'number' && typeof body.error.message === 'string';
        out.push(check(`${label}: JSON-RPC error, data.error "unauthorized"`, rpc && body?.error?.data?.error === 'unauthorized', snippet(res.text)));
        out.push(check(`${label}: the message says the API key is missing or invalid`, rpc && /API key is (missing|invalid)/.test(String(body?.error?.message)), snippet(res.text)));
      }
      return out;
    },
  },
  {
    id: 'mcp-ref-stateless',
    must: 'The stateless MCP endpoint MUST answer GET and DELETE with 405 method_not_allowed and Allow: POST.',
    rules: ['mcp/auth', 'D3/method-not-allowed'],
    profile: 'reference',
    async run(t) {
      const out: Check[] = [];
      for (const method of ['GET', 'DELETE']) {
        const res = await rawExchange(t.env.mcpUrl, method, { authorization: `Bearer ${t.env.apiKey}`, accept: 'text/event-stream' });
        const body = res.json() as { error?: unknown } | undefined;
        out.push(check(`${method}: 405 method_not_allowed`, res.status === 405 && body?.error === 'method_not_allowed', `HTTP ${res.status}: ${snippet(res.text)}`));
        out.push(check(`${method}: Allow: POST`, res.headers.get('allow') === 'POST', `allow: ${res.headers.get('allow') ?? '(none)'}`));
      }
      return out;
    },
  },
  {
    id: 'mcp-ref-tool-schema',
    must: 'The only tool MUST be take_screenshot, whose input schema is the REST body schema with its defaults.',
    rules: ['mcp/tool', '2.1/format', '2.1/waitUntil', '2.1/blockCookieBanners'],
    profile: 'reference',
    async run(t) {
      const { tools } = await (await t.client()).listTools();
      const props = (tools[0]?.inputSchema.properties ?? {}) as Record<string, { default?: unknown }>;
      const missing = REST_FIELDS.filter((f) => !(f in props));
      const defaults = { fullPage: false, format: 'png', omitBackground: false, waitUntil: 'networkidle2', blockCookieBanners: true, blockAds: false };
      const wrong = Object.entries(defaults).filter(([k, v]) => props[k]?.default !== v).map(([k]) => k);
      return [
        check('exactly one tool, take_screenshot', tools.length === 1 && tools[0]!.name === 'take_screenshot', `tools ${JSON.stringify(tools.map((x) => x.name))}`),
        check('every REST body field is a parameter', missing.length === 0, missing.length ? `missing ${missing.join(', ')}` : `${REST_FIELDS.length} fields`),
        check('the REST defaults are declared', wrong.length === 0, wrong.length ? `wrong or missing default for ${wrong.join(', ')}` : JSON.stringify(defaults)),
      ];
    },
  },
  {
    id: 'mcp-ref-errors',
    must: 'A failed tool call MUST be isError with "<code>: <message>": the REST code and the field-naming message, and nothing billed.',
    rules: ['mcp/results', '2.1/rule-3', '7/row-4', '7/row-1', '7/row-5'],
    profile: 'reference',
    async run(t) {
      const out: Check[] = [];
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['viewport.width 0', { html: '<p>x</p>', viewport: { width: 0, height: 100 } }, /^bad_request: .*viewport\.width/],
        ['neither url nor html', {}, /^bad_request: /],
        ['selector matches nothing', { html: BLUE_PAGE, selector: '#none', viewport: { width: 100, height: 50 } }, /^selector_not_found: /],
      ];
      for (const [label, args, pattern] of cases) {
        const { checks, text } = await errorChecks(t, args);
        out.push(...checks.map((c) => ({ ...c, name: `${label}: ${c.name}` })));
        out.push(check(`${label}: first line matches ${pattern}`, pattern.test(text), snippet(text)));
        out.push(check(`${label}: says nothing was charged`, /No credit was charged/.test(text), snippet(text)));
      }
      return out;
    },
  },
  {
    id: 'mcp-ref-text-part',
    must: 'A successful tool call MUST carry, besides the image, a text part with size, format, banner cleanup and credits.',
    rules: ['mcp/results', '2.2/exact-frame'],
    profile: 'reference',
    async run(t) {
      const r = await t.call({ html: BLUE_PAGE, viewport: { width: 320, height: 200 } });
      const imgs = await imagesOf(r);
      const text = textOf(r);
      return [
        ...imageChecks(r, imgs, BLUE),
        check('image is exactly the viewport', imgs[0]?.decoded?.width === 320 && imgs[0]?.decoded?.height === 200, `${imgs[0]?.decoded?.width}x${imgs[0]?.decoded?.height}`),
        check('text names format and size', /PNG 320x200, [\d,]+ bytes/.test(text), snippet(text)),
        check('text says what banner cleanup did', /Banner cleanup: \w+/.test(text), snippet(text)),
        check('text states credits', credits(text) !== null, snippet(text)),
      ];
    },
  },
  {
    id: 'mcp-ref-size-budget',
    must: `An image over ${REF_BUDGET.toLocaleString('en-US')} bytes MUST be re-encoded or downscaled to fit, and the text part MUST say so.`,
    rules: ['mcp/size-budget'],
    profile: 'reference',
    heavy: true,
    async run(t) {
      const r = await t.call({ html: NOISE_PAGE, viewport: { width: 1280, height: 720 } });
      const imgs = await imagesOf(r);
      const text = textOf(r);
      return [
        ...imageChecks(r, imgs),
        check(`image data at most ${REF_BUDGET} bytes`, !!imgs[0] && imgs[0].bytes.length <= REF_BUDGET, `${imgs[0]?.bytes.length ?? 0} bytes`),
        check('text gives the original and what was returned', /The capture \(PNG 1280x720, [\d,]+ bytes\) was over .* re-encoded as (JPEG|WEBP) quality \d+/.test(text), snippet(text, 400)),
      ];
    },
  },
  {
    id: 'mcp-ref-billing',
    must: 'Over MCP a successful capture MUST cost one credit and a failed one nothing, as over REST.',
    rules: ['1/billing-success', '1/billing-failed', '8/cost', 'mcp/tool'],
    profile: 'reference',
    needs: ['freshKey'],
    async run(t) {
      const key = t.env.freshKey!;
      const ok = { html: BLUE_PAGE, viewport: { width: 100, height: 50 } };
      const first = credits(textOf(await t.call(ok, key)));
      const bad = await t.call({ html: '<p>x</p>', viewport: { width: 0, height: 1 } }, key);
      const failed = await t.call({ html: BLUE_PAGE, selector: '#none', viewport: { width: 100, height: 50 } }, key);
      const second = credits(textOf(await t.call(ok, key)));
      return [
        check('a success is charged 1', first?.charged === 1 && second?.charged === 1, `charged ${first?.charged} and ${second?.charged}`),
        check('the failures were errors', bad.isError === true && failed.isError === true, `isError ${bad.isError} / ${failed.isError}`),
        check('two failures between two successes cost nothing', !!first && !!second && second.remaining === first.remaining - 1, `remaining ${first?.remaining} then ${second?.remaining}`),
      ];
    },
  },
  {
    id: 'mcp-ref-cache-free',
    must: 'Over MCP a cached url result MUST cost nothing, as over REST.',
    rules: ['1/billing-cached', '8/cost', 'D3/cache-header'],
    profile: 'reference',
    needs: ['fixtures', 'freshKey'],
    async run(t) {
      const key = t.env.freshKey!;
      const args = { url: `${t.env.fixturesUrl}/pages/plain.html?mcp-cache=${Date.now()}`, viewport: { width: 100, height: 50 } };
      const a = await t.call(args, key);
      const b = await t.call(args, key);
      const first = credits(textOf(a));
      const second = credits(textOf(b));
      return [
        check('first call charged 1', first?.charged === 1, snippet(textOf(a))),
        check('second call is a cache hit charged 0', second?.charged === 0 && /cache hit/.test(textOf(b)), snippet(textOf(b))),
        check('balance unchanged by the hit', !!first && !!second && second.remaining === first.remaining, `remaining ${first?.remaining} then ${second?.remaining}`),
      ];
    },
  },
];

/** Runs the checks (all, or the given profiles / ids) in order. Never throws for a failing implementation. */
export async function runMcpChecks(env: McpEnv, opts: { profiles?: Profile[]; ids?: string[] } = {}): Promise<McpVerdict[]> {
  const t = new McpContext(env);
  const verdicts: McpVerdict[] = [];
  try {
    for (const c of MCP_CHECKS) {
      if (opts.profiles && !opts.profiles.includes(c.profile)) continue;
      if (opts.ids && !opts.ids.includes(c.id)) continue;
      const base = { id: c.id, must: c.must, rules: c.rules, profile: c.profile };
      const unmet = (c.needs ?? []).find((n) => (n === 'fixtures' ? !env.fixturesUrl : !env.freshKey));
      if (unmet) {
        verdicts.push({ ...base, status: 'skip', reason: unmet === 'fixtures' ? 'needs the fixture server (fixturesUrl)' : 'needs a key of its own (freshKey)', checks: [], durationMs: 0 });
        continue;
      }
      const t0 = performance.now();
      let checks: Check[] = [];
      let skip: string | undefined;
      try {
        checks = await c.run(t);
      } catch (e) {
        if (e instanceof Skip) skip = e.message;
        else checks.push(check('exchange', false, `failed: ${e instanceof Error ? e.message : String(e)}`));
      }
      const durationMs = Math.round(performance.now() - t0);
      if (skip !== undefined) verdicts.push({ ...base, status: 'skip', reason: skip, checks, durationMs });
      else verdicts.push({ ...base, status: checks.length > 0 && checks.every((k) => k.pass) ? 'pass' : 'fail', checks, durationMs });
    }
  } finally {
    await t.close();
  }
  return verdicts;
}
