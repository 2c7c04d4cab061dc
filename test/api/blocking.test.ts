// Request blocking (server/blocking/), over real HTTP against one reference server: what the page
// asks for by type or by URL pattern never reaches the fixture (its request log is the proof), the
// page's own document always does, x-blocked-requests counts the refusals, a page that keeps asking
// for a blocked URL still reaches network idle (blocked requests are never in flight), websockets
// are refused too, and puppeteer's own interception (origin headers) still works beside it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptWebSocket, page, startFixture, type Fixture } from '../support/fixture.ts';
import { shoot, show, type Reply } from '../support/http.ts';
import { decode, near, solidPng } from '../support/image.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const GREEN = [32, 160, 64];
const RED = [224, 32, 32];
const BLUE = [32, 80, 208];
const vp = { width: 320, height: 240 };
/** Every subresource of /page, by the path the fixture sees. */
const SUBRESOURCES = ['/img.png', '/style.css', '/script.js', '/data.json', '/xhr.txt', '/font.woff2', '/frame', '/inner.png'];

let fx: Fixture;
let srv: TestServer;
let upgrades = 0;

/** The paths the fixture served since `n`, without the favicon full chromium asks for itself (the browser's request, not the page's). */
const hitsSince = (n: number) =>
  fx.hits
    .slice(n)
    .map((h) => h.split('?')[0]!)
    .filter((p) => p !== '/favicon.ico');
const pixel = async (r: Reply, x: number, y: number) => (await decode(r.body)).at(x, y);

before(async () => {
  fx = await startFixture();
  const red = await solidPng(100, 100, [224, 32, 32]);
  const inner = await solidPng(40, 40, [224, 32, 32]);
  // A page that asks for one of each: an image over a green square, a stylesheet and a script
  // that paint their squares blue, a fetch, an XHR, a web font and an iframe with an image.
  page(
    fx,
    '/page',
    `<!doctype html><html><head><link rel="stylesheet" href="/style.css"><style>
@font-face{font-family:F;src:url(/font.woff2)} body{margin:0;font-family:F,sans-serif}
#under{position:absolute;left:0;top:0;width:100px;height:100px;background:rgb(32,160,64)}
#s,#j{position:absolute;top:0;width:100px;height:100px;background:rgb(224,32,32)} #s{left:110px} #j{left:220px}
iframe{position:absolute;left:0;top:120px;width:100px;height:100px;border:0}</style></head>
<body><div id="under"></div><img src="/img.png" style="position:absolute;left:0;top:0"><div id="s"></div><div id="j"></div>x
<iframe src="/frame"></iframe>
<script src="/script.js"></script>
<script>fetch('/data.json').then((r) => r.text()).catch(() => {}); const x = new XMLHttpRequest(); x.open('GET', '/xhr.txt'); x.send();</script>
</body></html>`,
  );
  fx.route('/img.png', (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(red));
  fx.route('/inner.png', (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(inner));
  fx.route('/style.css', (_req, res) => void res.writeHead(200, { 'content-type': 'text/css' }).end('#s{background:rgb(32,80,208) !important}'));
  fx.route(
    '/script.js',
    (_req, res) => void res.writeHead(200, { 'content-type': 'text/javascript' }).end("document.getElementById('j').style.background = 'rgb(32,80,208)';"),
  );
  fx.route('/data.json', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  fx.route('/xhr.txt', (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'));
  fx.route('/font.woff2', (_req, res) => void res.writeHead(404).end());
  page(fx, '/frame', '<body style="margin:0;background:rgb(32,160,64)"><img src="/inner.png"></body>');
  // Asks for a URL every 150 ms, for ever: never idle unless those requests do not count.
  page(
    fx,
    '/poller',
    `<body style="margin:0;background:rgb(32,160,64)"><script>let n = 0; setInterval(() => fetch('/poll?n=' + n++).catch(() => {}), 150);</script></body>`,
  );
  fx.route('/poll', (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'));
  // A websocket: red when it opens, green when it fails.
  page(
    fx,
    '/socket',
    `<body style="margin:0;background:#fff"><script>const ws = new WebSocket('ws://' + location.host + '/ws');
ws.onopen = () => { document.body.style.background = 'rgb(224,32,32)'; }; ws.onerror = () => { document.body.style.background = 'rgb(32,160,64)'; };</script></body>`,
  );
  fx.onUpgrade((req, socket) => {
    upgrades++;
    acceptWebSocket(req, socket);
  });
  // A cross-site frame (localhost is another site than 127.0.0.1): with full chromium it is another
  // process and another target, armed by the blocking session's auto-attach.
  page(fx, '/cross', `<body style="margin:0"><iframe src="http://localhost:${fx.port}/frame-fetch" style="border:0;width:200px;height:100px"></iframe></body>`);
  page(
    fx,
    '/frame-fetch',
    `<body style="margin:0;background:rgb(32,160,64)"><img src="/inner.png"><script>fetch('/data.json').catch(() => {});</script></body>`,
  );
  srv = await startTestServer({ RENDER_BUDGET_MS: '10000' }, [fx, { hostPort: `localhost:${fx.port}` }]);
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

const shot = (body: Record<string, unknown>) =>
  shoot(srv.url, { url: `${fx.origin}/page`, viewport: vp, waitUntil: 'networkidle0', blockCookieBanners: false, ...body });

describe('blockResourceTypes and blockUrls', () => {
  test('without blocking: every subresource arrives (the control)', async () => {
    const n = fx.hits.length;
    const r = await shot({});
    assert.equal(r.status, 200, show(r));
    assert.deepEqual([...new Set(hitsSince(n))].sort(), ['/page', ...SUBRESOURCES].sort());
    assert.equal(r.headers.get('x-blocked-requests'), null);
    assert.ok(near(await pixel(r, 50, 50), RED) && near(await pixel(r, 160, 50), BLUE) && near(await pixel(r, 270, 50), BLUE));
  });

  test('image: images never leave the browser (top document and frame); the rest arrives; counted', async () => {
    const n = fx.hits.length;
    const r = await shot({ blockResourceTypes: ['image'] });
    assert.equal(r.status, 200, show(r));
    const hits = hitsSince(n);
    assert.ok(!hits.includes('/img.png') && !hits.includes('/inner.png'), hits.join(' '));
    for (const p of ['/page', '/style.css', '/script.js', '/frame']) assert.ok(hits.includes(p), `${p} in ${hits}`);
    assert.equal(r.headers.get('x-blocked-requests'), '2');
    assert.ok(near(await pixel(r, 50, 50), GREEN), 'the green under the image shows');
    assert.ok(near(await pixel(r, 160, 50), BLUE), 'the stylesheet still applied');
  });

  test('every type: only the page and its frame document arrive', async () => {
    const n = fx.hits.length;
    const r = await shot({ blockResourceTypes: ['image', 'media', 'font', 'stylesheet', 'script', 'xhr', 'fetch', 'websocket', 'other'] });
    assert.equal(r.status, 200, show(r));
    assert.deepEqual([...new Set(hitsSince(n))].sort(), ['/frame', '/page']);
    assert.ok(Number(r.headers.get('x-blocked-requests')) >= 6, String(r.headers.get('x-blocked-requests')));
    assert.ok(near(await pixel(r, 160, 50), RED) && near(await pixel(r, 270, 50), RED), 'neither stylesheet nor script ran');
  });

  test("xhr and fetch apart: each blocks only its own kind (the browser's interception calls both XHR)", async () => {
    for (const [type, blocked, passed] of [
      ['fetch', '/data.json', '/xhr.txt'],
      ['xhr', '/xhr.txt', '/data.json'],
    ] as const) {
      const n = fx.hits.length;
      const r = await shot({ blockResourceTypes: [type] });
      assert.equal(r.status, 200, show(r));
      const hits = hitsSince(n);
      assert.ok(!hits.includes(blocked) && hits.includes(passed), `${type}: ${hits}`);
      assert.equal(r.headers.get('x-blocked-requests'), '1');
    }
  });

  test('a cross-site frame: its image and its fetch are refused too', async () => {
    const n = fx.requests.length;
    const r = await shoot(srv.url, {
      url: `${fx.origin}/cross`,
      blockResourceTypes: ['image', 'fetch'],
      viewport: vp,
      waitUntil: 'networkidle0',
      blockCookieBanners: false,
    });
    assert.equal(r.status, 200, show(r));
    const seen = fx.requests
      .slice(n)
      .map((q) => `${q.host.split(':')[0]}${q.path.split('?')[0]}`)
      .filter((p) => !p.endsWith('/favicon.ico'));
    assert.deepEqual(seen, ['127.0.0.1/cross', 'localhost/frame-fetch']);
    assert.equal(r.headers.get('x-blocked-requests'), '2');
  });

  test('blockUrls: whole-URL patterns with * (? is itself); the page itself is never blocked, even by *', async () => {
    let n = fx.hits.length;
    const r = await shot({ blockUrls: ['*/img.png', `${fx.origin}/*.css`, '*/frame', '*/data.json?never', '*/xhr.tx?'] });
    assert.equal(r.status, 200, show(r));
    const hits = hitsSince(n);
    for (const p of ['/img.png', '/style.css', '/frame', '/inner.png']) assert.ok(!hits.includes(p), `${p} blocked: ${hits}`);
    for (const p of ['/page', '/script.js', '/data.json', '/xhr.txt']) assert.ok(hits.includes(p), `${p} not blocked (? is not a wildcard): ${hits}`);
    assert.equal(r.headers.get('x-blocked-requests'), '3');
    n = fx.hits.length;
    const all = await shot({ blockUrls: ['*'] });
    assert.equal(all.status, 200, show(all));
    assert.deepEqual([...new Set(hitsSince(n))], ['/page']);
    assert.equal(all.headers.get('x-target-status'), '200');
  });

  test('blocked requests are never in flight: a page that asks for a blocked URL every 150 ms reaches networkidle0', async () => {
    const n = fx.hits.length;
    const r = await shoot(srv.url, { url: `${fx.origin}/poller`, blockUrls: ['*/poll?*'], viewport: vp, waitUntil: 'networkidle0', blockCookieBanners: false });
    assert.equal(r.status, 200, show(r));
    assert.deepEqual(hitsSince(n), ['/poller']);
    assert.ok(Number(r.headers.get('x-blocked-requests')) >= 3, `${r.headers.get('x-blocked-requests')} blocked in ${r.ms} ms`);
  });

  test('websockets: refused by type or by pattern; the fixture sees no handshake', async () => {
    const base = { url: `${fx.origin}/socket`, viewport: vp, waitUntil: 'networkidle0', blockCookieBanners: false, delay: 300 };
    let before = upgrades;
    const open = await shoot(srv.url, base);
    assert.ok(near(await pixel(open, 10, 10), RED), 'the control: the socket opens');
    assert.equal(upgrades, before + 1);
    for (const block of [{ blockResourceTypes: ['websocket'] }, { blockUrls: ['ws://*/ws'] }]) {
      before = upgrades;
      const r = await shoot(srv.url, { ...base, ...block });
      assert.equal(r.status, 200, show(r));
      assert.ok(near(await pixel(r, 10, 10), GREEN), `${JSON.stringify(block)}: the socket failed`);
      assert.equal(upgrades, before, 'no handshake reached the fixture');
      assert.equal(r.headers.get('x-blocked-requests'), '1');
    }
  });

  test('beside origin headers (puppeteer interception): the header reaches the page, a blocked image does not leave', async () => {
    const n = fx.requests.length;
    const seen: string[] = [];
    fx.route('/with-header', (req, res) => {
      seen.push(String(req.headers['x-tenant']));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<body style="margin:0"><img src="/img.png"><link rel="stylesheet" href="/style.css"></body>');
    });
    const r = await shoot(srv.url, {
      url: `${fx.origin}/with-header`,
      headers: { 'X-Tenant': 't-1' },
      blockResourceTypes: ['image'],
      viewport: vp,
      waitUntil: 'networkidle0',
      blockCookieBanners: false,
    });
    assert.equal(r.status, 200, show(r));
    assert.deepEqual(seen, ['t-1']);
    const paths = fx.requests.slice(n).map((q) => q.path);
    assert.ok(!paths.includes('/img.png') && paths.includes('/style.css'), paths.join(' '));
    assert.equal(r.headers.get('x-blocked-requests'), '1');
  });
});
