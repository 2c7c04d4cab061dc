// The layer order and the ban on import cycles are rules of `npm run lint` (.dependency-cruiser.mjs
// on server/layers.json). These tests run the same rules through dependency-cruiser's API: on a
// made-up tree that breaks each of them, lint must report it; on this repository, nothing.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = pathToFileURL(path.join(ROOT, '.dependency-cruiser.mjs')).href;

async function violations(baseDir: string, dirs: string[]): Promise<IViolation[]> {
  const { forbidden } = (await import(CONFIG)).default;
  const { output } = await cruise(dirs, { baseDir, ruleSet: { forbidden }, validate: true, tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' } });
  return (output as ICruiseResult).summary.violations;
}

const said = (v: IViolation) => `${v.rule.name}: ${v.from} -> ${v.to}`;

/** A throwaway tree of TypeScript files, `{path: source}`. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'layers-'));
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), source);
  }
  return dir;
}

test('lint fails when a room imports one above it, and passes the same import downwards', async (t) => {
  const dir = tree({
    'server/toolkit/deadline.ts': "import { routes } from '../http/app.ts';\nexport const d = routes;\n",
    'server/http/app.ts': 'export const routes = 1;\n',
    'server/http/errors.ts': "import { d } from '../toolkit/deadline.ts';\nexport const e = d;\n",
  });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual((await violations(dir, ['server'])).map(said), ['room-toolkit: server/toolkit/deadline.ts -> server/http/app.ts']);
});

test('lint fails when a room imports another of its own row', async (t) => {
  const dir = tree({
    'server/blocking/index.ts': "import { c } from '../clip/index.ts';\nexport const b = c;\n",
    'server/clip/index.ts': 'export const c = 1;\n',
  });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual((await violations(dir, ['server'])).map(said), ['room-blocking: server/blocking/index.ts -> server/clip/index.ts']);
});

test('lint fails when two files import each other, in lib/, conformance/ and inside one room', async (t) => {
  const pair = (a: string, b: string) => ({
    [`${a}.ts`]: `import { y } from './${path.basename(b)}.ts';\nexport const x = () => y;\n`,
    [`${b}.ts`]: `import { x } from './${path.basename(a)}.ts';\nexport const y = () => x;\n`,
  });
  const dir = tree({
    ...pair('lib/diff/a', 'lib/diff/b'),
    ...pair('conformance/engine/c', 'conformance/engine/d'),
    ...pair('server/results/index', 'server/results/s3'),
  });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // One violation per cycle, named by a file of it.
  const found = (await violations(dir, ['server', 'lib', 'conformance'])).map((v) => `${v.rule.name}: ${path.dirname(v.from)}`);
  assert.deepEqual(found.sort(), ['no-cycle: conformance/engine', 'no-cycle: lib/diff', 'no-cycle: server/results']);
});

test('a room named in no row is a feature room: it may import the toolkit, not the store or another feature room', async (t) => {
  const dir = tree({
    'server/grayscale/index.ts':
      "import { s } from '../toolkit/step-shape.ts';\nimport { db } from '../store/index.ts';\nimport { c } from '../clip/index.ts';\nexport const g = [s, db, c];\n",
    'server/toolkit/step-shape.ts': 'export const s = 1;\n',
    'server/store/index.ts': 'export const db = 1;\n',
    'server/clip/index.ts': 'export const c = 1;\n',
  });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual((await violations(dir, ['server'])).map(said).sort(), [
    'room-unnamed: server/grayscale/index.ts -> server/clip/index.ts',
    'room-unnamed: server/grayscale/index.ts -> server/store/index.ts',
  ]);
});

test('a room is named in one row only', () => {
  const { layers } = JSON.parse(readFileSync(path.join(ROOT, 'server/layers.json'), 'utf8')) as { layers: { rooms: string[] }[] };
  const named = layers.flatMap((l) => l.rooms);
  assert.deepEqual(
    named.filter((r, i) => named.indexOf(r) !== i),
    [],
  );
});

test('server/ and lib/ keep the layer order and have no import cycles', async () => {
  assert.deepEqual((await violations(ROOT, ['server', 'lib'])).map(said), []);
});

// The suite's own cycles (engine/exchange.ts with mcp-client.ts, mutants/, properties/) are being
// taken apart on the suite's branch: until it is merged this test fails, and says where.
test('conformance/ has no import cycles', async () => {
  assert.deepEqual((await violations(ROOT, ['conformance'])).map(said), []);
});
