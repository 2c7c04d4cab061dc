// The reference tables of docs/ are generated from their one source each, so that a field, an
// error code or a setting cannot be added without its documentation:
//   request fields   server/request/schema.ts (each property's type, bounds, default, description)
//   error codes      server/errors.ts (ERROR_CATALOGUE)
//   settings         server/settings.ts (SETTINGS)
//   response headers server/response/ (the response registry)
//   layers           server/layers.json (the rows of rooms, which lint enforces: .dependency-cruiser.mjs)
// A table sits between `<!-- generated: NAME -->` and `<!-- end generated -->` in a docs file;
// the text around it is written by hand. `npm run docs` rewrites the tables in place;
// test/docs/generated.test.ts fails when a file is not what this script would write.
//   node --import tsx scripts/docs.ts [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOGUE } from '../server/errors.ts';
import { EXTENSION_FIELDS, SPEC_FIELDS, screenshotRequestSchema } from '../server/request/schema.ts';
import { SETTINGS } from '../server/settings.ts';
import { CAPTURE_HEADERS } from '../server/response/capture-headers.ts';
import { COMPARE_HEADERS } from '../server/response/compare-headers.ts';
import { COMPARE_FIELDS, compareRequestSchema } from '../server/compare/schema.ts';
import { OCCASIONS, type ResponseHeader } from '../server/response/header.ts';
import { PROTOCOL_HEADERS } from '../server/response/protocol-headers.ts';
import { wireName } from '../server/response/registry.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

type Schema = Record<string, any>;

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

/** A field's type in words: `png` \| `jpeg`, number 1..100, string[] (at most 50), object... */
function typeOf(s: Schema): string {
  if (s.enum && s['x-suggest']) return `string: one of ${s.enum.length} names`; // too many to spell (device presets): the description says where they are listed
  if (s.enum) return s.enum.map(code).join(' | ');
  const bounds = (lo: unknown, hi: unknown) => (lo !== undefined || hi !== undefined ? ` ${lo ?? ''}..${hi ?? ''}` : '');
  switch (s.type) {
    case 'number':
    case 'integer':
      return `${s.type}${bounds(s.minimum, s.maximum)}`;
    case 'string':
      if (s['x-max-bytes'] !== undefined) return `string (at most ${s['x-max-bytes']} UTF-8 bytes)`;
      return s.maxLength !== undefined ? `string (at most ${s.maxLength} characters)` : 'string';
    case 'array': {
      const item = s.items?.type === 'object' ? `{${Object.keys(s.items.properties ?? {}).join(', ')}}` : (s.items?.type ?? 'value');
      return `${item}[]${s.maxItems !== undefined ? ` (at most ${s.maxItems})` : ''}`;
    }
    case 'object':
      if (s.title) return s.title; // a nested request (baseline.request): named, not listed
      return s.properties ? `{${Object.keys(s.properties).join(', ')}}` : `object${s.maxProperties !== undefined ? ` (at most ${s.maxProperties})` : ''}`;
    default:
      return String(s.type ?? 'any');
  }
}

const defaultOf = (s: Schema) => ('default' in s ? code(s.default) : '');

/** One row per field (and per property of an object field: `viewport.width`). */
export function fieldsTable(names: readonly string[], props: Record<string, Schema> = screenshotRequestSchema.properties): string {
  const rows = ['| field | type | default | what it does |', '|---|---|---|---|'];
  for (const name of names) {
    const s = props[name]!;
    rows.push(`| \`${name}\` | ${cell(typeOf(s))} | ${cell(defaultOf(s))} | ${cell(s.description ?? '')} |`);
    // One level down (viewport.width, baseline.image); a nested request (baseline.request) is one row.
    if (s.type === 'object' && s.properties) {
      for (const [sub, ss] of Object.entries(s.properties as Record<string, Schema>)) {
        rows.push(`| \`${name}.${sub}\` | ${cell(typeOf(ss))} | ${cell(defaultOf(ss))} | ${cell(ss.description ?? '')} |`);
      }
    }
  }
  return rows.join('\n');
}

export function crossFieldRules(): string {
  return screenshotRequestSchema.allOf.map((r) => `- ${r['x-message']}`).join('\n');
}

export function errorsTable(): string {
  const rows = ['| status | `error` | when |', '|---|---|---|'];
  for (const [c, e] of Object.entries(ERROR_CATALOGUE)) rows.push(`| ${c === 'client_closed' ? `(${e.status})` : e.status} | \`${c}\` | ${cell(e.when)} |`);
  return rows.join('\n');
}

export function settingsTable(): string {
  const rows = ['| variable | default | meaning |', '|---|---|---|'];
  for (const [name, s] of Object.entries(SETTINGS)) {
    const def =
      s.kind === 'int' ? `\`${s.default}\` (${s.min}..${s.max})` : s.default === '' ? '' : s.default.startsWith('found') ? s.default : `\`${s.default}\``;
    rows.push(`| \`${name}\` | ${cell(def)} | ${cell(s.doc)} |`);
  }
  return rows.join('\n');
}

/** When a header is sent, in words: its occasions, the error codes that carry it, and whether signed links get it. */
function sentWith(h: ResponseHeader): string {
  const words = h.sent.map((o) => (o === 'error' && h.fromError?.codes ? `errors ${h.fromError.codes.map(code).join(', ')}` : OCCASIONS[o]));
  return `${words.join('; ')}${h.privateOnly ? ' (not on signed links)' : ''}`;
}

/** One row per header of the registry: name, when it is sent, whether a page on a listed origin may read it, what it says. */
export function headersTable(headers: Record<string, ResponseHeader>): string {
  const rows = ['| header | sent with | readable cross-origin | meaning |', '|---|---|---|---|'];
  for (const h of Object.values(headers))
    rows.push(`| \`${wireName(h)}\` | ${cell(sentWith(h))} | ${h.expose ? 'yes' : h.safelisted ? 'yes (safelisted)' : ''} | ${cell(h.description)} |`);
  return rows.join('\n');
}

/** The rows of server/'s rooms, top to bottom: a room imports only the rows below its own. */
export function layersTable(): string {
  const { layers } = JSON.parse(readFileSync(path.join(ROOT, 'server/layers.json'), 'utf8')) as { layers: { rooms: string[]; what: string }[] };
  const rows = ['| row | rooms | what they are |', '|---|---|---|'];
  layers.forEach((l, i) => rows.push(`| ${i + 1} | ${l.rooms.map((r) => code(r)).join(', ')} | ${cell(l.what)} |`));
  return rows.join('\n');
}

/** Every generated table, by the name its marker uses. */
export const TABLES: Record<string, () => string> = {
  'request-fields': () => fieldsTable(SPEC_FIELDS),
  'extension-fields': () => fieldsTable(EXTENSION_FIELDS),
  'cross-field-rules': crossFieldRules,
  errors: errorsTable,
  settings: settingsTable,
  'response-headers': () => headersTable(CAPTURE_HEADERS),
  'compare-fields': () => fieldsTable(COMPARE_FIELDS, compareRequestSchema.properties as Record<string, Schema>),
  'compare-headers': () => headersTable(COMPARE_HEADERS),
  'other-headers': () => headersTable(PROTOCOL_HEADERS),
  layers: layersTable,
};

const BLOCK = /(<!-- generated: ([a-z-]+) -->)[\s\S]*?(<!-- end generated -->)/g;

/** The file's text with every generated block written anew. */
export function regenerate(text: string, file: string): string {
  return text.replace(BLOCK, (_m, open: string, name: string, close: string) => {
    const make = TABLES[name];
    if (!make) throw new Error(`${file}: unknown generated table "${name}" (known: ${Object.keys(TABLES).join(', ')})`);
    return `${open}\n${make()}\n${close}`;
  });
}

/** The docs files that hold generated tables. */
export const GENERATED_FILES = ['docs/api.md', 'docs/configuration.md', 'docs/compare.md', 'docs/architecture.md'];

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const f of GENERATED_FILES) {
    const file = path.join(ROOT, f);
    const before = readFileSync(file, 'utf8');
    const after = regenerate(before, f);
    if (before === after) continue;
    stale++;
    if (check) {
      console.error(`${f} is out of date: run npm run docs`);
    } else {
      writeFileSync(file, after);
      console.log(`wrote ${f}`);
    }
  }
  process.exitCode = check && stale > 0 ? 1 : 0;
}
