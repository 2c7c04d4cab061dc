// Signed render links and HTTP caching, over real HTTP against one reference server:
// a link renders without an Authorization header and bills the signing key; GET and POST of the
// same options share a cache entry; ETag + If-None-Match give a free 304; Cache-Control is public
// for links and no-store for POST and errors; every change to a link, an expired link, a revoked
// key and a rotated secret are refused with their codes and cost nothing; the egress guard applies.
// The README's recipes (Node, Python, openssl) make links this server accepts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Account } from '../../server/accounts/index.ts';
import { createKey, revokeKey } from '../../server/accounts/admin.ts';
import type { SqlLedger } from '../../server/accounts/ledger.ts';
import { resolveKek } from '../../server/links/kek.ts';
import { canonicalQuery, SIGNED_PATH, type Pair } from '../../server/links/canonical.ts';
import { makeLink } from '../../server/links/make.ts';
import { signPairs } from '../../server/links/verify.ts';
import { rotateSigningSecret } from '../../server/links/secrets.ts';
import { blocksOf, EMULATED, greenBut, pick, serveProbe } from '../support/emulation.ts';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { PREP_CSS, PREP_JS, servePrepPage } from '../support/prepare-page.ts';
import { call, shoot, show, type Reply } from '../support/http.ts';
import { decode } from '../support/image.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const viewport = { width: 64, height: 40 };
const HOUR = 3600;

let fx: Fixture;
let probe: ReturnType<typeof serveProbe>;
let srv: TestServer;
let db: SqlLedger['db'];
let kek: Buffer;

interface LinkKey {
  key: string;
  keyId: string;
  secret: string;
  account: Account;
}

async function newKey(credits = 20): Promise<LinkKey> {
  const made = await createKey(db, { label: 'links test', credits });
  const secret = await rotateSigningSecret(db, kek, made.keyId, 0);
  return { key: made.key, keyId: made.keyId, secret, account: { id: made.accountId, keyId: made.keyId } };
}

const now = () => Math.floor(Date.now() / 1000);
const link = (k: LinkKey, options: Record<string, unknown>, expires = now() + HOUR, secret = k.secret) =>
  makeLink({ options, keyId: k.keyId, secret, expires, baseUrl: srv.url });
const get = (url: string, headers: Record<string, string> = {}) => call(url, '', undefined, { method: 'GET', key: null, headers });
const balance = (k: LinkKey) => srv.server.accounts.balance(k.account);

function refused(r: Reply, status: number, code: string): void {
  assert.equal(r.status, status, show(r));
  assert.equal(r.json?.error, code, show(r));
  assert.equal(r.headers.get('cache-control'), 'no-store', 'errors are never cached');
}

before(async () => {
  fx = await startFixture();
  page(fx, '/green', '<body style="margin:0;background:#0a0"></body>');
  page(fx, '/blue', '<body style="margin:0;background:#00f"></body>');
  probe = serveProbe(fx);
  srv = await startTestServer({ CACHE_TTL_SECONDS: '300' }, fx);
  db = (srv.server.accounts as SqlLedger).db;
  kek = resolveKek(srv.config)!;
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

describe('signed links (GET /v1/screenshot)', () => {
  test('a link renders without Authorization, bills the signing key, and is publicly cacheable', async () => {
    const k = await newKey();
    const r = await get(link(k, { url: `${fx.origin}/green`, viewport: { width: 80, height: 50, deviceScaleFactor: 2 }, waitUntil: 'load' }));
    assert.equal(r.status, 200, show(r));
    assert.equal(r.headers.get('content-type'), 'image/png');
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [160, 100], 'viewport.* typed as numbers by the schema');
    assert.equal(r.headers.get('x-credits-charged'), '1');
    assert.equal(r.headers.get('x-credits-remaining'), null, 'a public answer does not show the balance');
    assert.equal(await balance(k), 19, 'billed to the key that signed it');
    assert.equal(r.headers.get('cache-control'), 'public, max-age=300, immutable');
    assert.match(r.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{43}"$/);
  });

  test('GET and POST of the same options are the same request: one cache entry, the second free', async () => {
    const k = await newKey();
    const options = { url: `${fx.origin}/blue`, viewport, fullPage: false, hideSelectors: ['.a', '#b'], waitUntil: 'load' as const };
    const posted = await shoot(srv.url, options, { key: k.key });
    assert.equal(posted.headers.get('x-cache'), 'miss', show(posted));
    assert.equal(posted.headers.get('cache-control'), 'no-store', 'POST answers stay private');
    const linked = await get(link(k, options));
    assert.equal(linked.status, 200, show(linked));
    assert.equal(linked.headers.get('x-cache'), 'hit');
    assert.equal(linked.headers.get('x-credits-charged'), '0');
    assert.ok(linked.body.equals(posted.body));
    assert.equal(linked.headers.get('etag'), posted.headers.get('etag'));
    assert.equal(await balance(k), 19);
  });

  test('If-None-Match: 304 without a body, free; cacheTtl caps max-age and the link expiry caps it further', async () => {
    const k = await newKey();
    const url = link(k, { url: `${fx.origin}/green`, viewport, cacheTtl: 120, waitUntil: 'load' });
    const first = await get(url);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=120, immutable');
    const again = await get(url, { 'if-none-match': first.headers.get('etag')! });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.get('x-credits-charged'), '0');
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    assert.equal(await balance(k), 19, 'only the first render was billed');
    const soon = await get(link(k, { url: `${fx.origin}/green`, viewport, cacheTtl: 120, waitUntil: 'load' }, now() + 30));
    assert.match(soon.headers.get('cache-control') ?? '', /^public, max-age=(29|30), immutable$/, 'never past the expiry');
    const always = await get(link(k, { url: `${fx.origin}/green`, viewport, cacheTtl: 0, waitUntil: 'load' }));
    assert.equal(always.headers.get('x-cache'), 'miss', 'cacheTtl 0 always renders');
    assert.equal(always.headers.get('cache-control'), 'public, no-cache');
  });

  test('any change to the link is refused with link_signature_invalid, free', async () => {
    const k = await newKey();
    const good = new URL(link(k, { url: `${fx.origin}/green`, viewport, waitUntil: 'load' }));
    const variants: Array<[string, (u: URL) => void]> = [
      ['a value changed', (u) => u.searchParams.set('viewport.width', '65')],
      ['a parameter added', (u) => u.searchParams.append('fullPage', 'true')],
      ['a parameter removed', (u) => u.searchParams.delete('waitUntil')],
      ['the expiry moved', (u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 60))],
      ['another target', (u) => u.searchParams.set('url', `${fx.origin}/blue`)],
      [
        'a flipped signature digit',
        (u) =>
          u.searchParams.set(
            'signature',
            u.searchParams.get('signature')!.replace(/^./, (c) => (c === '0' ? '1' : '0')),
          ),
      ],
      ['a short signature', (u) => u.searchParams.set('signature', 'abcd')],
    ];
    for (const [why, change] of variants) {
      const u = new URL(good);
      change(u);
      refused(await get(u.href), 403, 'link_signature_invalid');
      void why;
    }
    const otherSecret = await newKey();
    refused(await get(link(k, { url: `${fx.origin}/green`, viewport }, now() + HOUR, otherSecret.secret)), 403, 'link_signature_invalid');
    assert.equal((await get(good.href)).status, 200, 'the untouched link still works');
    assert.equal(await balance(k), 19);
  });

  test('an expired link is 410 link_expired; a revoked key 403 link_key_invalid, even for a link that worked', async () => {
    const k = await newKey();
    refused(await get(link(k, { url: `${fx.origin}/green`, viewport }, now() - 1)), 410, 'link_expired');
    const url = link(k, { url: `${fx.origin}/green`, viewport, waitUntil: 'load', cacheTtl: 0 });
    assert.equal((await get(url)).status, 200);
    assert.ok(await revokeKey(db, k.keyId));
    refused(await get(url), 403, 'link_key_invalid');
    const unknown = new URL(url);
    unknown.searchParams.set('keyId', 'key_0000000000000000');
    refused(await get(unknown.href), 403, 'link_key_invalid');
  });

  test('rotating the secret: old links stop at once, or after a grace period', async () => {
    const k = await newKey();
    const old = link(k, { url: `${fx.origin}/green`, viewport, waitUntil: 'load' });
    const second = await rotateSigningSecret(db, kek, k.keyId, 600);
    assert.equal((await get(old)).status, 200, 'within the grace period');
    assert.equal((await get(link(k, { url: `${fx.origin}/green`, viewport, waitUntil: 'load' }, now() + HOUR, second))).status, 200);
    const third = await rotateSigningSecret(db, kek, k.keyId, 0);
    refused(await get(link(k, { url: `${fx.origin}/green`, viewport }, now() + HOUR, second)), 403, 'link_signature_invalid');
    assert.equal((await get(link(k, { url: `${fx.origin}/green`, viewport, waitUntil: 'load' }, now() + HOUR, third))).status, 200);
  });

  test('the egress guard, validation and render failures apply as for POST, and cost nothing', async () => {
    const k = await newKey();
    refused(await get(link(k, { url: 'http://169.254.169.254/latest/meta-data/', viewport })), 400, 'bad_request');
    refused(await get(link(k, { url: 'http://127.0.0.1:9/', viewport })), 400, 'bad_request');
    refused(await get(link(k, { html: '<p>x</p>', selector: '#none', viewport, waitUntil: 'load' })), 400, 'selector_not_found');
    // Signed, but invalid as options: named like a POST body's fields.
    const bad = await get(link(k, { html: '<p>x</p>', viewport }).replace('viewport.width=64', 'viewport.width=wide'));
    assert.equal(bad.status, 403, 'changing it breaks the signature first');
    const u = new URL(makeLink({ options: { html: 'x' }, keyId: k.keyId, secret: k.secret, expires: now() + HOUR, baseUrl: srv.url }));
    assert.equal((await get(u.href)).status, 200, 'html links render (never cached)');
    assert.equal(await balance(k), 19);
  });

  test('a validly signed link with options the schema refuses is 400 naming the field, free', async () => {
    // signed by hand, as a client's own code would: makeLink refuses to make such a link
    const k = await newKey();
    const signed = (pairs: Pair[]) => {
      const all: Pair[] = [...pairs, ['keyId', k.keyId], ['expires', String(now() + HOUR)]];
      return `${srv.url}${SIGNED_PATH}?${canonicalQuery(all)}&signature=${signPairs(k.secret, all)}`;
    };
    const wide = await get(
      signed([
        ['html', '<p>x</p>'],
        ['viewport.width', 'wide'],
        ['viewport.height', '40'],
      ]),
    );
    refused(wide, 400, 'bad_request');
    assert.match(wide.json?.message ?? '', /viewport\.width/);
    const header = await get(
      signed([
        ['url', `${fx.origin}/green`],
        ['headers.X-A', '1'],
      ]),
    );
    assert.ok(header.status === 400 && /headers/.test(header.json?.message ?? ''), `a signed link may not carry headers: ${show(header)}`);
    assert.equal(await balance(k), 20);
  });

  test('css, js, actions, blocking, clip and delay work through a link; failOnTargetError answers 424, free', async () => {
    const k = await newKey();
    const hits = fx.hits.length;
    servePrepPage(fx, '/prep');
    fx.route('/missing', (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<p>gone</p>'));
    const options = {
      url: `${fx.origin}/prep`,
      viewport,
      waitUntil: 'load',
      blockCookieBanners: false,
      delay: 50,
      css: `${PREP_CSS} #b { display: none }`,
      actions: [{ click: '#b' }, { wait: 10 }],
      js: PREP_JS,
      blockResourceTypes: ['image'],
      blockUrls: ['*/never/*'],
      clip: { x: 60, y: 4, width: 20, height: 10 },
    };
    // css comes before the actions: with the button hidden by it, the click has nothing to click.
    const hidden = await get(link(k, options));
    refused(hidden, 400, 'selector_not_found');
    assert.match(hidden.json.message, /^actions\[0\]\.click matches an element with no rendered box/);
    const r = await get(link(k, { ...options, css: PREP_CSS }));
    assert.equal(r.status, 200, show(r));
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [20, 10], 'the clip');
    assert.deepEqual(img.at(10, 5).slice(0, 3), [0, 170, 0], 'css, then the click, then js');
    assert.equal(r.headers.get('x-blocked-requests'), '1');
    assert.ok(!fx.hits.slice(hits).some((h) => h.startsWith('/prep.png')), 'the image never left the browser');
    assert.ok(/delay;dur=/.test(r.headers.get('server-timing') ?? ''));
    const before = await balance(k);
    const target = await get(link(k, { url: `${fx.origin}/missing`, viewport, waitUntil: 'load', failOnTargetError: true }));
    refused(target, 424, 'target_error');
    assert.equal(target.headers.get('x-target-status'), '404');
    assert.equal(await balance(k), before);
  });

  test('the emulation fields travel in a link: strings, a nested geolocation and booleans typed by the schema', async () => {
    const k = await newKey();
    const { timezone, locale, device, geolocation } = EMULATED;
    const shot = async (options: Record<string, unknown>) => {
      const r = await get(link(k, { url: probe.url, waitUntil: 'load', ...options }));
      assert.equal(r.status, 200, show(r));
      return blocksOf(await decode(r.body));
    };
    const all = await shot({
      device,
      viewport: { width: 320, height: 240 },
      timezone,
      locale,
      geolocation,
      mediaType: 'print',
      reducedMotion: 'reduce',
      colorScheme: 'dark',
    });
    const green = greenBut('frame');
    assert.deepEqual(pick(all, green), green);
    assert.deepEqual(pick(await shot({ viewport: { width: 320, height: 240 }, javaScriptEnabled: false }), { scripts: 'blue', zone: 'yellow' }), {
      scripts: 'blue',
      zone: 'yellow',
    });
    assert.throws(() => link(k, { url: probe.url, device: 'Nokia 3310' }), /^ServiceError: device must be the name of a device preset/);
  });

  test('not links: GET without a query is 405 (Allow: POST); without a signature 400; headers and cookies never in a link', async () => {
    const plain = await get(`${srv.url}/v1/screenshot`);
    assert.equal(plain.status, 405);
    assert.equal(plain.headers.get('allow'), 'POST');
    refused(await get(`${srv.url}/v1/screenshot?url=${encodeURIComponent(`${fx.origin}/green`)}`), 400, 'bad_request');
    const k = await newKey();
    assert.throws(() => link(k, { url: `${fx.origin}/green`, cookies: [{ name: 's', value: 'v' }] }), /cookies cannot be sent in a signed link/);
    const withHeader = new URL(link(k, { url: `${fx.origin}/green` }));
    withHeader.searchParams.append('headers.X-A', '1');
    refused(await get(withHeader.href), 403, 'link_signature_invalid');
  });
});

describe('HTTP caching of POST (ETag, If-None-Match, cacheTtl)', () => {
  test('POST: strong ETag, no-store, 304 on If-None-Match; free from the cache, billed when it had to render', async () => {
    const k = await newKey();
    const body = { url: `${fx.origin}/green`, viewport: { width: 50, height: 30 }, waitUntil: 'load' };
    const first = await shoot(srv.url, body, { key: k.key });
    const etag = first.headers.get('etag')!;
    assert.equal(first.headers.get('cache-control'), 'no-store');
    // fetch() adds Cache-Control: no-cache to a request with If-None-Match unless it has its own
    // Cache-Control (Fetch standard, HTTP-network-or-cache fetch); no-cache would render afresh.
    const cached = await shoot(srv.url, body, { key: k.key, headers: { 'if-none-match': etag, 'cache-control': 'max-age=300' } });
    assert.equal(cached.status, 304);
    assert.equal(cached.headers.get('x-credits-charged'), '0');
    const rendered = await shoot(srv.url, { ...body, cacheTtl: 0 }, { key: k.key, headers: { 'if-none-match': `"nope", ${etag}` } });
    assert.equal(rendered.status, 304, 'the same picture rendered again has the same tag');
    assert.equal(rendered.headers.get('x-credits-charged'), '1', 'a fresh render is billed even when answered 304');
    const html = await shoot(srv.url, { html: '<p>x</p>', viewport: { width: 50, height: 30 } }, { key: k.key, headers: { 'if-none-match': '"other"' } });
    assert.equal(html.status, 200);
  });

  test('cacheTtl: a capture older than the request accepts is rendered afresh', async () => {
    const k = await newKey();
    const body = { url: `${fx.origin}/blue`, viewport: { width: 40, height: 30 }, waitUntil: 'load' };
    assert.equal((await shoot(srv.url, { ...body, cacheTtl: 3600 }, { key: k.key })).headers.get('x-cache'), 'miss');
    assert.equal(
      (await shoot(srv.url, { ...body, cacheTtl: 60 }, { key: k.key })).headers.get('x-cache'),
      'hit',
      'young enough, and cacheTtl is not in the key',
    );
    await new Promise((r) => setTimeout(r, 1100)); // on purpose: the entry must age past 1 s on the server's own clock
    assert.equal((await shoot(srv.url, { ...body, cacheTtl: 1 }, { key: k.key })).headers.get('x-cache'), 'miss', 'older than 1 s');
  });
});

describe('the recipes of docs/signed-links.md make links the server accepts', () => {
  const readme = readFileSync(path.join(ROOT, 'docs/signed-links.md'), 'utf8');
  /** The code block that follows the marker comment `<!-- recipe: NAME -->`. */
  const recipe = (name: string) => {
    const m = new RegExp(`<!-- recipe: ${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(readme);
    assert.ok(m, `docs/signed-links.md has the ${name} recipe`);
    return m[1]!;
  };
  const expectImage = async (url: string, k: LinkKey) => {
    const r = await get(url.trim());
    assert.equal(r.status, 200, `${url.trim()}: ${show(r)}`);
    assert.deepEqual([(await decode(r.body)).width, (await decode(r.body)).height], [1200, 630]);
    void k;
  };
  const target = () => `${fx.origin}/green`;

  test('Node', async () => {
    const k = await newKey();
    const program = `${recipe('node')}\nconsole.log(signLink(process.env.BASE, [['url', process.env.TARGET], ['viewport.width', '1200'], ['viewport.height', '630'], ['waitUntil', 'load']], process.env.KEY_ID, process.env.SECRET, Math.floor(Date.now() / 1000) + 3600));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', program], {
      env: { ...process.env, BASE: srv.url, TARGET: target(), KEY_ID: k.keyId, SECRET: k.secret },
    });
    await expectImage(stdout, k);
  });

  test('Python', async () => {
    const k = await newKey();
    const program = `${recipe('python')}\nimport os, time\nprint(sign_link(os.environ['BASE'], [('url', os.environ['TARGET']), ('viewport.width', '1200'), ('viewport.height', '630'), ('waitUntil', 'load')], os.environ['KEY_ID'], os.environ['SECRET'], int(time.time()) + 3600))`;
    const { stdout } = await run('python3', ['-c', program], { env: { ...process.env, BASE: srv.url, TARGET: target(), KEY_ID: k.keyId, SECRET: k.secret } });
    await expectImage(stdout, k);
  });

  test('the walkthrough: curl twice, the second with --etag-compare, is a free 304', async () => {
    const k = await newKey();
    const url = link(k, { url: `${fx.origin}/green`, viewport: { width: 120, height: 63 }, cacheTtl: 86400, waitUntil: 'load' }, now() + 30 * 86400);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'walkthrough-'));
    try {
      const curl = (...args: string[]) => run('curl', ['-s', '-o', path.join(dir, 'card.png'), '-D', '-', ...args, url], { cwd: dir });
      const first = (await curl('--etag-save', 'card.etag')).stdout;
      assert.match(first, /^HTTP\/1\.1 200 OK/);
      assert.match(first, /x-credits-charged: 1/);
      assert.match(first, /cache-control: public, max-age=86400, immutable/);
      const second = (await curl('--etag-compare', 'card.etag')).stdout;
      assert.match(second, /^HTTP\/1\.1 304 Not Modified/);
      assert.match(second, /x-credits-charged: 0/);
      assert.match(second, /x-cache: hit/);
      assert.equal(await balance(k), 19);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('shell with openssl', async () => {
    const k = await newKey();
    const script = recipe('shell').replace(
      'https%3A%2F%2Fexample.com%2F',
      encodeURIComponent(target()).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    );
    const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${script}`], { env: { ...process.env, BASE: srv.url, KEY_ID: k.keyId, SECRET: k.secret } });
    await expectImage(stdout.trim().split('\n').pop()!, k);
  });
});
