// No header name is spelled in server/ outside its registry: response headers in
// server/response/, request headers in server/kinds/headers.ts; everything else reads them from
// there (HEADER.allow, REQUEST_HEADER.cacheControl). Scans every string literal of server/'s code
// (TypeScript's parser, so comments and prose inside longer strings do not count) for a known
// header name, or anything shaped like an `x-` header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REQUEST_HEADERS } from '../kinds/headers.ts';
import { HEADER_LIST } from './registry.ts';

const SERVER = path.resolve(import.meta.dirname, '..');

/** Where header names may be spelled, and why. */
const ALLOWED_PLACES: Record<string, string> = {
  'response/': 'the response registry itself',
  'kinds/headers.ts': "the request headers' registry",
  'egress/': "the egress proxy speaks HTTP with Chromium, not with this server's clients",
  'page-env/': "the page's own requests to its target (headers a caller may not set there)",
};

/** Literals shaped like `x-` headers that are not header names. */
const NOT_HEADERS = new Set([
  'x-rule', // JSON Schema annotation of the request schema (server/request/schema.ts)
  'x-message', // the same, for cross-field rules
  'x-suggest', // the same: a 400 for this field names the closest allowed values
  'x-max-bytes', // the same: a string's bound in UTF-8 bytes (validate.ts checks it)
  'x-group', // the same: a field's group of options (server/request/groups.ts), kept in /openapi.json for forms
  'x-groups', // the groups themselves, as /openapi.json lists them (the playground reads them)
]);

const KNOWN = new Set([...HEADER_LIST.map((h) => h.name), ...Object.values(REQUEST_HEADERS).map((h) => h.name)].map((n) => n.toLowerCase()));
const X_HEADER = /^x-[a-z0-9]+(-[a-z0-9]+)*$/i;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** A call whose first argument names something else than a header: an event, an Express setting. */
function namesSomethingElse(node: ts.Node): boolean {
  const call = node.parent;
  if (!ts.isCallExpression(call) || call.arguments[0] !== node || !ts.isPropertyAccessExpression(call.expression)) return false;
  const method = call.expression.name.text;
  if (['on', 'once', 'off', 'emit', 'removeListener'].includes(method)) return true;
  return ['set', 'enable', 'disable'].includes(method) && ts.isIdentifier(call.expression.expression) && call.expression.expression.text === 'app';
}

/** Every string literal of a file that is a header name, with its line. */
function headerLiterals(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS,
  );
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !namesSomethingElse(node)) {
      const text = node.text.trim();
      if (KNOWN.has(text.toLowerCase()) || (X_HEADER.test(text) && !NOT_HEADERS.has(text))) {
        found.push(`${path.relative(SERVER, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} '${text}'`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no header name is spelled in server/ outside the registries', () => {
  const scanned = files(SERVER).filter((f) => !Object.keys(ALLOWED_PLACES).some((p) => path.relative(SERVER, f).startsWith(p)));
  assert.ok(scanned.length > 50, `scanned ${scanned.length} files`);
  assert.deepEqual(scanned.flatMap(headerLiterals), [], 'use HEADER.<id> (server/response/registry.ts) or REQUEST_HEADER.<id> (server/kinds/headers.ts)');
});

test('the scan finds what it looks for', () => {
  const probe = path.join(SERVER, 'response', 'literals.test.ts');
  const hits = headerLiterals(probe);
  // This file spells two header-shaped literals of its own on purpose (below), and no others.
  assert.deepEqual(
    hits.map((h) => h.replace(/:\d+ /, ' ')),
    ["response/literals.test.ts 'X-Made-Up'", "response/literals.test.ts 'retry-after'"],
  );
});

// Seen by the test above: a made-up x- header and a registry name, each in a literal.
void ['X-Made-Up', 'retry-after'];
