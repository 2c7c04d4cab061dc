// The batches' SQL is in one file, server/batches/sql.ts, each statement named there: a reader
// finds every statement that touches the batch tables (and pg-boss's) in one place, and a
// statement written inline elsewhere in server/batches fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIR = 'server/batches';
const HOME = `${DIR}/sql.ts`;

/** The source without its comments (a comment may say "SELECT" without being a statement). */
const code = (file: string) => readFileSync(path.join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g, '');

/** String literals that open with a statement's first words. */
const STATEMENT = /['"`]\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+(\s+\w+)?\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s*\()/gi;

const statements = (file: string) => [...code(file).matchAll(STATEMENT)].map((m) => `${file}: ${m[1]!.trim()}`);

test('every SQL statement of server/batches is in sql.ts', () => {
  const files = readdirSync(path.join(ROOT, DIR))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${DIR}/${f}`);
  assert.ok(statements(HOME).length >= 10, 'the pattern finds the statements where they are');
  assert.deepEqual(files.filter((f) => f !== HOME).flatMap(statements), []);
});
