// The values that sit exactly at a bound and one past it (bounds.ts), and the smallest valid body
// that holds them. What the schema says is read from the schema: the companions a field needs
// (its cross-field rules in `allOf`: url mode for headers, a lossy format for quality, fullPage
// for fullPageMaxHeight), the smallest valid entry of a list or member of an object. What it
// cannot say is here, in one place: how to write a long string that is still a valid value of its
// field (a selector that matches, or matches nothing; a script that runs) and the one field whose
// exact limit needs a scale to stay an affordable picture (clip).
import { SCHEMA, type Bound, type LimitNode, type Step } from './bounds.ts';

type Body = Record<string, unknown>;

export const PLAIN_PAGE = 'plain';
/** The plain page's green (fixtures/pages/plain.html). */
export const PLAIN_GREEN: [number, number, number] = [0x20, 0xa0, 0x40];
/** A small window: every exact-limit capture stays cheap (a 10000 px side is 10000 x 20). */
export const WINDOW = { width: 20, height: 20 } as const;

/** Strings that must stay a selector that matches nothing (a hidden list, a wait for absence). */
const MATCH_NOTHING: ReadonlySet<string> = new Set(['hideSelectors.[]', 'actions.[].waitForHidden']);
/** Strings that are scripts: a statement, or an expression that is true. */
const SCRIPT: Readonly<Record<string, (inner: string) => string>> = {
  js: (s) => `/*${s}*/`,
  'actions.[].waitForFunction': (s) => `true/*${s}*/`,
};
/** Bodies a bound needs beyond its companions, so that its exact value stays an affordable picture. */
const WITH: Readonly<Record<string, Body>> = {
  // clip is in CSS px; at scale 0.1 a 100000 px side is a 10000 px picture
  clip: { viewport: { ...WINDOW, deviceScaleFactor: 0.1 }, clip: { x: 0, y: 0, width: 10, height: 10 } },
};

/**
 * Values whose exact limit is valid but may cost more than the render budget on a busy machine
 * (a thousand keys typed one by one): there the exact value must not be refused, and a 504
 * render_timeout is an answer too.
 */
export const SLOW_AT_LIMIT: ReadonlySet<string> = new Set(['actions.[].text']);

export const where = (path: readonly Step[]) => path.join('.');

/** `n` UTF-8 bytes of `char` (one ASCII 'a' makes up an odd remainder). */
function ofBytes(n: number, char: string): string {
  const size = Buffer.byteLength(char);
  const k = Math.floor(n / size);
  return char.repeat(k) + 'a'.repeat(n - k * size);
}

/**
 * A valid value of a string field that is exactly `n` characters long (or `bytes` long in UTF-8,
 * written with `char`), distinct for each `i`.
 */
export function longString(path: readonly Step[], node: LimitNode, n: number, o: { i?: number; bytes?: boolean; char?: string } = {}): string {
  const key = where(path);
  const i = o.i ?? 0;
  const pad = (len: number, head = '') =>
    o.bytes ? head + ofBytes(Math.max(0, len - Buffer.byteLength(head)), o.char ?? 'a') : (head + 'a'.repeat(Math.max(0, len))).slice(0, Math.max(0, len));
  const script = SCRIPT[key];
  if (script) return script(pad(n - script('').length, `z${i}`));
  if (MATCH_NOTHING.has(key)) return `#${pad(n - 1, `z${i}`)}`;
  if (/CSS selector/.test(node.description ?? '')) {
    if (n < 12) return 'body';
    return `body:not(#${pad(n - 11, `z${i}`)})`;
  }
  return pad(n, i > 0 ? `z${i}` : '');
}

/** The smallest valid value of a node (an entry of a list, a member, a companion). */
export function minimal(node: LimitNode, path: readonly Step[], i = 0): unknown {
  if (node.enum) return node.enum[i % node.enum.length];
  switch (node.type) {
    case 'string':
      return longString(path, node, Math.max(node.minLength ?? 1, i > 0 ? 2 + String(i).length : 1), { i });
    case 'number':
    case 'integer':
      return node.minimum ?? 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
  }
  // An object: the members it requires, or, with alternatives, the one whose members are all numbers
  // (a wait of 0: a step that does nothing).
  const branch = node.oneOf?.find((b) => (b.required ?? []).every((r) => ['number', 'integer'].includes(node.properties?.[r]?.type ?? ''))) ?? node.oneOf?.[0];
  const required = [...(node.required ?? []), ...(branch?.required ?? [])];
  return Object.fromEntries(required.map((r) => [r, minimal(node.properties![r]!, [...path, r], i)]));
}

/** The companions a field's cross-field rules ask for (`if` it is there, `then` these are). */
function companions(field: string): { body: Body; url: boolean } {
  const body: Body = {};
  let url = false;
  for (const rule of (SCHEMA.allOf ?? []) as Array<{ if?: LimitNode & { anyOf?: LimitNode[] }; then?: LimitNode }>) {
    const when = [...(rule.if?.required ?? []), ...(rule.if?.anyOf ?? []).flatMap((a) => a.required ?? [])];
    if (!when.includes(field) || !rule.then) continue;
    for (const r of rule.then.required ?? []) {
      if (r === 'url') url = true;
      else {
        const p = rule.then.properties?.[r] as (LimitNode & { const?: unknown }) | undefined;
        body[r] = p?.const ?? p?.enum?.[0];
      }
    }
  }
  return { body, url };
}

/** Puts `value` at `path` inside `into` (a copy), filling what lies between with the smallest valid values. */
function put(into: unknown, node: LimitNode, path: readonly Step[], at: number, value: unknown): unknown {
  if (at === path.length) return value;
  const step = path[at]!;
  if (step === '[]') return [put(minimal(node.items!, path.slice(0, at + 1)), node.items!, path, at + 1, value)];
  if (step === '{}') return { 'x-conformance': put(undefined, node.additionalProperties as LimitNode, path, at + 1, value) };
  const base = into && typeof into === 'object' ? (into as Body) : (minimal(node, path.slice(0, at)) as Body);
  const sub = node.properties![step]!;
  // an entry of alternatives holds only the members of the alternative this member is in
  const alt = node.oneOf?.find((b) => b.required?.includes(step));
  const kept = alt ? Object.fromEntries((alt.required ?? []).map((r) => [r, minimal(node.properties![r]!, [...path.slice(0, at), r])])) : base;
  return { ...kept, [step]: put(kept[step], sub, path, at + 1, value) };
}

export interface Placed {
  body: Body;
  /** The request needs the suite's fixture server (url mode). */
  url: boolean;
}

/** The smallest valid body holding `value` at the bound's place. */
export function bodyWith(b: Pick<Bound, 'path'>, value: unknown): Placed {
  const field = b.path[0]!;
  const { body: extra, url } = companions(field);
  const body: Body = {
    ...(url ? { url: { $fixtureUrl: `/pages/${PLAIN_PAGE}.html` } } : { html: { $fixture: PLAIN_PAGE } }),
    viewport: WINDOW,
    ...extra,
    ...WITH[field],
  };
  body[field] = put(body[field], SCHEMA.properties[field]!, b.path, 1, value);
  return { body, url };
}

const step = (b: Bound) => (b.node.type === 'integer' ? 1 : 0.01);
const round = (n: number) => Number(n.toFixed(6));

/** The value exactly at the bound and the one just past it (undefined: not written from the schema). */
export function valuesAt(b: Bound): { exact: unknown; past: unknown } {
  const n = b.limit;
  const list = (len: number) =>
    b.keyword === 'maxItems'
      ? Array.from({ length: len }, (_, i) => minimal(b.node.items!, [...b.path, '[]'], i))
      : Object.fromEntries(
          Array.from({ length: len }, (_, i) => [`x-conformance-${i}`, minimal(b.node.additionalProperties as LimitNode, [...b.path, '{}'], i)]),
        );
  switch (b.keyword) {
    case 'maximum':
      return { exact: n, past: round(n + step(b)) };
    case 'minimum':
      return { exact: n, past: round(n - step(b)) };
    case 'maxLength':
      return { exact: longString(b.path, b.node, n), past: longString(b.path, b.node, n + 1) };
    case 'minLength':
      return { exact: longString(b.path, b.node, n), past: longString(b.path, b.node, n - 1) };
    case 'maxItems':
    case 'maxProperties':
      return { exact: list(n), past: list(n + 1) };
    case 'maxBytes':
      // two-byte characters: a limit counted in characters lets the exact value through but not one past it
      return b.path.length === 1 && b.path[0] === 'html'
        ? { exact: { $html: { bytes: n, fill: 'é' } }, past: { $html: { bytes: n + 1, fill: 'é' } } }
        : { exact: longString(b.path, b.node, n, { bytes: true, char: 'é' }), past: longString(b.path, b.node, n + 1, { bytes: true, char: 'é' }) };
  }
}
