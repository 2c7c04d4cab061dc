// The conformance suite ships the reference's request schema as data (conformance/data/), written
// from the one schema by scripts/suite-data.ts: it must be what that script writes today.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SUITE_DATA_FILE, suiteData } from '../../scripts/suite-data.ts';

test('conformance/data/reference-request.json is the schema as served (node --import tsx scripts/suite-data.ts)', () => {
  assert.equal(readFileSync(SUITE_DATA_FILE, 'utf8'), suiteData());
});
