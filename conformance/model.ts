// The data model of the conformance suite. A case is data (DESIGN §6): an id, one MUST sentence,
// the spec clause it checks, the request and the expectation. The runner (execute.ts, verdict.ts)
// is generic and knows nothing about individual cases.

export type Profile = 'core' | 'reference' | 'security';
export const PROFILES: readonly Profile[] = ['core', 'reference', 'security'];

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
 * Values in a request body may be directives that the runner resolves before sending:
 * - { $fixture: "name" }               the text of fixtures/pages/<name>.html (fonts inlined)
 * - { $consentFixture: "file" }        the text of fixtures/consent/<file> (fonts inlined)
 * - { $fixtureUrl: "/path" }           absolute URL of a path on the fixture server (first origin)
 * - { $fixtureUrl2: "/path" }          the same on the second fixture origin
 * - { $canaryUrl: "/path", spelling? } a URL that reaches a canary listener on loopback
 * - { $html: { bytes, fill? } }        an HTML document of exactly `bytes` UTF-8 bytes
 * - { $repeat: value, times }          an array of `times` copies of value
 * - { $string: { char, length } }      a string of `length` copies of char
 * - { $template: "...{{canary}}...{{fixtures}}...{{canary:/p}}" } string with origins substituted
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

export interface RequestSpec {
  method?: string; // default POST
  path?: string; // default /v1/screenshot
  /** 'valid' (default): a key from --api-key; 'none': no Authorization; 'invalid': a wrong key; 'fresh': the --fresh-key. */
  auth?: 'valid' | 'none' | 'invalid' | 'malformed' | 'fresh';
  headers?: Record<string, string>;
  /** JSON body (with directives). */
  body?: unknown;
  /** Sent verbatim instead of `body` (invalid JSON and the like). */
  rawBody?: string;
}

export type HeaderExpectation =
  | string // exact value (case-insensitive for the header name, exact for the value)
  | { matches: string } // regular expression (source), tested against the value
  | { present: boolean }
  | { integer: true; min?: number; max?: number }
  /** The value of a header in an earlier step plus `plus` (integers), for multi-step cases. */
  | { fromStep: number; header: string; plus: number };

export interface Region {
  /** Pixel rectangle of the decoded image. Negative x/y count from the right/bottom edge. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export type Probe =
  /** At least `fraction` (default 0.98) of the region's pixels are within `tolerance` (default 24, per channel) of rgb (and alpha, if given). */
  | { kind: 'color'; region: Region; rgb: [number, number, number]; alpha?: number; tolerance?: number; fraction?: number; label?: string }
  /** At most `fraction` (default 0.02) of the region's pixels are within `tolerance` of rgb: the colour is gone. */
  | { kind: 'absent'; region: Region; rgb: [number, number, number]; tolerance?: number; fraction?: number; label?: string }
  /** Every pixel of the region has alpha within [min, max]. */
  | { kind: 'alpha'; region: Region; min: number; max: number; label?: string };

export interface GoldenSpec {
  /** Golden file name in golden/ (default: <case id>.png). */
  name?: string;
  /** pixelmatch per-pixel threshold (0..1). */
  threshold: number;
  /** Two-part budget of differing pixels: the smaller of the two wins. */
  maxDiffPixels: number;
  maxDiffPixelRatio: number;
}

export interface ImageExpectation {
  type: 'png' | 'jpeg' | 'webp';
  width?: number;
  height?: number;
  /** Lower bounds when the exact size is not fixed by the spec (fullPage heights). */
  minWidth?: number;
  minHeight?: number;
  /** The decoded image must (true) or must not (false) carry an alpha channel. */
  hasAlpha?: boolean;
}

/** A relation between this case's response and a second request's response (the effect of an option). */
export interface Relation {
  request: RequestSpec;
  /** The second response must also satisfy these (status 200 and an image, typically). */
  expect?: Pick<Expectation, 'status' | 'image'>;
  /** bytes-less: this body is smaller than the other's; pixels-differ: more than `minDiffRatio` of pixels differ (pixelmatch, threshold 0.1); pixels-similar: at most `maxDiffRatio` differ. */
  relation: 'bytes-less' | 'bytes-greater' | 'pixels-differ' | 'pixels-similar';
  minDiffRatio?: number;
  maxDiffRatio?: number;
}

export interface Expectation {
  /** Exact status, a list of acceptable statuses, or a class such as "4xx". */
  status: number | number[] | '4xx' | '5xx';
  /** The JSON error body's `error` code (failures). Every failure is also checked for `{error, message}` strings. */
  error?: string;
  /** Do not check the failure body shape (for non-endpoint exchanges such as MCP, whose errors the spec does not shape). */
  anyFailureBody?: boolean;
  /** Regular expression (source, case-insensitive) the error message must match (it names the field). */
  message?: string;
  /** The error message must not contain this text (no echo of the request body). */
  messageExcludes?: string;
  headers?: Record<string, HeaderExpectation>;
  image?: ImageExpectation;
  probes?: Probe[];
  golden?: GoldenSpec;
  /** Upper bound on the response time (ms), e.g. the 20 s budget plus slack. */
  maxDurationMs?: number;
  minDurationMs?: number;
  /** Number of connections canary listeners may see during the case (always 0). */
  canaryConnections?: number;
  relation?: Relation;
}

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
  profile: Profile;
  needs?: Need[];
  /** Heavy cases (large images, long waits) are few and marked so that runs can budget for them. */
  heavy?: boolean;
  /** Per-case time limit for the runner (ms); default 60 s. */
  timeoutMs?: number;
  request: RequestSpec;
  expect: Expectation;
  /** Further requests in order, for multi-step cases (billing, caching). */
  then?: Step[];
}

/** One check of a verdict: what was checked, whether it held, and what was seen. */
export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}
