// What the published conformance suite needs from the reference server, as data: the request
// schema as clients see it and its cross-field rules in words (the MCP cases check that the
// reference's tool takes exactly the REST body). The suite ships this JSON, not the server's
// source; test/docs/suite-data.test.ts fails when it is stale.
//   node --import tsx scripts/suite-data.ts
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CROSS_FIELD_RULES, publicSchema } from '../server/request/schema.ts';

export const SUITE_DATA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../conformance/data/reference-request.json');

export function suiteData(): string {
  return `${JSON.stringify({ schema: publicSchema(), crossFieldRules: CROSS_FIELD_RULES }, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) writeFileSync(SUITE_DATA_FILE, suiteData());
