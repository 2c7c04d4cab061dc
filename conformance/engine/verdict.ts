// The verdict: pure functions that compare one observed exchange (an HTTP response or an MCP
// result, exchange.ts) with a case's expectation and return the list of checks (what was checked,
// whether it held, what was seen). No I/O here: goldens and second requests are handled by
// execute.ts, which feeds their outcomes back as checks.
import type { Observed } from './exchange.ts';
import { decodeImage, sniffType, type DecodedImage } from './image.ts';
import type { Check, Comparison, Expectation, HeaderExpectation, ImageExpectation, JsonExpectation, Reader, ToolExpectation } from '../model/model.ts';
import { evaluateProbe } from './probes.ts';

export const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

export function statusMatches(want: Expectation['status'], got: number): boolean {
  if (want === '2xx') return got >= 200 && got < 300;
  if (want === '4xx') return got >= 400 && got < 500;
  if (want === '5xx') return got >= 500 && got < 600;
  return Array.isArray(want) ? want.includes(got) : want === got;
}

export function expectsSuccess(e: Expectation): boolean {
  return [e.status].flat().every((s) => s === '2xx' || (typeof s === 'number' && s < 300));
}

export function snippet(s: string | Buffer, max = 200): string {
  const t = (typeof s === 'string' ? s : s.subarray(0, max * 4).toString('utf8')).replace(/\s+/g, ' ');
  return t.length > max ? `${t.slice(0, max)}...` : t;
}

export function checkStatus(e: Expectation, res: Observed): Check {
  const pass = statusMatches(e.status, res.status);
  const extra = !pass && res.status >= 400 ? `; body: ${snippet(res.body)}` : '';
  return { name: 'status', pass, detail: `expected ${JSON.stringify(e.status)}, got ${res.status}${extra}` };
}

/** Spec §2.4, §7: every failure is a JSON object with string `error` and `message`. */
export function checkFailureBody(e: Expectation, res: Observed): Check[] {
  const checks: Check[] = [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body.toString('utf8'));
  } catch {
    return [
      {
        name: 'failure body is JSON {error, message}',
        pass: false,
        detail: `not JSON (content-type ${res.headers['content-type'] ?? 'none'}): ${snippet(res.body)}`,
      },
    ];
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
    checks.push({
      name: 'message names the field',
      pass: re.test(message),
      detail: `message ${JSON.stringify(message)} ${re.test(message) ? 'matches' : 'does not match'} /${e.message}/i`,
    });
  }
  if (e.messageExcludes !== undefined) {
    const leaked = message.includes(e.messageExcludes);
    checks.push({
      name: 'message does not echo the body',
      pass: !leaked,
      detail: leaked ? `message contains ${JSON.stringify(e.messageExcludes)}` : 'no echo',
    });
  }
  return checks;
}

export function checkHeader(name: string, want: HeaderExpectation, res: Observed): Check {
  const got = res.headers[name.toLowerCase()];
  const label = `header ${name}`;
  if (typeof want === 'string') return { name: label, pass: got === want, detail: `expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}` };
  if ('present' in want)
    return {
      name: label,
      pass: (got !== undefined) === want.present,
      detail: want.present ? `expected present, got ${JSON.stringify(got)}` : `expected absent, got ${JSON.stringify(got)}`,
    };
  if ('matches' in want) {
    const pass = got !== undefined && new RegExp(want.matches, 'i').test(got);
    return { name: label, pass, detail: `expected /${want.matches}/i, got ${JSON.stringify(got)}` };
  }
  const n = got !== undefined && /^-?\d+$/.test(got.trim()) ? Number(got) : NaN;
  const pass = Number.isInteger(n) && (want.min === undefined || n >= want.min) && (want.max === undefined || n <= want.max);
  return {
    name: label,
    pass,
    detail: `expected an integer${want.min !== undefined ? ` >= ${want.min}` : ''}${want.max !== undefined ? ` <= ${want.max}` : ''}, got ${JSON.stringify(got)}`,
  };
}

/** The value at `path`, or undefined. */
function at(root: unknown, path: Array<string | number>): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

function sameJson(a: unknown, b: unknown): boolean {
  if (typeOf(a) !== typeOf(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  if (a && typeof a === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b as object).sort();
    return sameJson(ka, kb) && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

export function checkJson(want: JsonExpectation, root: unknown): Check {
  const v = at(root, want.path);
  const where = want.path.length ? want.path.join('.') : '(root)';
  const name = `json ${where}${want.label ? ` (${want.label})` : ''}`;
  const seen = v === undefined ? 'absent' : snippet(JSON.stringify(v), 160);
  const fails: string[] = [];
  if (want.present !== undefined && (v !== undefined) !== want.present) fails.push(want.present ? 'expected present' : 'expected absent');
  if (want.type !== undefined && typeOf(v) !== want.type) fails.push(`expected a ${want.type}`);
  if (want.equals !== undefined && !sameJson(v, want.equals)) fails.push(`expected ${snippet(JSON.stringify(want.equals), 160)}`);
  if (want.matches !== undefined && !(typeof v === 'string' && new RegExp(want.matches).test(v))) fails.push(`expected a string matching /${want.matches}/`);
  if (want.length !== undefined && !(Array.isArray(v) && v.length === want.length)) fails.push(`expected an array of ${want.length}`);
  return { name, pass: fails.length === 0, detail: `${fails.length ? `${fails.join('; ')}, ` : ''}got ${seen}` };
}

export function checkText(pattern: string, res: Observed): Check {
  const text = res.text ?? '';
  const pass = new RegExp(pattern).test(text);
  return { name: `text matches /${pattern}/`, pass, detail: snippet(text, 300) || '(no text)' };
}

/** MCP tool results: refused (isError, or a JSON-RPC error) or not, and how many images. */
export function checkTool(want: ToolExpectation, res: Observed): Check[] {
  const r = (res.json ?? {}) as { isError?: unknown; content?: Array<{ type?: unknown }>; rpcError?: { message?: unknown } };
  const types = (r.content ?? []).map((c) => c.type);
  const images = types.filter((t) => t === 'image').length;
  if (want.isError) {
    if (r.rpcError)
      return [
        {
          name: 'refused with an error',
          pass: String(r.rpcError.message ?? '').length > 0,
          detail: `JSON-RPC error: ${snippet(String(r.rpcError.message ?? ''))}`,
        },
      ];
    return [
      { name: 'isError: true', pass: r.isError === true, detail: `isError ${String(r.isError)}` },
      { name: 'no image', pass: images === 0, detail: `content types ${JSON.stringify(types)}` },
      { name: 'a non-empty message', pass: (res.text ?? '').trim().length > 0, detail: snippet(res.text ?? '') || '(empty)' },
    ];
  }
  const checks: Check[] = [
    {
      name: 'not an error result',
      pass: !r.rpcError && r.isError !== true,
      detail: r.rpcError
        ? `JSON-RPC error: ${snippet(String(r.rpcError.message))}`
        : r.isError
          ? `isError: ${snippet(res.text ?? '')}`
          : 'isError absent or false',
    },
  ];
  if (want.images !== undefined)
    checks.push({
      name: `${want.images} image content block(s)`,
      pass: images === want.images,
      detail: `${images} image block(s); content types ${JSON.stringify(types)}`,
    });
  return checks;
}

function read(r: Reader, res: Observed): number {
  if ('header' in r) {
    const v = res.headers[r.header.toLowerCase()];
    return v !== undefined && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  }
  const m = new RegExp(r.text).exec(res.text ?? '');
  return m?.[1] !== undefined && /^-?\d+$/.test(m[1]) ? Number(m[1]) : NaN;
}

export function checkComparison(c: Comparison, res: Observed, earlier: Observed[]): Check {
  const what = 'header' in c.read ? `header ${c.read.header}` : `/${c.read.text}/ in the text`;
  const base = earlier[c.fromStep] ? read(c.read, earlier[c.fromStep]!) : NaN;
  const got = read(c.read, res);
  const expected = base + c.plus;
  return {
    name: c.label ?? `${what} vs step ${c.fromStep + 1}`,
    pass: Number.isFinite(got) && got === expected,
    detail: `expected ${what} of step ${c.fromStep + 1} (${base}) ${c.plus >= 0 ? '+' : ''}${c.plus} = ${expected}, got ${got}`,
  };
}

function checkImageShape(want: ImageExpectation, img: DecodedImage, bytes: number): Check[] {
  const checks: Check[] = [];
  if (want.width !== undefined || want.height !== undefined) {
    const pass = (want.width === undefined || img.width === want.width) && (want.height === undefined || img.height === want.height);
    checks.push({ name: 'image size', pass, detail: `expected ${want.width ?? '*'}x${want.height ?? '*'}, got ${img.width}x${img.height}` });
  }
  if (want.minWidth !== undefined || want.minHeight !== undefined) {
    const pass = img.width >= (want.minWidth ?? 0) && img.height >= (want.minHeight ?? 0);
    checks.push({ name: 'image minimum size', pass, detail: `expected at least ${want.minWidth ?? 0}x${want.minHeight ?? 0}, got ${img.width}x${img.height}` });
  }
  if (want.hasAlpha !== undefined)
    checks.push({
      name: 'alpha channel',
      pass: img.hasAlpha === want.hasAlpha,
      detail: `expected ${want.hasAlpha ? 'an' : 'no'} alpha channel, got ${img.hasAlpha ? 'one' : 'none'}`,
    });
  if (want.maxBytes !== undefined)
    checks.push({ name: 'image bytes budget', pass: bytes <= want.maxBytes, detail: `${bytes} bytes, at most ${want.maxBytes}` });
  return checks;
}

export interface Judgement {
  checks: Check[];
  image?: DecodedImage;
}

/** All checks of one observed exchange against one expectation (golden and relation excluded). */
export async function judge(e: Expectation, res: Observed, earlier: Observed[] = []): Promise<Judgement> {
  const checks: Check[] = [checkStatus(e, res)];
  let image: DecodedImage | undefined;
  if (e.tool) checks.push(...checkTool(e.tool, res));
  if (!expectsSuccess(e)) {
    if (res.status >= 400 && !e.anyFailureBody) checks.push(...checkFailureBody(e, res));
  } else if (e.image) {
    const want = e.image;
    const ct = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const sniffed = sniffType(res.body);
    const wantType = want.type === 'any' ? sniffed : want.type;
    checks.push({
      name: 'content-type',
      pass: !!wantType && ct === CONTENT_TYPES[wantType],
      detail: `expected ${wantType ? CONTENT_TYPES[wantType] : 'an image type'}, got ${JSON.stringify(res.headers['content-type'])}`,
    });
    checks.push({
      name: 'image bytes',
      pass: !!sniffed && sniffed === wantType,
      detail: `expected ${want.type === 'any' ? 'PNG, JPEG or WebP' : want.type} bytes, got ${sniffed ?? `not an image (${res.body.length} bytes: ${snippet(res.body)})`}`,
    });
    if (sniffed) {
      try {
        image = await decodeImage(res.body);
        checks.push(...checkImageShape(want, image, res.body.length));
        for (const p of e.probes ?? []) checks.push(evaluateProbe(image, p));
      } catch (err) {
        checks.push({ name: 'image decodes', pass: false, detail: String(err) });
      }
    }
  }
  for (const [name, want] of Object.entries(e.headers ?? {})) checks.push(checkHeader(name, want, res));
  for (const j of e.json ?? []) checks.push(checkJson(j, res.json));
  for (const t of e.text ?? []) checks.push(checkText(t, res));
  for (const c of e.compare ?? []) checks.push(checkComparison(c, res, earlier));
  if (e.maxDurationMs !== undefined)
    checks.push({ name: 'response time', pass: res.durationMs <= e.maxDurationMs, detail: `${Math.round(res.durationMs)} ms, at most ${e.maxDurationMs} ms` });
  if (e.minDurationMs !== undefined)
    checks.push({
      name: 'response time (minimum)',
      pass: res.durationMs >= e.minDurationMs,
      detail: `${Math.round(res.durationMs)} ms, at least ${e.minDurationMs} ms`,
    });
  return { checks, image };
}
