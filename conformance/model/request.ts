// The requests of a case (model.ts): bare HTTP exchanges and MCP exchanges, with the directives the
// runner resolves in their bodies (resolve.ts). Part of the one case model: case.schema.json is
// generated from model.ts and what it imports.

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
