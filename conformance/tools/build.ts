// `npm pack -w screenshot-conformance` runs this first (prepack): the suite compiled to JavaScript
// in dist/ (tsc, tsconfig.build.json), so that the installed package runs on plain Node with no
// TypeScript runner. dist/ mirrors the repository's layout from its root, so that every path the
// suite computes from its own location holds in both: dist/conformance/ (the suite),
// dist/lib/visual-diff/ (the diff shared with the server, compiled from the same source), and the
// data the suite reads at run time copied beside them: fixtures/pages, the consent fixtures,
// golden/ and the JSON Schema of a case.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SUITE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.dirname(SUITE);
const DIST = path.join(SUITE, 'dist');

/** What the suite reads from disk at run time (paths from the repository root), beyond what it imports. */
export const SHIPPED_DATA = [
  'fixtures/pages',
  'fixtures/consent/manifest.json',
  'fixtures/consent/origin2',
  ...readdirSync(path.join(ROOT, 'fixtures/consent'))
    .filter((f) => f.endsWith('.html'))
    .map((f) => `fixtures/consent/${f}`),
  'golden',
  'conformance/model/case.schema.json',
];

function main(): number {
  rmSync(DIST, { recursive: true, force: true });
  const tsc = spawnSync(
    process.execPath,
    [path.join(path.dirname(fileURLToPath(import.meta.resolve('typescript'))), '..', 'bin', 'tsc'), '-p', path.join(SUITE, 'tsconfig.build.json')],
    {
      stdio: 'inherit',
    },
  );
  if (tsc.status !== 0) return tsc.status ?? 1;
  for (const p of SHIPPED_DATA) {
    const from = path.join(ROOT, p);
    if (!existsSync(from)) throw new Error(`build: ${p} is missing`);
    cpSync(from, path.join(DIST, p), { recursive: true });
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main());
