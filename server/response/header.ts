// What the response registry says of each header (./registry.ts lists them).
import type { ErrorCode, ErrorFacts } from '../errors.ts';
import type { Audience, CaptureFacts, CompareFacts } from './facts.ts';

/** When a header is sent, in words (docs/api.md). */
export const OCCASIONS = {
  every: 'every response',
  image: '200 with the image',
  'not-modified': '304 to If-None-Match',
  diff: '200 from /v1/compare (the diff picture, or its JSON)',
  error: 'errors',
  options: '204 to OPTIONS on a known route',
  'cross-origin': 'answers to a page on a listed origin (CORS_ORIGINS)',
  preflight: 'CORS preflights from a listed origin',
  static: "the playground's files and /README.md",
  draining: 'while the replica drains (after SIGTERM)',
  never: 'never by this server',
} as const;

export type Occasion = keyof typeof OCCASIONS;

/** A JSON Schema of a header's value (OpenAPI). */
export type ValueSchema = Readonly<Record<string, unknown>>;

export interface ResponseHeader {
  /** As documents spell it (OpenAPI, README); sent in lower case. */
  name: string;
  /** What it says, for clients (OpenAPI) and the README; never empty (registry.test.ts). */
  description: string;
  schema: ValueSchema;
  /** When it is sent. */
  sent: readonly Occasion[];
  /** A page on a listed origin may read it (Access-Control-Expose-Headers). */
  expose: boolean;
  /** CORS-safelisted (Fetch standard): every page may read it without its being exposed. */
  safelisted?: true;
  /** Capture answers (`image`, `not-modified` in `sent`): the value from the facts; undefined = not sent. */
  fromFacts?: (f: CaptureFacts, to: Audience) => string | undefined;
  /** Comparison answers (`diff` in `sent`): the value from the comparison's facts; undefined = not sent. */
  fromCompare?: (f: CompareFacts, to: Audience) => string | undefined;
  /** Kept from public answers (signed links): whoever holds a link may not read it. */
  privateOnly?: true;
  /** Error answers: the value from the error's facts, for the codes listed (every code when none are). */
  fromError?: { codes?: readonly ErrorCode[]; write(f: ErrorFacts): string | undefined };
  /** The same fact as JSON members (the MCP result's `_meta`, a batch item's `facts`: ./write.ts jsonFacts); undefined members are left out. */
  json?: (f: CaptureFacts) => object;
  /** Listed with its value under the image in the playground. */
  playground?: true;
  /** OpenAPI: a description and schema per audience, when the value depends on it. */
  audiences?: Readonly<Record<Audience['kind'], { description: string; schema: ValueSchema }>>;
  /** OpenAPI describes it by the response's content type, not as a header (OpenAPI 3.1 ignores a Content-Type header). */
  notInOpenApi?: true;
}
