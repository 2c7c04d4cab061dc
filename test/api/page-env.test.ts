// The page environment: colorScheme, userAgent, and url-mode headers and cookies that
// reach the target's own origin and nothing else. Two loopback fixture origins (same host, two
// ports: two origins, one cookie-jar host): the target page on A loads an image, a fetch and an
// iframe from B, and A redirects to B; B must never see the header or the cookie, and A sees them
// on every request (merged with its own cookie). The server's log, at trace level, never holds a
// value.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../server/start.ts';
import { loadConfig } from '../../server/config.ts';
import { startFixture, type Fixture } from '../support/fixture.ts';
import { shoot, show } from '../support/http.ts';
import { decode, near } from '../support/image.ts';
import { testEnv } from '../support/server.ts';

const HEADER = 'x-tenant-token';
const HEADER_VALUE = 'hdr-secret-4f1c9a';
const COOKIE_VALUE = 'cookie-secret-77b2e0';
const UA = 'ShareCardBot/1.0 (+https://example.com/bot)';

let a: Fixture;
let b: Fixture;
let srv: RunningServer;
let dataDir: string;
const logged: string[] = [];

/** What each fixture request carried: origin, path, the header, the cookie, the user agent. */
const seen: Array<{ at: string; path: string; header?: string; cookie?: string; ua?: string }> = [];
const record = (fx: () => Fixture, route: string, respond: (req: http.IncomingMessage, res: http.ServerResponse) => void) =>
  fx().route(route, (req, res) => {
    seen.push({
      at: fx() === a ? 'A' : 'B',
      path: route,
      header: req.headers[HEADER] as string | undefined,
      cookie: req.headers.cookie,
      ua: req.headers['user-agent'],
    });
    respond(req, res);
  });
const html =
  (body: string, extra: Record<string, string> = {}) =>
  (_req: http.IncomingMessage, res: http.ServerResponse) =>
    void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...extra }).end(body);
const gif = (_req: http.IncomingMessage, res: http.ServerResponse) =>
  void res
    .writeHead(200, { 'content-type': 'image/gif', 'access-control-allow-origin': '*' })
    .end(Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'));

before(async () => {
  [a, b] = await Promise.all([startFixture(), startFixture()]);
  record(
    () => a,
    '/page',
    html(
      `<body style="margin:0"><img src="/own.gif"><img src="${b.origin}/pixel.gif"><iframe src="${b.origin}/frame"></iframe>` +
        // Bodies read and B's fetch CORS-enabled: the network-idle wait counts an unread or opaque fetch as in flight.
        `<script>fetch("${b.origin}/api").then((r)=>r.text());fetch("/data").then((r)=>r.text())</script></body>`,
      { 'set-cookie': 'own=1; Path=/' },
    ),
  );
  record(() => a, '/own.gif', gif);
  record(() => a, '/data', html('ok'));
  record(
    () => a,
    '/hop',
    (_req, res) => void res.writeHead(302, { location: `${b.origin}/landing` }).end(),
  );
  record(() => b, '/pixel.gif', gif);
  record(() => b, '/frame', html(`<img src="/framed.gif">`));
  record(() => b, '/framed.gif', gif);
  record(
    () => b,
    '/api',
    (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('ok'),
  );
  record(() => b, '/landing', html('<body style="background:#fff">landed</body>'));
  a.route('/scheme', html('<style>body{margin:0;background:#fff}@media (prefers-color-scheme: dark){body{background:#000}}</style>'));
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'page-env-test-'));
  const config = loadConfig(testEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'trace' }, [a.hostPort, b.hostPort]));
  const sink = new Writable({ write: (chunk, _enc, done) => void (logged.push(String(chunk)), done()) });
  srv = await startServer(config, { log: pino({ level: 'trace' }, sink) });
});

after(async () => {
  await srv?.close();
  await Promise.all([a?.close(), b?.close()]);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const target = () => `${a.origin}/page`;

describe('headers and cookies go to the target origin only', () => {
  test('A gets them on every request, merged with its own cookie; B (image, fetch, iframe) never', async () => {
    seen.length = 0;
    const r = await shoot(srv.url, {
      url: target(),
      headers: { [HEADER]: HEADER_VALUE },
      cookies: [{ name: 'sess', value: COOKIE_VALUE }],
      viewport: { width: 200, height: 120 },
      waitUntil: 'networkidle0',
      blockCookieBanners: false,
    });
    assert.equal(r.status, 200, show(r));
    const fromA = seen.filter((s) => s.at === 'A');
    const fromB = seen.filter((s) => s.at === 'B');
    assert.deepEqual(fromA.map((s) => s.path).sort(), ['/data', '/own.gif', '/page']);
    assert.deepEqual(fromB.map((s) => s.path).sort(), ['/api', '/frame', '/framed.gif', '/pixel.gif']);
    for (const s of fromA) {
      assert.equal(s.header, HEADER_VALUE, `A${s.path} got the header`);
      assert.ok(s.cookie?.split('; ').includes(`sess=${COOKIE_VALUE}`), `A${s.path} got the cookie: ${s.cookie}`);
    }
    assert.ok(
      fromA
        .find((s) => s.path === '/own.gif')!
        .cookie!.split('; ')
        .includes('own=1'),
      "the page's own cookie is kept",
    );
    for (const s of fromB) {
      assert.equal(s.header, undefined, `B${s.path} got no header`);
      assert.ok(!s.cookie?.includes(COOKIE_VALUE), `B${s.path} got no cookie: ${s.cookie}`);
    }
  });

  test('a redirect to another origin does not carry them', async () => {
    seen.length = 0;
    const r = await shoot(srv.url, {
      url: `${a.origin}/hop`,
      headers: { [HEADER]: HEADER_VALUE },
      cookies: [{ name: 'sess', value: COOKIE_VALUE }],
      viewport: { width: 100, height: 60 },
      waitUntil: 'load',
      blockCookieBanners: false,
    });
    assert.equal(r.status, 200, show(r));
    assert.deepEqual(
      seen.map((s) => `${s.at}${s.path}`),
      ['A/hop', 'B/landing'],
    );
    assert.equal(seen[0]!.header, HEADER_VALUE);
    assert.equal(seen[1]!.header, undefined);
    assert.equal(seen[1]!.cookie, undefined);
  });

  test('no header or cookie value ever reaches the log', () => {
    const all = logged.join('');
    assert.ok(all.length > 0, 'the server logged at trace level');
    assert.ok(!all.includes(HEADER_VALUE) && !all.includes(COOKIE_VALUE));
  });

  test('refused: with html, forbidden names, line breaks; the message quotes nothing', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ html: '<p>x</p>', headers: { [HEADER]: HEADER_VALUE } }, /headers and cookies are only allowed with url/],
      [{ url: target(), headers: { Host: 'evil.example' } }, /^headers must be/],
      [{ url: target(), headers: { 'Proxy-Authorization': HEADER_VALUE } }, /^headers must be/],
      [{ url: target(), headers: { [HEADER]: `${HEADER_VALUE}\r\nX-Injected: 1` } }, /^headers\.\* must be/],
      [{ url: target(), cookies: [{ name: 'sess', value: `${COOKIE_VALUE}; Domain=evil.example` }] }, /^cookies\[0\]\.value must be/],
    ];
    for (const [body, message] of cases) {
      const r = await shoot(srv.url, body);
      assert.equal(r.status, 400, show(r));
      assert.match(r.json.message, message);
      assert.ok(!r.json.message.includes(HEADER_VALUE) && !r.json.message.includes(COOKIE_VALUE) && !r.json.message.includes('evil'), r.json.message);
    }
  });
});

describe('colorScheme and userAgent', () => {
  test('colorScheme dark and light reach prefers-color-scheme', async () => {
    const shot = async (colorScheme?: string) =>
      (await decode((await shoot(srv.url, { url: `${a.origin}/scheme`, colorScheme, viewport: { width: 40, height: 30 }, waitUntil: 'load' })).body)).at(
        20,
        15,
      );
    assert.ok(near(await shot('dark'), [0, 0, 0]), 'dark');
    assert.ok(near(await shot('light'), [255, 255, 255]), 'light');
    assert.ok(near(await shot(), [255, 255, 255]), 'the default is light');
  });

  test('userAgent is the User-Agent of every request, to any origin', async () => {
    seen.length = 0;
    const r = await shoot(srv.url, {
      url: target(),
      userAgent: UA,
      viewport: { width: 100, height: 60 },
      waitUntil: 'networkidle0',
      blockCookieBanners: false,
    });
    assert.equal(r.status, 200, show(r));
    assert.ok(seen.length >= 5);
    for (const s of seen) assert.equal(s.ua, UA, `${s.at}${s.path}`);
  });
});
