// Writes fixtures/pages/pairwise.html from the geometry in fixture.ts:
//   node --import tsx conformance/pairwise/write-fixture.ts
// The self-test (conformance/self-test/pairwise.test.ts) fails when the file is out of date.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PAGES_DIR } from '../fixture-pages/fixtures.ts';
import { FIXTURE_NAME, fixtureHtml } from './fixture.ts';

export const FIXTURE_FILE = path.join(PAGES_DIR, `${FIXTURE_NAME}.html`);

if (process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('pairwise', 'write-fixture.ts'))) {
  writeFileSync(FIXTURE_FILE, fixtureHtml());
  console.log(`wrote ${path.relative(process.cwd(), FIXTURE_FILE)}`);
}
