// Two house rules on the files themselves: small files with one job each (no source file over 300
// lines in server/, conformance/ or lib/), and comments that point at files which exist (a path
// named in a comment is how a reader finds what the comment means; a stale one misleads).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SKIP = new Set(['node_modules', 'dist', 'data']);

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : sources(rel);
    return /\.(ts|js|mjs)$/.test(e.name) ? [rel] : [];
  });
}

const lines = (file: string) => readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;

// Until the branches that split them are merged, this names server/cleanup/index.ts and the
// suite's files over the bound.
test('no source file in server/, conformance/ or lib/ is over 300 lines', () => {
  const long = ['server', 'conformance', 'lib'].flatMap(sources).filter((f) => lines(f) > 300);
  assert.deepEqual(
    long.map((f) => `${f} (${lines(f)})`),
    [],
  );
});

/** The comments of a source file: `//` lines and block comments. */
function comments(text: string): string[] {
  return [...text.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => m[0]);
}

/** Repository paths in a comment: from a top folder of the repository, or relative to the file (starting with a dot). */
const PATH =
  /(?<![\w./-])((?:\.\.?\/)+[\w.-]+(?:\/[\w.-]+)*\/?|(?:server|conformance|lib|test|docs|scripts|bench|fixtures|deploy|golden)\/[\w.-]+(?:\/[\w.-]+)*\/?)/g;

function pathsIn(comment: string): string[] {
  return [...comment.matchAll(PATH)]
    .filter((m) => comment[m.index + m[0].length] !== '*') // a pattern (lib/cmps/*.ts), not a path
    .map((m) => m[1]!.replace(/[.]+$/, ''))
    .filter((p) => /\.\w+$|\/$/.test(p)); // a file with its extension, or a folder
}

test('every path named in a comment exists', () => {
  const stale: string[] = [];
  const dirs = ['server', 'conformance', 'lib', 'test', 'scripts', 'bench'].filter((d) => existsSync(path.join(ROOT, d)));
  for (const file of dirs.flatMap(sources)) {
    for (const c of comments(readFileSync(path.join(ROOT, file), 'utf8'))) {
      for (const p of pathsIn(c)) {
        // A relative path is the file's own; `./test/...` on a command line is the repository's.
        const found = p.startsWith('.')
          ? existsSync(path.join(path.dirname(path.join(ROOT, file)), p)) || existsSync(path.join(ROOT, p))
          : existsSync(path.join(ROOT, p));
        if (!found) stale.push(`${file}: ${p}`);
      }
    }
  }
  assert.deepEqual(stale, []);
});
