// The properties profile (conformance/properties/): its generators against the reference's own
// request validation (every drawn valid request is valid, every drawn malformed field is refused
// naming that field), its oracle's arithmetic, and the engine against a small implementation of
// our own over loopback that is wrong in one way: the failure is found, shrunk, told as JSON and
// curl with the seed and path, and the path replays it.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import fc from 'fast-check';
import { validateRequest } from '../../server/request/validate.ts';
import { REPO_ROOT } from '../fixture-pages/fixtures.ts';
import { undiciClient } from '../engine/http.ts';
import type { RunEnv } from '../engine/execute.ts';
import { EXTENSION_FIELDS } from '../pairwise/extension-values.ts';
import { runProperties } from '../properties/engine.ts';
import { propertiesExplorer } from '../properties/index.ts';
import { PROPERTIES } from '../properties/list.ts';
import { parseArgs, UsageError } from '../cli/options.ts';
import { fieldsFor, KNOWN_FIELDS, malformedOf, REQUEST_SCHEMA, SPEC_FIELDS } from '../properties/fields.ts';
import { shotOf, validDraft, MAX_PIXELS } from '../properties/valid.ts';
import path from 'node:path';

const ALL = new Set(Object.keys(REQUEST_SCHEMA.properties));
/** Directives as the runner resolves them, for the validator (the page itself does not matter to it). */
const resolved = (b: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(b).replace(/\{"\$fixture(Url)?":"[^"]*"\}/g, (_m, url) => (url ? '"https://example.com/p"' : '"<p>"')));

test('every drawn valid request passes the reference validation, within the pixel budget, at whole device pixels', () => {
  fc.assert(
    fc.property(validDraft({ url: true, declared: ALL }), (d) => {
      const shot = shotOf(d);
      validateRequest(resolved(shot.body));
      for (const s of shot.sizes) assert.ok(s.width * s.height <= MAX_PIXELS * 1.1, `${s.width}x${s.height}`);
      const img = shot.expect.image!;
      assert.ok(Number.isInteger(img.width) && Number.isInteger(img.height));
      if (shot.body.format === 'webp') assert.ok(Math.max(img.width!, img.height!) <= 16383);
    }),
    { seed: 42, numRuns: 400 },
  );
});

test('the edges are drawn: exact limits, fractions, 50 hideSelectors, selectors in other scripts, every declared extension value', () => {
  const seen = new Set<string>();
  fc.assert(
    fc.property(validDraft({ url: true, declared: ALL }), (d) => {
      const b = shotOf(d).body as Record<string, any>;
      const vp = b.viewport;
      if (vp?.width === 10000 || vp?.height === 10000) seen.add('10000');
      if (vp?.width === 1 || vp?.height === 1) seen.add('1');
      if (vp?.deviceScaleFactor === 0.1) seen.add('scale 0.1');
      if (vp?.deviceScaleFactor === 4) seen.add('scale 4');
      if (vp && !Number.isInteger(vp.width)) seen.add('fractional width');
      if (b.quality === 1 || b.quality === 100) seen.add('quality limit');
      if (typeof b.quality === 'number' && !Number.isInteger(b.quality)) seen.add('fractional quality');
      if (b.hideSelectors?.length === 50) seen.add('50 hideSelectors');
      if (b.hideSelectors?.some((s: string) => s.length === 500)) seen.add('500 characters');
      if (typeof b.selector === 'string' && /[^\x20-\x7e]/.test(b.selector)) seen.add('selector outside ASCII');
      for (const f of EXTENSION_FIELDS) if (b[f.field] !== undefined) seen.add(f.field);
    }),
    { seed: 7, numRuns: 400 },
  );
  const want = [
    '10000',
    '1',
    'scale 0.1',
    'scale 4',
    'fractional width',
    'quality limit',
    'fractional quality',
    '50 hideSelectors',
    '500 characters',
    'selector outside ASCII',
  ];
  for (const w of [...want, ...EXTENSION_FIELDS.map((f) => f.field)]) assert.ok(seen.has(w), `never drawn: ${w}`);
});

test('every drawn malformed field is refused by the reference validation with a message naming it', () => {
  for (const field of fieldsFor(ALL)) {
    fc.assert(
      fc.property(malformedOf(field), (m) => {
        const body: Record<string, unknown> = field === 'url' ? {} : { html: '<p>' };
        if (field === 'quality') body.format = 'jpeg';
        if (m.path.length === 1) body[field] = m.value;
        else {
          const parent: Record<string, unknown> = field === 'viewport' ? { width: 10, height: 10 } : {};
          if (m.value === undefined) delete parent[m.path[1]!];
          else parent[m.path[1]!] = m.value;
          body[field] = parent;
        }
        assert.throws(
          () => validateRequest(body),
          (e: Error) => new RegExp(`\\b${m.names}\\b`).test(e.message),
          `${field}: ${m.path.join('.')} ${m.what} (${JSON.stringify(m.value)?.slice(0, 60)})`,
        );
      }),
      { seed: 3, numRuns: 40 },
    );
  }
  assert.ok(SPEC_FIELDS.every((f) => KNOWN_FIELDS.has(f)));
});

/** A small implementation of our own: right in every way but one (a 500 for any hideSelectors list of two or more entries). */
async function brokenImplementation(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let b: any;
      try {
        b = JSON.parse(raw);
      } catch {
        b = null;
      }
      const fail = (status: number, error: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error, message: `${error}: hideSelectors` }));
      };
      if (b && typeof b === 'object' && Array.isArray(b.hideSelectors) && b.hideSelectors.length >= 2) return fail(500, 'internal');
      return fail(400, 'bad_request');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

test('a failure is shrunk to the smallest request, told as JSON and curl with seed and path, and the path replays it', async () => {
  const impl = await brokenImplementation();
  const env: RunEnv = {
    baseUrl: impl.url,
    apiKeys: ['k1'],
    fixtureOrigins: [],
    canary: false,
    isolatedNetwork: false,
    goldenDir: path.join(REPO_ROOT, 'golden'),
    updateGolden: false,
  };
  try {
    const [r] = await runProperties(env, undiciClient, { seed: 11, runs: 200, workers: 1 }, undefined, ['no-5xx']);
    assert.equal(r!.verdict, 'fail');
    const told = r!.checks.find((k) => k.name === 'smallest failing request')!.detail;
    const json = JSON.parse(/request \(JSON\): (.*)/.exec(told)![1]!);
    assert.equal(json.hideSelectors.length, 2, told); // shrunk to the smallest list that fails
    assert.match(told, /curl -sS .* -X POST 'http:\/\/127\.0\.0\.1:\d+\/v1\/screenshot' -H "authorization: Bearer \$API_KEY"/);
    assert.match(told, /--seed 11 --replay-path '[\d:]+'/);
    const replayPath = /--replay-path '([\d:]+)'/.exec(told)![1]!;
    const [again] = await runProperties(env, undiciClient, { seed: 11, workers: 1, replayPath }, undefined, ['no-5xx']);
    assert.equal(again!.verdict, 'fail');
    assert.equal(/request \(JSON\): (.*)/.exec(again!.checks.at(-1)!.detail)![1], JSON.stringify(json));
  } finally {
    impl.server.close();
  }
});

test('--seed, --runs and --replay-path reach the properties, and every report carries the seed', () => {
  const flags = ['--base-url', 'http://impl.test', '--api-key', 'k', '--profile', 'core,properties', '--seed', '5', '--runs', '3'];
  const { options } = parseArgs([...flags, '--grep', '^properties', '--replay-path', '1:2']);
  assert.deepEqual([options.seed, options.runs, options.replayPath], [5, 3, '1:2']);
  assert.throws(() => parseArgs(['--base-url', 'http://impl.test', '--api-key', 'k', '--runs', '0']), UsageError);
  assert.throws(() => parseArgs(['--base-url', 'http://impl.test', '--api-key', 'k', '--seed', 'x']), UsageError);
  assert.throws(() => parseArgs(['--base-url', 'http://impl.test', '--api-key', 'k', '--replay-path', '1:2']), /--grep/);
  const explorer = propertiesExplorer(options);
  assert.equal(explorer.count, PROPERTIES.length);
  assert.match(explorer.note, /seed 5, 3 runs per property, replaying path 1:2/);
  assert.deepEqual(explorer.runInfo, { properties: { seed: 5, runs: 3, defaultRuns: false, replayPath: '1:2' } });
  assert.equal(propertiesExplorer({ ...options, profiles: ['core'] }).count, 0); // nothing runs, the ids still count for an expectations file
  assert.deepEqual(
    propertiesExplorer({ ...options, profiles: ['core'] }).ids,
    PROPERTIES.map((p) => `properties.${p.id}`),
  );
  const drawn = propertiesExplorer({ ...options, seed: undefined, grep: '^properties\\.valid$' });
  assert.equal(drawn.count, 1);
  assert.match(drawn.note, /seed \d+/); // a run without --seed draws one and says which
});
