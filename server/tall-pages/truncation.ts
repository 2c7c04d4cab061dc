// A capture cut short of what was asked for, and how the answer says so: a fact of the render's
// result (server/render/pipeline.ts `truncated`), written by the response registry
// (server/response/capture-headers.ts) into x-capture-truncated and the MCP result's facts:
//
//   x-capture-truncated: <full CSS height>; reason=<height|endless|size|time>
//
// The value starts with the full height as a bare integer, as it always did (a client that reads
// the leading integer keeps working); the reason follows as a parameter, in the style of
// Content-Type parameters.

/** Why a capture is shorter than the page (or element), in the order a tie is reported. */
export const TRUNCATION_REASONS = ['height', 'endless', 'size', 'time'] as const;
export type TruncationReason = (typeof TRUNCATION_REASONS)[number];

export interface Truncation {
  /** The full CSS height of what was asked for (the page when it was captured, or the element). */
  fromHeight: number;
  reason: TruncationReason;
}

/** What each reason means, for people: "the capture was <words>" (the MCP text, the header's description). */
export const REASON_WORDS: Readonly<Record<TruncationReason, string>> = {
  height: "cut at the request's fullPageMaxHeight",
  endless: 'cut where the page had grown to as it was scrolled: it keeps growing (an endless feed)',
  size: "cut at the output size ceiling (MAX_OUTPUT_PIXELS, or the format's largest side)",
  time: 'cut to the rows that could be captured in what was left of the render budget',
};

export function formatTruncation(t: Truncation): string {
  return `${t.fromHeight}; reason=${t.reason}`;
}

/** The header's value read back (clients, tests); a bare integer (the old form) reads as reason size. */
export function parseTruncation(value: string | undefined): Truncation | undefined {
  const m = /^\s*(\d+)\s*(?:;\s*reason=([a-z]+)\s*)?$/.exec(value ?? '');
  if (!m) return undefined;
  const reason = (m[2] ?? 'size') as TruncationReason;
  return TRUNCATION_REASONS.includes(reason) ? { fromHeight: Number(m[1]), reason } : undefined;
}
