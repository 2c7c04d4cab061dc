// Writing the registry's headers from facts: a capture answer's, an error's, and the same capture
// facts as members of a JSON object (the MCP result's `_meta`, a batch item's `facts`).
import type { ServiceError } from '../errors.ts';
import type { Audience, CaptureFacts, CompareFacts } from './facts.ts';
import { HEADER_LIST, RESPONSE_HEADERS, wireName, type HeaderId } from './registry.ts';

/** A capture answer's headers, by wire name: the image (200) or the answer to a matching If-None-Match (304). */
export function captureHeaders(f: CaptureFacts, to: Audience, answer: 'image' | 'not-modified'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of HEADER_LIST) {
    if (!h.fromFacts || !h.sent.includes(answer) || (h.privateOnly && to.kind === 'public')) continue;
    const value = h.fromFacts(f, to);
    if (value !== undefined) out[wireName(h)] = value;
  }
  return out;
}

/** A comparison answer's headers, by wire name (its picture or its JSON: the same figures). */
export function compareHeaders(f: CompareFacts, to: Audience): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of HEADER_LIST) {
    if (!h.fromCompare || !h.sent.includes('diff') || (h.privateOnly && to.kind === 'public')) continue;
    const value = h.fromCompare(f, to);
    if (value !== undefined) out[wireName(h)] = value;
  }
  return out;
}

/** An error answer's headers, by wire name, from the error's facts. */
export function errorHeaders(e: ServiceError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of HEADER_LIST) {
    if (!h.fromError || (h.fromError.codes && !h.fromError.codes.includes(e.code))) continue;
    const value = h.fromError.write(e.facts);
    if (value !== undefined) out[wireName(h)] = value;
  }
  return out;
}

type JsonOf<T> = T extends { json: (f: CaptureFacts) => infer M } ? M : never;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Members that may be undefined are optional: they are left out when they are. */
type Optional<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** The capture facts as JSON members, every registry header's `json` members: what the MCP result's `_meta` and a batch item's `facts` show. */
export type JsonFacts = Optional<Intersection<{ [K in HeaderId]: JsonOf<(typeof RESPONSE_HEADERS)[K]> }[HeaderId]>>;

export function jsonFacts(f: CaptureFacts): JsonFacts {
  const members = HEADER_LIST.flatMap((h) => Object.entries(h.json?.(f) ?? {}));
  return Object.fromEntries(members.filter(([, v]) => v !== undefined)) as JsonFacts;
}
