// conformance/model/case.schema.json, the JSON Schema of an exported case file, generated from the one
// case model (conformance/model/model.ts: its types and their doc comments) so that the two cannot
// drift. Run after changing model.ts (npm run docs does); conformance/self-test/cases.test.ts
// fails when the file is stale.
//   node --import tsx scripts/case-schema.ts
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGenerator } from 'ts-json-schema-generator';
import { CASE_SCHEMA_FILE } from '../conformance/model/export.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const DESCRIPTION =
  'One case of the conformance suite as plain JSON (screenshot-conformance --export DIR writes one file per case in cases/). A runner sends `request`, ' +
  'judges the response against `expect`, then does the same for each of `then` in order. Values in request bodies and tool arguments may be directives ' +
  '(see the Directive definition) that the runner replaces before sending. Every execution of a case has a random nonce: fixture URLs carry it as ' +
  "run=<nonce> in their query and fixture pages end with the comment <!-- run <nonce> -->, so that no cache can answer a case with an earlier run's " +
  'result; all steps of one execution share the nonce. Generated from conformance/model/model.ts; RUNNING.md describes the fixture server, canaries, keys and profiles.';

export function caseSchema(): string {
  const generator = createGenerator({
    path: path.join(ROOT, 'conformance/model/model.ts'),
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    skipTypeCheck: true,
    jsDoc: 'extended',
    additionalProperties: false,
    sortProps: false,
  });
  const definitions = { ...generator.createSchema('CaseFile').definitions, ...generator.createSchema('Directive').definitions };
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://screenshot-conformance/case.schema.json',
    title: 'A screenshot-conformance case',
    description: DESCRIPTION,
    allOf: [{ $ref: '#/definitions/CaseFile' }],
    definitions,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) writeFileSync(CASE_SCHEMA_FILE, caseSchema());
