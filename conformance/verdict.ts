// The verdict: pure functions that compare one HTTP response with a case's expectation and return
// the list of checks (what was checked, whether it held, what was seen). No I/O here: goldens and
// second requests are handled by execute.ts, which feeds their outcomes back as checks.
import type { Check, Expectation, HeaderExpectation, ImageExpectation } from './model.ts';
import type { HttpResponse } from './http.ts';
import { decodeImage, sniffType, type DecodedImage } from './image.ts';
import { evaluateProbe } from './probes.ts';

export const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

export function statusMatches(want: Expectation['status'], got: number): boolean {
  if (want === '4xx') return got >= 400 && got < 500;
  if (want === '5xx') return got >= 500 && got < 600;
  return Array.isArray(want) ? want.includes(got) : want === got;
}

export function expectsSuccess(e: Expectation): boolean {
  return [e.status].flat().every((s) => typeof s === 'number' && s < 300);
}

function snippet(body: Buffer): string {
  const s = body.subarray(0, 200).toString('utf8').replace(/\s+/g, ' ');
  return body.length > 200 ? `${s}...` : s;
}

export function checkStatus(e: Expectation, res: HttpResponse): Check {
  const pass = statusMatches(e.status, res.status);
  const extra = !pass && res.status >= 400 ? `; body: ${snippet(res.body)}` : '';
  return { name: 'status', pass, detail: `expected ${JSON.stringify(e.status)}, got ${res.status}${extra}` };
}

/** Spec §2.4, §7: every failure is a JSON object with string `error` and `message`. */
export function checkFailureBody(e: Expectation, res: HttpResponse): Check[] {
  const checks: Check[] = [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body.toString('utf8'));
  } catch {
    return [{ name: 'failure body is JSON {error, message}', pass: false, detail: `not JSON (content-type ${res.headers['content-type'] ?? 'none'}): ${snippet(res.body)}` }];
  }
  const obj = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  const ok = !!obj && typeof obj.error === 'string' && typeof obj.message === 'string';
  checks.push({ name: 'failure body is JSON {error, message}', pass: ok, detail: ok ? `error=${String(obj!.error)}` : `got ${snippet(res.body)}` });
  if (!ok) return checks;
  const error = obj!.error as string;
  const message = obj!.message as string;
  if (e.error !== undefined) checks.push({ name: 'error code', pass: error === e.error, detail: `expected ${e.error}, got ${error}` });
  if (e.message !== undefined) {
    const re = new RegExp(e.message, 'i');
    checks.push({ name: 'message names the field', pass: re.test(message), detail: `message ${JSON.stringify(message)} ${re.test(message) ? 'matches' : 'does not match'} /${e.message}/i` });
  }
  if (e.messageExcludes !== undefined) {
    const leaked = message.includes(e.messageExcludes);
    checks.push({ name: 'message does not echo the body', pass: !leaked, detail: leaked ? `message contains ${JSON.stringify(e.messageExcludes)}` : 'no echo' });
  }
  return checks;
}

export function checkHeader(name: string, want: HeaderExpectation, res: HttpResponse, earlier: HttpResponse[] = []): Check {
  const got = res.headers[name.toLowerCase()];
  const label = `header ${name}`;
  if (typeof want === 'string') return { name: label, pass: got === want, detail: `expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}` };
  if ('present' in want) return { name: label, pass: (got !== undefined) === want.present, detail: want.present ? `expected present, got ${JSON.stringify(got)}` : `expected absent, got ${JSON.stringify(got)}` };
  if ('matches' in want) {
    const pass = got !== undefined && new RegExp(want.matches, 'i').test(got);
    return { name: label, pass, detail: `expected /${want.matches}/i, got ${JSON.stringify(got)}` };
  }
  if ('integer' in want) {
    const n = got !== undefined && /^-?\d+$/.test(got.trim()) ? Number(got) : NaN;
    const pass = Number.isInteger(n) && (want.min === undefined || n >= want.min) && (want.max === undefined || n <= want.max);
    return { name: label, pass, detail: `expected an integer${want.min !== undefined ? ` >= ${want.min}` : ''}${want.max !== undefined ? ` <= ${want.max}` : ''}, got ${JSON.stringify(got)}` };
  }
  const base = earlier[want.fromStep]?.headers[want.header.toLowerCase()];
  const expected = base !== undefined && /^-?\d+$/.test(base) ? Number(base) + want.plus : NaN;
  const pass = got !== undefined && Number(got) === expected;
  return { name: label, pass, detail: `expected ${want.header} of step ${want.fromStep} (${JSON.stringify(base)}) ${want.plus >= 0 ? '+' : ''}${want.plus} = ${expected}, got ${JSON.stringify(got)}` };
}

function checkImageShape(want: ImageExpectation, img: DecodedImage): Check[] {
  const checks: Check[] = [];
  if (want.width !== undefined || want.height !== undefined) {
    const pass = (want.width === undefined || img.width === want.width) && (want.height === undefined || img.height === want.height);
    checks.push({ name: 'image size', pass, detail: `expected ${want.width ?? '*'}x${want.height ?? '*'}, got ${img.width}x${img.height}` });
  }
  if (want.minWidth !== undefined || want.minHeight !== undefined) {
    const pass = img.width >= (want.minWidth ?? 0) && img.height >= (want.minHeight ?? 0);
    checks.push({ name: 'image minimum size', pass, detail: `expected at least ${want.minWidth ?? 0}x${want.minHeight ?? 0}, got ${img.width}x${img.height}` });
  }
  if (want.hasAlpha !== undefined) checks.push({ name: 'alpha channel', pass: img.hasAlpha === want.hasAlpha, detail: `expected ${want.hasAlpha ? 'an' : 'no'} alpha channel, got ${img.hasAlpha ? 'one' : 'none'}` });
  return checks;
}

export interface Judgement {
  checks: Check[];
  image?: DecodedImage;
}

/** All checks of one response against one expectation (golden and relation excluded). */
export async function judge(e: Expectation, res: HttpResponse, earlier: HttpResponse[] = []): Promise<Judgement> {
  const checks: Check[] = [checkStatus(e, res)];
  let image: DecodedImage | undefined;
  if (!expectsSuccess(e)) {
    if (res.status >= 400 && !e.anyFailureBody) checks.push(...checkFailureBody(e, res));
  } else if (e.image) {
    const want = e.image;
    const ct = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    checks.push({ name: 'content-type', pass: ct === CONTENT_TYPES[want.type], detail: `expected ${CONTENT_TYPES[want.type]}, got ${JSON.stringify(res.headers['content-type'])}` });
    const sniffed = sniffType(res.body);
    checks.push({ name: 'image bytes', pass: sniffed === want.type, detail: `expected ${want.type} bytes, got ${sniffed ?? `not an image (${res.body.length} bytes: ${snippet(res.body)})`}` });
    if (sniffed) {
      try {
        image = await decodeImage(res.body);
        checks.push(...checkImageShape(want, image));
        for (const p of e.probes ?? []) checks.push(evaluateProbe(image, p));
      } catch (err) {
        checks.push({ name: 'image decodes', pass: false, detail: String(err) });
      }
    }
  }
  for (const [name, want] of Object.entries(e.headers ?? {})) checks.push(checkHeader(name, want, res, earlier));
  if (e.maxDurationMs !== undefined) checks.push({ name: 'response time', pass: res.durationMs <= e.maxDurationMs, detail: `${Math.round(res.durationMs)} ms, at most ${e.maxDurationMs} ms` });
  if (e.minDurationMs !== undefined) checks.push({ name: 'response time (minimum)', pass: res.durationMs >= e.minDurationMs, detail: `${Math.round(res.durationMs)} ms, at least ${e.minDurationMs} ms` });
  return { checks, image };
}
