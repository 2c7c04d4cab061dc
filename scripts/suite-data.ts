// What the published conformance suite needs from the reference server, as data: the request
// schema as clients see it and its cross-field rules in words (the MCP cases check that the
// reference's tool takes exactly the REST body), and the bounds in UTF-8 bytes that JSON Schema
// cannot say (`x-max-bytes`, stripped from what clients see), so that the suite judges every limit
// at its exact value from this file alone. The suite ships this JSON, not the server's source;
// test/docs/suite-data.test.ts fails when it is stale.
//   node --import tsx scripts/suite-data.ts
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CROSS_FIELD_RULES, HTML_MAX_BYTES, publicSchema, screenshotRequestSchema } from '../server/request/schema.ts';

export const SUITE_DATA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../conformance/data/reference-request.json');

/** Top-level fields bounded in UTF-8 bytes: field -> the most bytes it may hold (html's is checked apart from the schema, validate.ts). */
function byteBounds(): Record<string, number> {
  const props = screenshotRequestSchema.properties as Record<string, { 'x-max-bytes'?: number }>;
  const marked = Object.entries(props).flatMap(([k, v]) => (v['x-max-bytes'] === undefined ? [] : [[k, v['x-max-bytes']] as const]));
  return Object.fromEntries([['html', HTML_MAX_BYTES], ...marked]);
}

export function suiteData(): string {
  return `${JSON.stringify({ schema: publicSchema(), crossFieldRules: CROSS_FIELD_RULES, byteBounds: byteBounds() }, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) writeFileSync(SUITE_DATA_FILE, suiteData());
