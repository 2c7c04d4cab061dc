// The registry as OpenAPI: the headers of capture and error answers, each a $ref to a header
// component, and the components referred to (only those: Redocly warns on unused ones).
// server/http/openapi.ts places them in the document.
import type { ErrorCode } from '../errors.ts';
import type { Audience } from './facts.ts';
import type { ResponseHeader } from './header.ts';
import { HEADER_LIST } from './registry.ts';

type Ref = { $ref: string };

/** `x-request-id` -> RequestId, `WWW-Authenticate` -> WwwAuthenticate, `ETag` -> ETag. */
export function componentName(name: string, audience?: Audience['kind']): string {
  const words = name.split('-').filter((w, i) => !(i === 0 && w.toLowerCase() === 'x'));
  if (audience) words.push(audience);
  return words.map((w) => (w === w.toUpperCase() ? w[0]! + w.slice(1).toLowerCase() : w[0]!.toUpperCase() + w.slice(1))).join('');
}

export function openApiHeaders() {
  const components: Record<string, { description: string; schema: unknown }> = {};
  const ref = (h: ResponseHeader, audience?: Audience['kind']): Ref => {
    const variant = audience && h.audiences ? audience : undefined;
    const name = componentName(h.name, variant);
    components[name] ??= variant ? h.audiences![variant] : { description: h.description, schema: h.schema };
    return { $ref: `#/components/headers/${name}` };
  };
  const pick = (keep: (h: ResponseHeader) => boolean, audience?: Audience['kind']): Record<string, Ref> =>
    Object.fromEntries(HEADER_LIST.filter((h) => !h.notInOpenApi && (h.sent.includes('every') || keep(h))).map((h) => [h.name, ref(h, audience)]));
  return {
    /** The headers of a capture answer: the image (200) or the 304 to If-None-Match. */
    capture: (audience: Audience['kind'], answer: 'image' | 'not-modified') =>
      pick((h) => h.sent.includes(answer) && !(h.privateOnly && audience === 'public'), audience),
    /** The headers of a comparison answer (its picture or its JSON). */
    compare: (audience: Audience['kind']) => pick((h) => h.sent.includes('diff') && !(h.privateOnly && audience === 'public'), audience),
    /** The headers of any other answer (a JSON document): those of every response. */
    other: () => pick(() => false),
    /** The headers of an error answer with one of these codes. */
    error: (codes: readonly ErrorCode[]) => pick((h) => h.fromError !== undefined && (!h.fromError.codes || h.fromError.codes.some((c) => codes.includes(c)))),
    /** The components the headers above refer to; read after the last of them. */
    components: () => components,
  };
}
