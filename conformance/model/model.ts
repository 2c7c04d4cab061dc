// The data model of the conformance suite: ONE case model for REST and MCP cases (DESIGN §6). A
// case is data: an id, one MUST sentence, the rules it checks (rules.ts), the request and the
// expectation, and optionally further steps. The runner (execute.ts, verdict.ts) is generic and
// knows nothing about individual cases. `case.schema.json`, the same model as a JSON Schema for
// runners in any language (`screenshot-conformance --export DIR` writes every case as a CaseFile),
// is generated from this file (scripts/case-schema.ts; a self-test fails when it is stale).

import type { Expectation } from './expectation.ts';
import type { McpRequestSpec, RequestSpec } from './request.ts';

export type { Directive, CanarySpelling, Auth, HttpRequestSpec, McpRequestSpec, RequestSpec } from './request.ts';
export type {
  HeaderExpectation,
  Region,
  Probe,
  GoldenSpec,
  ImageExpectation,
  Relation,
  JsonExpectation,
  Reader,
  Comparison,
  ToolExpectation,
  StatusExpectation,
  Expectation,
} from './expectation.ts';

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
