// Signed links for comparisons: GET /v1/compare?<options>&keyId=...&expires=...&signature=...
// (docs/compare.md), so that a dashboard can embed the diff picture. The options are those of the
// JSON body, flattened as a capture link flattens them (server/links/canonical.ts): the capture's
// fields and the comparison's (`threshold=0.2`, `ignoreSelectors=.clock` repeated,
// `ignoreRegions={"x":0,...}` repeated as JSON), and the baseline, which in a link can only be a
// request (a picture does not fit in a URL), under `baseline.request.`
// (`baseline.request.url=...`, `baseline.request.viewport.width=1200`). The string signed is
// `/v1/compare?` and the canonical query: a capture link's signature does not open a comparison.
import { badRequest } from '../errors.ts';
import { canonicalQuery, fromQuery, toQuery, type Pair, type Schema } from '../links/canonical.ts';
import { signPairs } from '../links/verify.ts';
import { screenshotRequestSchema } from '../request/schema.ts';
import { comparisonFields } from './fields.ts';
import { validateCompareRequest } from './validate.ts';

export const COMPARE_PATH = '/v1/compare';
const BASELINE = 'baseline.request.';
/** The fields a link's top level may carry: the capture's and the comparison's. */
const FIELDS = { ...screenshotRequestSchema.properties, ...comparisonFields } as unknown as Record<string, Schema>;

const NO_IMAGE =
  'baseline.image cannot be sent in a link (a picture does not fit in a URL): give the baseline as a request, baseline.request.<option>=... (docs/compare.md)';

/** The compare request a link's pairs stand for (link parameters left out). */
export function compareBodyFromQuery(pairs: Pair[]): Record<string, unknown> {
  if (pairs.some(([n]) => n === 'baseline' || (n.startsWith('baseline.') && !n.startsWith(BASELINE)))) throw badRequest(NO_IMAGE);
  const baseline = pairs.filter(([n]) => n.startsWith(BASELINE)).map(([n, v]): Pair => [n.slice(BASELINE.length), v]);
  const rest = pairs.filter(([n]) => !n.startsWith(BASELINE));
  return { ...fromQuery(rest, FIELDS), ...(baseline.length > 0 ? { baseline: { request: fromQuery(baseline) } } : {}) };
}

/** A compare request's options as a link's pairs (no link parameters). */
export function compareQuery(options: Record<string, unknown>): Pair[] {
  const { baseline, ...rest } = options as { baseline?: { request?: Record<string, unknown>; image?: unknown } };
  if (baseline?.image !== undefined || !baseline?.request) throw badRequest(NO_IMAGE);
  return [...toQuery(rest, FIELDS), ...toQuery(baseline.request).map(([n, v]): Pair => [BASELINE + n, v])];
}

export interface CompareLinkSpec {
  options: Record<string, unknown>;
  keyId: string;
  secret: string;
  /** Unix seconds. */
  expires: number;
  baseUrl: string;
}

/** A signed comparison link; the options are checked first, so that no link is made that can only answer 400. */
export function makeCompareLink(spec: CompareLinkSpec): string {
  const options = compareQuery(spec.options);
  validateCompareRequest(spec.options);
  const pairs: Pair[] = [...options, ['keyId', spec.keyId], ['expires', String(spec.expires)]];
  return `${spec.baseUrl.replace(/\/+$/, '')}${COMPARE_PATH}?${canonicalQuery(pairs)}&signature=${signPairs(spec.secret, pairs, COMPARE_PATH)}`;
}
