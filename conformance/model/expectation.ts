// What a case expects of an answer (model.ts): status, error, headers, the image and probes of it,
// goldens, relations to a second request, JSON, MCP results, numbers compared across steps. Part
// of the one case model: case.schema.json is generated from model.ts and what it imports.
import type { HttpRequestSpec } from './request.ts';

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
