// DESIGN §5: "a test checks that every code the server can send is documented in the README", and
// "every variable is in the README". Reads README.md's error table and configuration table and
// compares them with the one catalogue (server/errors.ts) and the config module (server/config.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '../../server/errors.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = path.join(ROOT, 'README.md');

function readme(): string {
  assert.ok(existsSync(README), 'README.md exists at the repository root');
  return readFileSync(README, 'utf8');
}

/** Rows of every markdown table in the README: arrays of trimmed cells. */
function tableRows(md: string): string[][] {
  return md
    .split('\n')
    .filter((l) => /^\s*\|.*\|\s*$/.test(l) && !/^\s*\|[\s:|-]+\|\s*$/.test(l))
    .map((l) => l.trim().slice(1, -1).split('|').map((c) => c.trim()));
}

test('every error code of the catalogue is in the README error table, with its status', () => {
  const rows = tableRows(readme());
  for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
    const row = rows.find((r) => r.some((c) => c === `\`${code}\``));
    assert.ok(row, `README has a table row for \`${code}\``);
    assert.ok(row.some((c) => c.replace(/[()]/g, '') === String(status)), `README gives \`${code}\` the status ${status}: | ${row.join(' | ')} |`);
    assert.ok(row.some((c) => c.length > 10), `README says when \`${code}\` is sent`);
  }
});

test('the README error table lists no code the server does not have', () => {
  const rows = tableRows(readme());
  const documented = rows
    .filter((r) => /^\(?\d{3}\)?$/.test(r[0] ?? ''))
    .map((r) => /^`([a-z_]+)`$/.exec(r[1] ?? '')?.[1])
    .filter((c): c is string => Boolean(c));
  assert.ok(documented.length > 0, 'README has an error table of status | `code` | when');
  for (const c of documented) assert.ok(c in ERROR_CATALOGUE, `README documents \`${c}\`, which server/errors.ts does not have`);
});

test('every environment variable the config reads is in the README', () => {
  const src = readFileSync(path.join(ROOT, 'server/config.ts'), 'utf8');
  const names = new Set<string>();
  for (const m of src.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  for (const m of src.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]!);
  assert.ok(names.size >= 10, `found the variables (${[...names].join(', ')})`);
  const md = readme();
  for (const n of names) assert.ok(md.includes(`\`${n}\``), `README documents \`${n}\``);
});
