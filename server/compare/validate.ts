// Validation of a compare request: the whole body against the compare schema in one pass (every
// bad field named in one 400, baseline.request's as `baseline.request.<field>`), then each capture
// request normalised as POST /v1/screenshot does, and the baseline image checked: base64 of a PNG,
// JPEG or WebP within its byte limit (413) and the output pixel limit.
import { sniffType } from '../../lib/visual-diff/sniff.ts';
import { badRequest, ServiceError } from '../errors.ts';
import { SCREENSHOT_FIELDS, compileBodyCheck, validateRequest } from '../request/validate.ts';
import { BASELINE_IMAGE_MAX_BYTES } from './fields.ts';
import { compareRequestSchema, type ComparisonOptions } from './schema.ts';

const check = compileBodyCheck(compareRequestSchema);
const NOT_AN_IMAGE = 'baseline.image must be a base64 PNG, JPEG or WebP image';

export interface CompareRequest {
  /** The capture request, as sent (the capture service validates and normalises it again). */
  current: Record<string, unknown>;
  baseline: { image: Buffer } | { request: Record<string, unknown> };
  options: ComparisonOptions & Required<Pick<ComparisonOptions, 'threshold' | 'includeAA' | 'ignoreSelectors' | 'ignoreRegions'>>;
}

/** The capture fields of a body (unknown fields are ignored, spec §9, as in a capture request). */
const captureFields = (b: Record<string, unknown>) => Object.fromEntries(SCREENSHOT_FIELDS.filter((k) => b[k] !== undefined).map((k) => [k, b[k]]));

/** The bytes of a `baseline.image`, or a 400/413 naming it. */
export function baselineBytes(text: string): Buffer {
  const b64 = text.replace(/^data:image\/[a-z+.-]+;base64,/i, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64)) throw badRequest(NOT_AN_IMAGE);
  if (Math.floor((b64.length * 3) / 4) > BASELINE_IMAGE_MAX_BYTES + 2) throw tooLarge();
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length > BASELINE_IMAGE_MAX_BYTES) throw tooLarge();
  if (!sniffType(bytes)) throw badRequest(NOT_AN_IMAGE);
  return bytes;
}

const tooLarge = () => new ServiceError('payload_too_large', `baseline.image must be at most ${BASELINE_IMAGE_MAX_BYTES} bytes (decoded)`);

/** The message of a capture request's error, for the baseline's request: its fields named under baseline.request. */
function underBaseline(e: unknown): unknown {
  if (!(e instanceof ServiceError)) return e;
  return new ServiceError(
    e.code,
    e.message
      .split('; ')
      .map((m) =>
        SCREENSHOT_FIELDS.some((f) => m.startsWith(`${f} `) || m.startsWith(`${f}.`) || m.startsWith(`${f}[`))
          ? `baseline.request.${m}`
          : `baseline.request: ${m}`,
      )
      .join('; '),
    e.facts,
  );
}

export function validateCompareRequest(body: unknown): CompareRequest {
  const b = check(body);
  const current = captureFields(body as Record<string, unknown>);
  validateRequest(current); // what the schema cannot say (html bytes: 413); the capture service normalises it
  const sent = (b.baseline ?? {}) as { image?: string; request?: Record<string, unknown> };
  let baseline: CompareRequest['baseline'];
  if (sent.request !== undefined) {
    const request = captureFields((body as { baseline: { request: Record<string, unknown> } }).baseline.request);
    try {
      validateRequest(request);
    } catch (e) {
      throw underBaseline(e);
    }
    baseline = { request };
  } else {
    baseline = { image: baselineBytes(sent.image!) };
  }
  const { threshold, includeAA, ignoreSelectors, ignoreRegions } = b as CompareRequest['options'];
  return { current, baseline, options: { threshold, includeAA, ignoreSelectors, ignoreRegions } };
}
