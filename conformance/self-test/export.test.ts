// Language-neutral cases: `--export DIR` writes every case as plain JSON valid against
// case.schema.json, with the fixtures and goldens; the export reads back as the same cases, and
// the runner gives the same verdicts for the exported cases as for its own (against a fake
// implementation served by msw: the round trip is about the data and the runner, not a browser).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { main } from '../cli/bin.ts';
import { allCases } from '../cases/index.ts';
import { loadExport, schemaErrors } from '../model/export.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { fetchClient } from '../engine/http.ts';
import { encodePng, solid } from '../engine/image.ts';
import type { SuiteOptions } from '../engine/options.ts';
import { runSuite } from '../engine/runner.ts';

const BASE = 'http://impl.test';
const dir = mkdtempSync(path.join(os.tmpdir(), 'conformance-export-'));
const reportDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-export-report-'));
// A fake implementation: a green PNG of the requested viewport for valid-looking bodies, a
// field-naming 400 for a few malformed ones; right for some cases, wrong for others.
const server = setupServer(
  http.post(`${BASE}/v1/screenshot`, async ({ request }) => {
    const b = (await request.json().catch(() => null)) as { viewport?: { width?: unknown; height?: unknown }; format?: unknown } | null;
    const w = b?.viewport?.width;
    const h = b?.viewport?.height;
    if (typeof w !== 'number' || typeof h !== 'number' || w < 1 || h < 1 || w > 10000 || h > 10000)
      return HttpResponse.json({ error: 'bad_request', message: 'viewport.width and viewport.height must be numbers between 1 and 10000' }, { status: 400 });
    if (b?.format !== undefined && b.format !== 'png') return HttpResponse.json({ error: 'bad_request', message: 'format must be png here' }, { status: 400 });
    return new HttpResponse(encodePng(solid(w, h, [0x20, 0xa0, 0x40, 255])), {
      headers: { 'content-type': 'image/png', 'content-disposition': 'inline; filename="s.png"' },
    });
  }),
);
before(() => server.listen({ onUnhandledFrame: 'error' }));
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(reportDir, { recursive: true, force: true });
});

test('--export writes every case, its schema, the fixtures and the goldens', async () => {
  assert.equal(await main(['--export', dir]), 0);
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { cases: Array<{ id: string; file: string }> };
  assert.equal(index.cases.length, allCases().length);
  const one = JSON.parse(readFileSync(path.join(dir, 'cases', 'viewport.share-card-retina-2x.json'), 'utf8')) as {
    clauses: Array<{ id: string; quote: string }>;
    expect: { golden: { guards: string; mask: unknown[] } };
  };
  assert.equal(schemaErrors(one), null);
  assert.match(one.clauses[0]!.quote, /deviceScaleFactor/);
  assert.ok(one.expect.golden.guards && one.expect.golden.mask.length > 0);
  assert.ok(existsSync(path.join(dir, 'case.schema.json')));
  assert.deepEqual(readdirSync(path.join(dir, 'golden')).sort(), readdirSync(path.join(REPO_ROOT, 'golden')).sort());
  assert.match(readFileSync(path.join(dir, 'fixtures', 'pages', 'share-card.html'), 'utf8'), /data:font\/woff2;base64,/);
  assert.ok(existsSync(path.join(dir, 'fixtures', 'consent', 'manifest.json')));
});

test('the export reads back as the same cases', () => {
  assert.deepEqual(loadExport(dir), JSON.parse(JSON.stringify(allCases())));
});

test('a case that breaks the schema is refused with the reason', () => {
  assert.match(
    schemaErrors({ id: 'x', must: 'm', rules: ['2.1/url'], profile: 'core', request: {}, expect: { status: 200, colour: 'red' } }) ?? '',
    /additional/,
  );
});

test('the runner gives the exported cases the verdicts it gives its own', async () => {
  const options: SuiteOptions = {
    baseUrl: BASE,
    apiKeys: ['k'],
    profiles: ['reference'],
    fixtureOrigins: [],
    canary: false,
    isolatedNetwork: false,
    updateGolden: false,
    goldenDir: path.join(dir, 'golden'),
    reportDir,
    workers: 4,
    grep: '^(one-of\\.|quality\\.with|bounds\\.(width|height)\\.|viewport\\.(missing|default|share-card)|format\\.|selector\\.element-box)',
  };
  const own = await runSuite({ ...options, goldenDir: path.join(REPO_ROOT, 'golden') }, { http: fetchClient, quiet: true });
  const exported = await runSuite(options, { cases: loadExport(dir), http: fetchClient, quiet: true });
  const verdicts = (r: typeof own) => r.records.map((x) => [x.case.id, x.verdict, x.checks.map((k) => `${k.name}:${k.pass}`).join(',')]);
  assert.ok(own.records.length >= 20, `${own.records.length} cases`);
  assert.ok(own.tally.pass > 0 && own.tally.fail > 0, 'the fake is right for some cases and wrong for others');
  assert.deepEqual(verdicts(exported), verdicts(own));
});
