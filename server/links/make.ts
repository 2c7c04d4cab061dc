// Making a signed link: `npm run keys -- sign` and the tests. The options are checked
// with the request schema first, so that a link is not handed out that can only ever answer 400.
// docs/signed-links.md has the same few lines for Node, Python and a shell.
import { ServiceError } from '../errors.ts';
import { validateRequest } from '../request/validate.ts';
import { canonicalQuery, SIGNED_PATH, toQuery, type Pair } from './canonical.ts';
import { signPairs } from './verify.ts';

export interface LinkSpec {
  /** The request body's options, as for POST. */
  options: Record<string, unknown>;
  keyId: string;
  secret: string;
  /** Unix seconds. */
  expires: number;
  /** e.g. https://shots.example.com (no trailing slash needed). */
  baseUrl: string;
}

export function makeLink(spec: LinkSpec): string {
  validateRequest(spec.options); // throws a 400-style ServiceError naming the field
  const pairs: Pair[] = [...toQuery(spec.options), ['keyId', spec.keyId], ['expires', String(spec.expires)]];
  const signature = signPairs(spec.secret, pairs);
  return `${spec.baseUrl.replace(/\/+$/, '')}${SIGNED_PATH}?${canonicalQuery(pairs)}&signature=${signature}`;
}

/** For the CLI: the options as JSON text, or a message saying what is wrong. */
export function parseOptions(json: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    throw new ServiceError('bad_request', 'the options must be a JSON object, e.g. \'{"url":"https://example.com","viewport":{"width":1200,"height":630}}\'');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ServiceError('bad_request', 'the options must be a JSON object');
  return v as Record<string, unknown>;
}
