// The data model of the conformance suite: ONE case model for REST and MCP cases (DESIGN §6). A
// case is data: an id, one MUST sentence, the rules it checks (rules.ts), the request and the
// expectation, and optionally further steps. The runner (execute.ts, verdict.ts) is generic and
// knows nothing about individual cases. `case.schema.json`, the same model as a JSON Schema for
// runners in any language (`screenshot-conformance --export DIR` writes every case as a CaseFile),
// is generated from this file (scripts/case-schema.ts; a self-test fails when it is stale).

/**
 * `core`: only what the spec states. `reference`: the reference server's decisions (DESIGN §3).
 * `security`: the threat model. `extensions`: request fields beyond the spec (§9 lets an
 * implementation ignore them); each such case names its fields and runs only against an
 * implementation whose OpenAPI document declares them (see `Case.fields`). `properties`: requests
 * drawn from the request schema with fast-check, each judged by an oracle computed from the spec
 * (properties/); not cases but reported as cases, one per property.
 */
export type Profile = 'core' | 'reference' | 'security' | 'extensions' | 'properties';
export const PROFILES: readonly Profile[] = ['core', 'reference', 'security', 'extensions', 'properties'];

/** What a case needs from the environment; cases whose needs are not met are skipped, with the reason. */
export type Need =
  | 'fixtures' // the suite's fixture server, reachable by the implementation (url-mode cases)
  | 'secondOrigin' // a second fixture origin (cross-origin iframes)
  | 'canary' // canary listeners on the implementation's loopback (same host as the suite)
  | 'freshKey' // a never-used key with the spec's free allowance (billing cases)
  | 'mcp' // the MCP endpoint URL
  | 'mcpFreshKey' // a never-used key for the MCP billing checks
  | 'isolatedNetwork'; // the implementation runs in a network namespace: off-machine addresses are safe to send

/**
 * Values in a request body (or tool arguments) may be directives that the runner resolves before
 * sending (resolve.ts):
 * - { $fixture: "name" }               the text of fixtures/pages/<name>.html (fonts inlined)
 * - { $consentFixture: "file" }        the text of fixtures/consent/<file> (fonts inlined)
 * - { $fixtureUrl: "/path" }           absolute URL of a path on the fixture server (first origin)
 * - { $fixtureUrl2: "/path" }          the same on the second fixture origin
 * - { $canaryUrl: "/path", spelling? } a URL that reaches a canary listener on loopback
 * - { $html: { bytes, fill? } }        an HTML document of exactly `bytes` UTF-8 bytes
 * - { $repeat: value, times }          an array of `times` copies of value
 * - { $string: { char, length } }      a string of `length` copies of char
 * - { $template: "...{{canary}}...{{fixtures}}...{{canary:/p}}...{{nonce}}" } origins substituted
 * Every execution of a case has a random nonce. Fixture URLs carry it (`run=<nonce>` in the query)
 * and fixture pages end with a comment holding it, so that no cache can answer a case with the
 * result of an earlier run; all steps of one execution share it (cache cases rely on that).
 */
export type Directive =
  | { $fixture: string }
  | { $consentFixture: string }
  | { $fixtureUrl: string }
  | { $fixtureUrl2: string }
  | { $canaryUrl: string; spelling?: CanarySpelling }
  | { $html: { bytes: number; fill?: string } }
  | { $repeat: unknown; times: number }
  | { $string: { char: string; length: number } }
  | { $template: string };

/** Ways of writing the canary's loopback address (threat model: spellings of one address). */
export type CanarySpelling = 'ipv4' | 'localhost' | 'decimal' | 'hex' | 'octal' | 'short' | 'ipv6' | 'mapped' | 'trailing-dot' | 'userinfo' | 'upper-scheme';

/**
 * Which key a request carries. 'valid': a key from --api-key; 'none': no Authorization;
 * 'invalid': a wrong key; 'malformed': a Basic header; 'fresh': the --fresh-key; 'mcp-fresh': the
 * --mcp-fresh-key. Cases using the same fresh key never run at the same time.
 */
export type Auth = 'valid' | 'none' | 'invalid' | 'malformed' | 'fresh' | 'mcp-fresh';

/** A bare HTTP exchange with the screenshot endpoint (default) or the MCP endpoint. */
export interface HttpRequestSpec {
  /** 'api': {base_url} (default); 'mcp': the MCP endpoint (--mcp-url), path ignored. */
  endpoint?: 'api' | 'mcp';
  method?: string; // default POST
  path?: string; // default /v1/screenshot
  auth?: Auth;
  headers?: Record<string, string>;
  /** JSON body (with directives). */
  body?: unknown;
  /** Sent verbatim instead of `body` (invalid JSON and the like). */
  rawBody?: string;
  /** A short name for this request in check names (multi-step cases). */
  label?: string;
}

/**
 * An MCP exchange through an MCP client session on the MCP endpoint (Streamable HTTP; the session
 * is initialized once per key). 'list-tools' observes `{capabilities, tools, tool}` as JSON, where
 * `tool` is the screenshot tool an agent would pick (name containing "screenshot", else name or
 * description containing "screenshot" or "capture"). 'call-tool' calls that tool.
 */
export interface McpRequestSpec {
  mcp: 'list-tools' | 'call-tool';
  auth?: 'valid' | 'mcp-fresh';
  /** Tool arguments (with directives). */
  arguments?: Record<string, unknown>;
  /**
   * The tool must declare these parameters or the case is skipped: spec §4.2 does not show the
   * tool's parameters, so the suite drives it with the REST body's field names (§2.1) only when
   * its input schema declares them. Default: the names of `arguments`.
   */
  params?: string[];
  label?: string;
}

export type RequestSpec = HttpRequestSpec | McpRequestSpec;

export type HeaderExpectation =
  | string // exact value (case-insensitive for the header name, exact for the value)
  | { matches: string } // regular expression (source, case-insensitive), tested against the value
  | { present: boolean }
  | { integer: true; min?: number; max?: number };

export interface Region {
  /**
   * Pixel rectangle of the decoded image. Negative x/y count from the right/bottom edge. With
   * unit 'fraction', x, y, w and h are fractions of the image's width and height (for images
   * whose size the case does not fix).
   */
  x: number;
  y: number;
  w: number;
  h: number;
  unit?: 'px' | 'fraction';
}

export type Probe =
  /** At least `fraction` (default 0.98) of the region's pixels are within `tolerance` (default 24, per channel) of rgb (and alpha, if given). */
  | { kind: 'color'; region: Region; rgb: [number, number, number]; alpha?: number; tolerance?: number; fraction?: number; label?: string }
  /** At most `fraction` (default 0.02) of the region's pixels are within `tolerance` of rgb: the colour is gone. */
  | { kind: 'absent'; region: Region; rgb: [number, number, number]; tolerance?: number; fraction?: number; label?: string }
  /** Every pixel of the region has alpha within [min, max]. */
  | { kind: 'alpha'; region: Region; min: number; max: number; label?: string };

export interface GoldenSpec {
  /** What this golden guards beyond the case's probes, in one sentence (engine-neutral: see RUNNING.md "Goldens"). */
  guards: string;
  /** Golden file name in golden/ (default: <case id>.png). */
  name?: string;
  /** pixelmatch per-pixel threshold (0..1). */
  threshold: number;
  /** Two-part budget of differing pixels: the smaller of the two wins. */
  maxDiffPixels: number;
  maxDiffPixelRatio: number;
  /**
   * Regions left out of the comparison (image pixels): text, whose rasterisation depends on how
   * the browser was launched (font hinting, anti-aliasing), not on anything the spec states.
   */
  mask?: Region[];
}

export interface ImageExpectation {
  /** 'any': PNG, JPEG or WebP whose content-type matches its bytes (MCP results, whose format the spec does not fix). */
  type: 'png' | 'jpeg' | 'webp' | 'any';
  width?: number;
  height?: number;
  /** Lower bounds when the exact size is not fixed by the spec (fullPage heights). */
  minWidth?: number;
  minHeight?: number;
  /** The decoded image must (true) or must not (false) carry an alpha channel. */
  hasAlpha?: boolean;
  /** Upper bound on the encoded size in bytes. */
  maxBytes?: number;
}

/** A relation between this case's response and a second request's response (the effect of an option). */
export interface Relation {
  request: HttpRequestSpec;
  /** The second response must also satisfy these (status 200 and an image, typically). */
  expect?: { status: StatusExpectation; image?: ImageExpectation };
  /** bytes-less: this body is smaller than the other's; pixels-differ: more than `minDiffRatio` of pixels differ (pixelmatch, threshold 0.1); pixels-similar: at most `maxDiffRatio` differ. */
  relation: 'bytes-less' | 'bytes-greater' | 'pixels-differ' | 'pixels-similar';
  minDiffRatio?: number;
  maxDiffRatio?: number;
}

/** An assertion on the JSON the exchange observed (a JSON body, or an MCP result; see McpRequestSpec). */
export interface JsonExpectation {
  /** Property names and array indexes from the root. */
  path: Array<string | number>;
  equals?: unknown;
  /** Regular expression (source, case-sensitive) the string value must match. */
  matches?: string;
  present?: boolean;
  type?: 'string' | 'number' | 'boolean' | 'object' | 'array';
  /** The array's length. */
  length?: number;
  label?: string;
}

/** Where a number is read from, in this response or an earlier step's. */
export type Reader =
  | { header: string }
  /** The first capture group of this regular expression (source, case-sensitive) over the text. */
  | { text: string };

/** The number read here equals the number read the same way in step `fromStep` (0 = the first request) plus `plus`. */
export interface Comparison {
  read: Reader;
  fromStep: number;
  plus: number;
  label?: string;
}

/** The result of an MCP tool call. */
export interface ToolExpectation {
  /**
   * true: refused: isError with a non-empty text and no image, or a JSON-RPC error.
   * false: not an error result.
   */
  isError: boolean;
  /** The number of image content blocks. */
  images?: number;
}

/** Exact status, a list of acceptable statuses, or a class such as "4xx". MCP tool calls and tool lists observe 200. */
export type StatusExpectation = number | number[] | '2xx' | '4xx' | '5xx';

export interface Expectation {
  status: StatusExpectation;
  /** The JSON error body's `error` code (failures). Every failure is also checked for `{error, message}` strings. */
  error?: string;
  /** Do not check the failure body shape (for non-endpoint exchanges such as MCP, whose errors the spec does not shape). */
  anyFailureBody?: boolean;
  /** Regular expression (source, case-insensitive) the error message must match (it names the field). */
  message?: string;
  /** The error message must not contain this text (no echo of the request body). */
  messageExcludes?: string;
  headers?: Record<string, HeaderExpectation>;
  /** The image: for HTTP the body, for an MCP tool call its first image block (content-type: its mimeType). */
  image?: ImageExpectation;
  probes?: Probe[];
  golden?: GoldenSpec;
  /** Upper bound on the response time (ms), e.g. the 20 s budget plus slack. */
  maxDurationMs?: number;
  minDurationMs?: number;
  /** Number of connections canary listeners may see during the case (always 0). */
  canaryConnections?: number;
  relation?: Relation;
  json?: JsonExpectation[];
  /** Regular expressions (source, case-sensitive) the observed text must match: an MCP result's text blocks, or a JSON-RPC error's message. */
  text?: string[];
  tool?: ToolExpectation;
  compare?: Comparison[];
}

/** A case as written in a file of cases/: without its profile, which the file it lives in gives (cases/index.ts). */
export type CaseSpec = Omit<Case, 'profile'>;

export interface Step {
  request: RequestSpec;
  expect: Expectation;
}

export interface Case {
  id: string;
  /** One sentence, "The service MUST ...". */
  must: string;
  /** Rule ids from the coverage manifest (rules.ts); the first is the clause this case checks. */
  rules: string[];
  /** Which profile the case belongs to: the list it is written in (cases/index.ts), or its data's (generated cases, exports). */
  profile: Profile;
  /**
   * Names that select the case for a purpose beyond its profile: a deliberately broken
   * implementation (mutants/mutants.ts) runs against the cases tagged with its id, so that a renamed
   * case keeps its mutants.
   */
  tags?: string[];
  needs?: Need[];
  /**
   * Request fields beyond the spec that this case sends (`extensions` profile). The case runs only
   * when the implementation's OpenAPI document (GET {base_url}/openapi.json) declares every one of
   * them as a property of the screenshot request body, and is skipped otherwise, with the reason.
   */
  fields?: string[];
  /** Heavy cases (large images, long waits) are few and marked so that runs can budget for them. */
  heavy?: boolean;
  /** Per-case time limit for the runner (ms); default 60 s. */
  timeoutMs?: number;
  request: RequestSpec;
  expect: Expectation;
  /** Further requests in order, for multi-step cases (billing, caching, MCP exchanges). */
  then?: Step[];
}

/** One check of a verdict: what was checked, whether it held, and what was seen. */
export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export const isMcpRequest = (r: RequestSpec): r is McpRequestSpec => 'mcp' in r;

/** Every request of a case: its steps and the second requests of relations. */
export function requestsOf(c: Case): RequestSpec[] {
  const steps = [{ request: c.request, expect: c.expect }, ...(c.then ?? [])];
  return steps.flatMap((s) => [s.request, ...(s.expect.relation ? [s.expect.relation.request] : [])]);
}

/** A rule a case checks, quoted from its source (rules.ts), as exported case files carry it. */
export interface Clause {
  id: string;
  source: 'spec' | 'design' | 'threat-model' | 'extension';
  quote: string;
}

/** One case as an exported file (`--export DIR`: DIR/cases/<id>.json): the case and its rules quoted. */
export interface CaseFile extends Case {
  /** The schema the file follows (`DIR/case.schema.json`). */
  $schema?: string;
  /** The rules of `rules`, quoted (always present in exported files). */
  clauses?: Clause[];
}
