// Language-neutral cases: `--export DIR` writes every case as plain JSON in the shape
// of case.schema.json, with what a runner in any language needs beside them:
//   DIR/index.json           suite version, the cases (id, profile, file) and how to run them
//   DIR/case.schema.json     the JSON Schema of a case file (it documents directives and checks)
//   DIR/cases/<id>.json      one case, its rules quoted (clauses)
//   DIR/fixtures/pages/...   the fixture pages, fonts inlined ({$fixture})
//   DIR/fixtures/consent/... the consent pages ({$consentFixture}; origin2/ is the second origin's root)
//   DIR/golden/*.png         the goldens
// `--cases DIR` runs such an export through this runner (loadExport): the round trip is tested.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { CONSENT_DIR, inlineFonts, PAGES_DIR } from '../fixture-pages/fixtures.ts';
import type { Case } from './model.ts';
import { SUITE_VERSION } from '../engine/options.ts';
import { RULES_BY_ID } from './rules.ts';

export const CASE_SCHEMA_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'case.schema.json');

let validator: ((c: unknown) => string | null) | undefined;

/** Validates one case (as JSON) against case.schema.json: null, or the first errors in words. */
export function schemaErrors(c: unknown): string | null {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
    const validate = ajv.compile(JSON.parse(readFileSync(CASE_SCHEMA_FILE, 'utf8')) as object);
    validator = (x) => (validate(x) ? null : ajv.errorsText(validate.errors?.slice(0, 5)));
  }
  return validator(c);
}

function copyTree(from: string, to: string, transform: (file: string, data: Buffer) => Buffer | string = (_f, d) => d): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const src = path.join(from, name);
    if (statSync(src).isDirectory()) copyTree(src, path.join(to, name), transform);
    else writeFileSync(path.join(to, name), transform(src, readFileSync(src)));
  }
}

const htmlFonts = (file: string, data: Buffer) => (file.endsWith('.html') ? inlineFonts(data.toString('utf8')) : data);

export function exportCases(dir: string, cases: Case[], goldenDir: string): { cases: number } {
  mkdirSync(path.join(dir, 'cases'), { recursive: true });
  copyFileSync(CASE_SCHEMA_FILE, path.join(dir, 'case.schema.json'));
  const index = cases.map((c) => {
    const file = `cases/${c.id}.json`;
    const clauses = c.rules.map((id) => {
      const r = RULES_BY_ID.get(id)!;
      return { id, source: r.source, quote: r.quote };
    });
    writeFileSync(path.join(dir, file), `${JSON.stringify({ $schema: '../case.schema.json', ...c, clauses }, null, 2)}\n`);
    return { id: c.id, profile: c.profile, file };
  });
  writeFileSync(
    path.join(dir, 'index.json'),
    `${JSON.stringify(
      {
        suiteVersion: SUITE_VERSION,
        format: 'case.schema.json: one case per file; run them with any runner, or with screenshot-conformance --cases DIR',
        profiles:
          "core: the spec only; reference: core plus the reference server decisions; security: the threat model (needs canaries and fixtures on the implementation host); extensions: fields beyond the spec, each case run only where the implementation's OpenAPI document declares its fields",
        fixtures:
          'url-mode cases need the fixture server: screenshot-conformance --serve-fixtures --fixtures-port N (routes in RUNNING.md); html fixtures are in fixtures/',
        cases: index,
      },
      null,
      2,
    )}\n`,
  );
  copyTree(PAGES_DIR, path.join(dir, 'fixtures', 'pages'), htmlFonts);
  copyTree(CONSENT_DIR, path.join(dir, 'fixtures', 'consent'), htmlFonts);
  copyTree(goldenDir, path.join(dir, 'golden'));
  return { cases: index.length };
}

/** The cases of an export, validated against the schema, as the runner takes them. */
export function loadExport(dir: string): Case[] {
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { cases: Array<{ file: string }> };
  return index.cases.map(({ file }) => {
    const raw = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Case & { $schema?: string; clauses?: unknown };
    const errors = schemaErrors(raw);
    if (errors) throw new Error(`${file}: not a case: ${errors}`);
    const { $schema: _s, clauses: _c, ...c } = raw;
    return c;
  });
}
