// POST /v1/compare (docs/compare.md) over real HTTP against one reference server: identical
// deterministic captures compare to 0; a one-element change is found with its exact box (at
// deviceScaleFactor 2 too); ignoreSelectors masks a ticking clock; pictures of different sizes are
// a difference, reported; a baseline that is not an image is a 400 naming baseline.image; billing
// (two captures, a cached one, a failed one: neither billed); the JSON answer; signed links.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Account } from '../../server/accounts/index.ts';
import { createKey } from '../../server/accounts/admin.ts';
import type { SqlLedger } from '../../server/accounts/ledger.ts';
import { makeCompareLink } from '../../server/compare/link.ts';
import { canonicalQuery, parseQuery } from '../../server/links/canonical.ts';
import { resolveKek } from '../../server/links/kek.ts';
import { rotateSigningSecret } from '../../server/links/secrets.ts';
import { signPairs } from '../../server/links/verify.ts';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { call, shoot, show, type Reply } from '../support/http.ts';
import { decode, keep, solidPng } from '../support/image.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VP = { width: 200, height: 120 };
const moving = readFileSync(path.join(ROOT, 'fixtures/pages/ext-moving.html'), 'utf8');
/** A page with a grey block; with `extra`, a second element placed exactly. */
const blocks = (extra = '') =>
  `<body style="margin:0;background:#fff"><div style="position:absolute;left:10px;top:10px;width:60px;height:30px;background:#888"></div>${extra}</body>`;
const RED_BOX = '<div style="position:absolute;left:120px;top:50px;width:40px;height:25px;background:#d00"></div>';
/** A clock that ticks: each capture shows another time (and random digits, so two captures in one millisecond differ too). */
const clock = `<body style="margin:0;background:#fff;font:20px sans-serif"><div style="position:absolute;left:10px;top:10px;width:80px;height:30px;background:#3a6"></div>
<div id="clock" style="position:absolute;left:95px;top:60px;width:100px;height:30px;overflow:hidden;white-space:nowrap"></div>
<script>document.getElementById('clock').textContent = String(Date.now() % 100000) + Math.random().toString().slice(2, 6);</script></body>`;

let fx: Fixture;
let srv: TestServer;
let db: SqlLedger['db'];
let kek: Buffer;

interface Key {
  key: string;
  keyId: string;
  secret: string;
  account: Account;
}

async function newKey(credits = 20): Promise<Key> {
  const made = await createKey(db, { label: 'compare test', credits });
  const secret = await rotateSigningSecret(db, kek, made.keyId, 0);
  return { key: made.key, keyId: made.keyId, secret, account: { id: made.accountId, keyId: made.keyId } };
}
const balance = (k: Key) => srv.server.accounts.balance(k.account);
const compare = (body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) => call(srv.url, '/v1/compare', body, opts);
const regions = (r: Reply) => JSON.parse(r.headers.get('x-diff-regions') ?? 'null') as Array<{ x: number; y: number; width: number; height: number }>;

before(async () => {
  fx = await startFixture();
  page(fx, '/page', blocks());
  page(fx, '/gone', '<body>gone</body>');
  fx.route('/missing', (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<body>missing</body>');
  });
  srv = await startTestServer({ CACHE_TTL_SECONDS: '300' }, fx);
  db = (srv.server.accounts as SqlLedger).db;
  kek = resolveKek(srv.config)!;
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

describe('POST /v1/compare', () => {
  test('two deterministic captures of a page with random colours, a clock and an animation compare to 0; both captures billed', async () => {
    const k = await newKey();
    const req = { html: moving, viewport: VP, deterministic: true };
    const r = await compare({ ...req, baseline: { request: req } }, { key: k.key });
    assert.equal(r.status, 200, show(r));
    assert.equal(r.headers.get('content-type'), 'image/png');
    assert.equal(r.headers.get('x-diff-pixels'), '0');
    assert.equal(r.headers.get('x-diff-ratio'), '0');
    assert.deepEqual(regions(r), []);
    assert.equal(r.headers.get('x-current-size'), '200x120');
    assert.equal(r.headers.get('x-baseline-size'), '200x120');
    assert.equal(r.headers.get('x-credits-charged'), '2');
    assert.equal(r.headers.get('x-credits-remaining'), '18');
    assert.equal(await balance(k), 18);
    assert.equal(r.headers.get('content-disposition'), 'inline; filename="diff.png"');
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [200, 120]);
    // Without deterministic the same page differs (the control: the 0 above is not a coincidence).
    const loose = await compare({ html: moving, viewport: VP, baseline: { request: { html: moving, viewport: VP } } });
    assert.ok(Number(loose.headers.get('x-diff-pixels')) > 0, show(loose));
  });

  test('a one-element change is found with its exact box, in picture pixels at deviceScaleFactor 1 and 2', async () => {
    for (const dsf of [1, 2]) {
      const viewport = { ...VP, deviceScaleFactor: dsf };
      const r = await compare({ html: blocks(RED_BOX), viewport, baseline: { request: { html: blocks(), viewport } } });
      assert.equal(r.status, 200, show(r));
      assert.deepEqual(regions(r), [{ x: 120 * dsf, y: 50 * dsf, width: 40 * dsf, height: 25 * dsf }], `dsf ${dsf}`);
      assert.equal(r.headers.get('x-diff-pixels'), String(40 * 25 * dsf * dsf));
      assert.equal(r.headers.get('x-diff-ratio'), ((40 * 25) / (200 * 120)).toFixed(8), 'plain decimals, 8 places');
      keep(`compare-one-element-${dsf}x.png`, r.body);
      const img = await decode(r.body);
      assert.deepEqual(img.at(130 * dsf, 60 * dsf).slice(0, 3), [255, 0, 0], 'the change in red');
      const grey = img.at(30 * dsf, 20 * dsf);
      assert.ok(grey[0] === grey[1] && grey[1] === grey[2] && grey[0] > 150 && grey[0] < 250, `the unchanged block in light grey, got ${grey}`);
    }
  });

  test('ignoreSelectors masks a ticking clock (its box in both pictures); the clock alone differs without it', async () => {
    const req = { html: clock, viewport: { ...VP, deviceScaleFactor: 2 } };
    const ticking = await compare({ ...req, baseline: { request: req } });
    assert.equal(ticking.status, 200, show(ticking));
    assert.ok(Number(ticking.headers.get('x-diff-pixels')) > 0, 'the clock changed');
    for (const r of regions(ticking))
      assert.ok(r.x >= 190 && r.y >= 120 && r.x + r.width <= 390 && r.y + r.height <= 180, `within the clock's box: ${JSON.stringify(r)}`);
    const masked = await compare({ ...req, baseline: { request: req }, ignoreSelectors: ['#clock', '.nothing-matches'] });
    assert.equal(masked.status, 200, show(masked));
    assert.equal(masked.headers.get('x-diff-pixels'), '0');
    keep('compare-clock-masked.png', masked.body);
    const img = await decode(masked.body);
    const tint = img.at(300, 150);
    assert.ok(tint[2] > tint[0] + 40, `the masked box tinted blue, got ${tint}`);
    // ignoreRegions does the same with a rectangle.
    const region = await compare({ ...req, baseline: { request: req }, ignoreRegions: [{ x: 190, y: 120, width: 200, height: 60 }] });
    assert.equal(region.headers.get('x-diff-pixels'), '0', show(region));
    const bad = await compare({ ...req, baseline: { request: req }, ignoreSelectors: ['#ok', 'a[[['] });
    assert.equal(bad.status, 400, show(bad));
    assert.equal(bad.json.message, 'ignoreSelectors[1] must be a valid CSS selector');
  });

  test('a baseline picture: a previous capture compares to 0, billed once; the JSON answer has the figures and both pictures', async () => {
    const k = await newKey();
    const before = await shoot(srv.url, { html: blocks(), viewport: VP }, { key: k.key });
    assert.equal(before.status, 200);
    const r = await compare(
      { html: blocks(RED_BOX), viewport: VP, baseline: { image: before.body.toString('base64') } },
      { key: k.key, headers: { accept: 'application/json' } },
    );
    assert.equal(r.status, 200, show(r));
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(r.headers.get('content-disposition'), null);
    assert.equal(r.headers.get('x-diff-pixels'), '1000');
    const j = r.json;
    assert.equal(j.diffPixels, 1000);
    assert.deepEqual(j.regions, [{ x: 120, y: 50, width: 40, height: 25 }]);
    assert.deepEqual([j.credits.charged, j.credits.remaining], [1, 18]);
    assert.deepEqual(j.baseline, { width: 200, height: 120, image: true });
    assert.equal(j.current.cache, 'miss');
    assert.equal(j.diff.mimeType, 'image/png');
    assert.equal((await decode(Buffer.from(j.diff.data, 'base64'))).width, 200);
    const capture = Buffer.from(j.capture.data, 'base64');
    // The capture is the next baseline: compared with itself, nothing changed.
    const again = await compare({ html: blocks(RED_BOX), viewport: VP, baseline: { image: `data:image/png;base64,${capture.toString('base64')}` } });
    assert.equal(again.headers.get('x-diff-pixels'), '0', show(again));
  });

  test('pictures of different sizes: a difference, reported with both sizes, never an error', async () => {
    const baseline = await solidPng(200, 100, [255, 255, 255]);
    const r = await compare({ html: blocks(), viewport: VP, baseline: { image: baseline.toString('base64') } });
    assert.equal(r.status, 200, show(r));
    assert.equal(r.headers.get('x-current-size'), '200x120');
    assert.equal(r.headers.get('x-baseline-size'), '200x100');
    assert.equal(r.headers.get('x-diff-pixels'), String(60 * 30 + 200 * 20), 'the block and the rows only the current picture has');
    assert.deepEqual(regions(r), [
      { x: 10, y: 10, width: 60, height: 30 },
      { x: 0, y: 100, width: 200, height: 20 },
    ]);
    const wider = await compare({ html: blocks(), viewport: VP, baseline: { image: (await solidPng(260, 120, [255, 255, 255])).toString('base64') } });
    assert.equal(wider.status, 200, show(wider));
    assert.deepEqual([(await decode(wider.body)).width, wider.headers.get('x-baseline-size')], [260, '260x120']);
  });

  test('a baseline that is not an image: 400 naming baseline.image, not billed; too large: 413', async () => {
    const k = await newKey();
    for (const image of [
      Buffer.from('<html>not a picture</html>').toString('base64'),
      'not base64 at all!',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64'),
    ]) {
      const r = await compare({ html: blocks(), viewport: VP, baseline: { image } }, { key: k.key });
      assert.equal(r.status, 400, show(r));
      assert.equal(r.json.message, 'baseline.image must be a base64 PNG, JPEG or WebP image');
    }
    const big = await compare({ html: blocks(), baseline: { image: Buffer.alloc(10_000_003).toString('base64') } }, { key: k.key });
    assert.equal(big.status, 413, show(big));
    assert.match(big.json.message, /^baseline\.image must be at most 10000000 bytes/);
    assert.equal(await balance(k), 20, 'nothing billed');
  });

  test("validation names every field, baseline.request's under its name; a missing baseline is named", async () => {
    const r = await compare({ html: 'x', threshold: 2, baseline: { request: { viewport: { width: 0, height: 10 } } } });
    assert.equal(r.status, 400, show(r));
    for (const m of [
      'threshold must be a number between 0 and 1',
      'baseline.request.viewport.width must be a number between 1 and 10000',
      'baseline.request: exactly one of url and html is required',
    ]) {
      assert.ok(r.json.message.includes(m), `${m} in ${r.json.message}`);
    }
    const none = await compare({ html: 'x' });
    assert.match(none.json.message, /^baseline is required/);
    const both = await compare({ html: 'x', baseline: { image: 'AAAA', request: { html: 'y' } } });
    assert.equal(both.json.message, 'baseline: give one of image and request, not both');
  });

  test('billing: a cached capture is free; when the second capture fails after the first succeeded, neither is billed', async () => {
    const k = await newKey();
    const url = `${fx.origin}/page`;
    const first = await compare(
      { url, viewport: VP, waitUntil: 'load', baseline: { request: { url, viewport: VP, waitUntil: 'load' } } },
      { key: k.key, headers: { accept: 'application/json' } },
    );
    assert.equal(first.status, 200, show(first));
    // The two captures are one picture: whichever rendered, the other waited for it (single flight) or hit the cache.
    const charged = first.json.credits.charged;
    assert.ok(charged === 1 || charged === 2, `charged ${charged}`);
    const hit = await compare(
      { url, viewport: VP, waitUntil: 'load', baseline: { image: (await solidPng(200, 120, [255, 255, 255])).toString('base64') } },
      { key: k.key, headers: { accept: 'application/json' } },
    );
    assert.equal(hit.json.current.cache, 'hit');
    assert.equal(hit.json.credits.charged, 0, 'a cached capture costs nothing, the comparison nothing');
    const spent = await balance(k);
    assert.equal(spent, 20 - charged);
    // The baseline's page answers 404 and failOnTargetError refuses it: the caller gets 424, and the current capture is not billed either.
    const failed = await compare(
      { html: blocks(), viewport: VP, baseline: { request: { url: `${fx.origin}/missing`, failOnTargetError: true, cacheTtl: 0 } } },
      { key: k.key },
    );
    assert.equal(failed.status, 424, show(failed));
    assert.equal(await balance(k), spent, 'neither capture billed');
    const refused = await compare(
      { url: `${fx.origin}/missing`, failOnTargetError: true, cacheTtl: 0, baseline: { request: { html: blocks(), viewport: VP } } },
      { key: k.key },
    );
    assert.equal(refused.status, 424, show(refused));
    assert.equal(await balance(k), spent, 'the other way round too');
  });
});

describe('signed links (GET /v1/compare)', () => {
  test("a link answers the diff picture publicly, bills the signing key, carries no balance; a capture link's signature does not open it", async () => {
    const k = await newKey();
    const options = {
      html: blocks(RED_BOX),
      viewport: VP,
      ignoreSelectors: ['.none'],
      ignoreRegions: [{ x: 0, y: 0, width: 5, height: 5 }],
      threshold: 0.2,
      baseline: { request: { html: blocks(), viewport: VP } },
    };
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const url = makeCompareLink({ options, keyId: k.keyId, secret: k.secret, expires, baseUrl: srv.url });
    assert.match(url, /baseline\.request\.viewport\.width=200/);
    const r = await call(url, '', undefined, { method: 'GET', key: null });
    assert.equal(r.status, 200, show(r));
    assert.equal(r.headers.get('content-type'), 'image/png');
    assert.deepEqual(regions(r), [{ x: 120, y: 50, width: 40, height: 25 }]);
    assert.equal(r.headers.get('x-credits-charged'), '2');
    assert.equal(r.headers.get('x-credits-remaining'), null, 'a public answer does not show the balance');
    assert.match(r.headers.get('cache-control') ?? '', /^public, no-cache$|^public, max-age=\d+, immutable$/);
    assert.equal(await balance(k), 18);
    const json = await call(url, '', undefined, { method: 'GET', key: null, headers: { accept: 'application/json' } });
    assert.equal(json.json.credits.remaining, undefined, 'nor does its JSON');
    // The same pairs signed over /v1/screenshot: refused.
    const pairs = parseQuery(url.slice(url.indexOf('?') + 1)).filter(([n]) => n !== 'signature');
    const forged = `${srv.url}/v1/compare?${canonicalQuery(pairs)}&signature=${signPairs(k.secret, pairs)}`;
    const f = await call(forged, '', undefined, { method: 'GET', key: null });
    assert.equal(f.status, 403, show(f));
    assert.equal(f.json.error, 'link_signature_invalid');
    // A picture cannot travel in a link.
    assert.throws(
      () => makeCompareLink({ options: { html: 'x', baseline: { image: 'AAAA' } }, keyId: k.keyId, secret: k.secret, expires, baseUrl: srv.url }),
      /baseline\.image cannot be sent in a link/,
    );
  });
});
