// Emulating the visitor (server/emulation/), through the HTTP API against a real server: every
// field as the probe page (fixtures/pages/ext-emulation.html) sees it in its first inline script,
// in url and html mode, in a cross-site iframe and a dedicated worker; a preset under an explicit
// viewport; what the target's requests carry; the position for the target's origin only and a
// refusal at once without one; a page without its scripts, whose banner is still hidden and whose
// fullPage and deterministic captures still finish; the 400s; GET /v1/devices and its OpenAPI.
// Fixture A is the target (127.0.0.1); fixture B, reached as localhost, is another site.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { KnownDevices } from 'puppeteer-core';
import { consentFixture } from '../../conformance/fixture-pages/fixtures.ts';
import { blocksOf, EMULATED, pick, probeHtml, serveProbe, type Blocks } from '../support/emulation.ts';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { call, shoot, show, type Reply } from '../support/http.ts';
import { decode, keep, near, type Raw } from '../support/image.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const VP = { width: 320, height: 240 };
const GREEN = [0x20, 0xa0, 0x40];
const BLUE = [0x20, 0x50, 0xd0];
const { timezone, locale, device, geolocation } = EMULATED;

let a: Fixture;
let b: Fixture;
let bOrigin: string; // B as another site: http://localhost:<port>
let srv: TestServer;
let probe: ReturnType<typeof serveProbe>;
const fromB: Array<{ path: string; acceptLanguage?: string }> = [];

/** A page whose FIRST inline script paints it green when new Date(0) reads ?h=H&m=M, red otherwise. */
const HOURS_PAGE = (h: number, m: number) =>
  `<!doctype html><html><head><script>var d = new Date(0); document.documentElement.style.background = d.getHours() === ${h} && d.getMinutes() === ${m} ? '#20a040' : '#e02020';</script></head><body></body></html>`;
/** B's frame: green when its first inline script sees the zone, both locale places and print media. */
const FRAME_PAGE =
  `<!doctype html><html><head><script>var ok = Intl.DateTimeFormat().resolvedOptions().timeZone === '${timezone}' && navigator.language === '${locale}' && ` +
  `Intl.DateTimeFormat().resolvedOptions().locale === '${locale}' && matchMedia('print').matches; document.documentElement.style.background = ok ? '#20a040' : '#e02020';</script></head><body></body></html>`;
/** Asks for the position: green with one, blue when refused, yellow while waiting. */
const ASK_POSITION = `<body style="margin:0;height:100vh;background:#f0c000"><script>navigator.geolocation.getCurrentPosition(
  function () { document.body.style.background = '#20a040'; }, function (e) { document.body.style.background = e.code === 1 ? '#2050d0' : '#e02020'; });</script></body>`;

before(async () => {
  [a, b] = await Promise.all([startFixture(), startFixture()]);
  bOrigin = `http://localhost:${b.port}`;
  probe = serveProbe(a);
  a.route(
    '/hours',
    (_req, res, url) =>
      void res
        .writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' })
        .end(HOURS_PAGE(Number(url.searchParams.get('h')), Number(url.searchParams.get('m')))),
  );
  page(a, '/cross', `<body style="margin:0"><iframe src="${bOrigin}/frame" style="border:0;display:block;width:100vw;height:100vh"></iframe></body>`);
  page(
    a,
    '/two-askers',
    `<body style="margin:0;display:flex"><iframe src="/ask" style="border:0;width:50vw;height:100vh"></iframe><iframe src="${bOrigin}/ask" style="border:0;width:50vw;height:100vh"></iframe></body>`,
  );
  page(a, '/ask', ASK_POSITION);
  a.route('/hop', (_req, res) => void res.writeHead(302, { location: `${bOrigin}/ask` }).end());
  const record = (html: string) => (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => {
    fromB.push({ path: url.pathname, acceptLanguage: req.headers['accept-language'] });
    res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(html);
  };
  b.route('/frame', record(FRAME_PAGE));
  b.route('/ask', record(ASK_POSITION));
  srv = await startTestServer({}, [a, { hostPort: `localhost:${b.port}` }]);
});

after(async () => {
  await srv?.close();
  await Promise.all([a?.close(), b?.close()]);
});

async function capture(body: Record<string, unknown>, name?: string): Promise<{ r: Reply; img: Raw; blocks: Blocks }> {
  const r = await shoot(srv.url, { waitUntil: 'load', ...body });
  assert.equal(r.status, 200, show(r));
  if (name) keep(`emulation-${name}.png`, r.body);
  const img = await decode(r.body);
  return { r, img, blocks: blocksOf(img) };
}

/** The blocks named in `want`, as the probe page shows them for `body`. */
async function probeSays(body: Record<string, unknown>, want: Partial<Blocks>, name?: string): Promise<void> {
  const { blocks } = await capture({ viewport: VP, ...body }, name);
  assert.deepEqual(pick(blocks, want), want, JSON.stringify(blocks));
}

describe('GET /v1/devices and the schema', () => {
  test("lists puppeteer-core's presets with their values and the list's version; OpenAPI has the route and the names as the device enum", async () => {
    const r = await call(srv.url, '/v1/devices', undefined, { method: 'GET', key: null });
    assert.equal(r.status, 200, show(r));
    assert.match(r.json.version, /^puppeteer-core@\d+\.\d+\.\d+$/);
    assert.equal(r.json.devices.length, Object.keys(KnownDevices).length);
    assert.deepEqual(
      r.json.devices.find((d: { name: string }) => d.name === device),
      {
        name: device,
        viewport: { width: 393, height: 659, deviceScaleFactor: 3 },
        mobile: true,
        touch: true,
        landscape: false,
        userAgent: KnownDevices[device].userAgent,
      },
    );
    const doc = (await call(srv.url, '/openapi.json', undefined, { method: 'GET', key: null })).json;
    assert.equal(doc.paths['/v1/devices'].get.operationId, 'listDevices');
    const props = doc.components.requestBodies.ScreenshotRequest.content['application/json'].schema.properties;
    assert.deepEqual(
      props.device.enum,
      r.json.devices.map((d: { name: string }) => d.name),
    );
    for (const f of ['timezone', 'locale', 'geolocation', 'mediaType', 'reducedMotion', 'javaScriptEnabled']) assert.ok(props[f]?.description, f);
    assert.equal((await call(srv.url, '/v1/devices', {}, { method: 'POST' })).status, 405);
  });

  test('an unknown preset, zone or tag is a 400 naming the field, never quoting the value; an unknown preset gets the closest names', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ device: 'iPhone 15 Pro Maxx' }, /^device must be the name of a device preset \(GET \/v1\/devices lists them\): the closest are "iPhone 15 Pro Max", /],
      [{ timezone: 'Mars/Olympus_Mons' }, /^timezone must be an IANA time zone name/],
      [{ locale: 'deutsch-schweiz' }, /^locale must be a BCP 47 language tag/],
    ];
    for (const [field, message] of cases) {
      const r = await shoot(srv.url, { html: '<p>x</p>', ...field });
      assert.equal(r.status, 400, show(r));
      assert.equal(r.json.error, 'bad_request');
      assert.match(r.json.message, message);
      assert.ok(!/Maxx|Olympus|deutsch/.test(r.json.message), r.json.message);
    }
  });
});

describe("each field, as the page's first inline script sees it", () => {
  test('timezone: Intl, Date and the offset, url and html mode; the step is timed', async () => {
    const { r, blocks } = await capture({ url: probe.url, viewport: VP, timezone }, 'timezone');
    assert.deepEqual(pick(blocks, { zone: 'green', offset: 'green' }), { zone: 'green', offset: 'green' });
    assert.match(r.headers.get('server-timing') ?? '', /(^|, )emulation;dur=/);
    await probeSays({ html: probeHtml(), timezone }, { zone: 'green', offset: 'green' });
    const plain = await capture({ html: probeHtml(), viewport: VP });
    assert.deepEqual(pick(plain.blocks, { zone: 'blue', offset: 'blue' }), { zone: 'blue', offset: 'blue' }, 'without it: not Tokyo');
    assert.doesNotMatch(plain.r.headers.get('server-timing') ?? '', /emulation;/, 'nothing asked, nothing done');
  });

  test("timezone: new Date(0).getHours() in the first inline script is the zone's; deterministic is UTC unless timezone says otherwise", async () => {
    const hours = (h: number, m: number) => `${a.origin}/hours?h=${h}&m=${m}`;
    const runs: Array<[Record<string, unknown>, string]> = [
      [{ url: hours(5, 30), timezone: 'Asia/Kolkata' }, 'Asia/Kolkata, url'],
      [{ html: HOURS_PAGE(19, 0), timezone: 'America/New_York' }, 'America/New_York, html'],
      [{ url: hours(0, 0), deterministic: true }, 'deterministic: UTC'],
      [{ html: HOURS_PAGE(9, 0), deterministic: true, timezone }, 'deterministic in Tokyo'],
    ];
    for (const [body, what] of runs) {
      const { img } = await capture({ viewport: { width: 40, height: 30 }, ...body });
      assert.ok(near(img.at(20, 15), GREEN, 24), what);
    }
  });

  test('locale: the Accept-Language the target receives, navigator.language and Intl agree, url mode', async () => {
    probe.languages.length = 0;
    await probeSays({ url: probe.url, locale }, { lang: 'green', intl: 'green', header: 'green' }, 'locale-url');
    assert.deepEqual(
      probe.languages.map((l) => l.acceptLanguage),
      [locale, locale],
      JSON.stringify(probe.languages),
    );
    assert.deepEqual(
      probe.languages.map((l) => l.path),
      ['/probe', '/echo'],
    );
    probe.languages.length = 0;
    await probeSays({ url: probe.url }, { lang: 'blue', intl: 'blue', header: 'red' });
    assert.notEqual(probe.languages[0]?.acceptLanguage, locale, "without it, the browser's");
  });

  test("locale: the same in html mode (the page's requests carry it)", async () => {
    probe.languages.length = 0;
    await probeSays({ html: probeHtml(a.origin), locale: 'DE-ch' }, { lang: 'green', intl: 'green', header: 'green' }, 'locale-html');
    assert.deepEqual(probe.languages, [{ path: '/echo', acceptLanguage: locale }], 'one spelling: de-CH');
  });

  test('timezone and locale hold in a dedicated worker (url and html) and in a cross-site iframe, whose requests carry the language', async () => {
    await probeSays({ url: probe.url, timezone, locale }, { worker: 'green', frame: 'green' }, 'worker-url');
    await probeSays({ html: probeHtml(), timezone, locale }, { worker: 'green', frame: 'green' });
    fromB.length = 0;
    const { img } = await capture({ url: `${a.origin}/cross`, viewport: { width: 40, height: 30 }, timezone, locale, mediaType: 'print' });
    assert.ok(near(img.at(20, 15), GREEN, 24), "the cross-site frame's first script sees zone, language and print");
    assert.deepEqual(fromB, [{ path: '/frame', acceptLanguage: locale }]);
  });

  test('mediaType, reducedMotion and colorScheme: one media emulation, each alone and together', async () => {
    await probeSays({ html: probeHtml(), mediaType: 'print' }, { print: 'green', motion: 'blue', scheme: 'blue' });
    await probeSays({ html: probeHtml(), reducedMotion: 'reduce' }, { print: 'blue', motion: 'green', scheme: 'blue' });
    await probeSays(
      { html: probeHtml(), colorScheme: 'dark', mediaType: 'print', reducedMotion: 'reduce' },
      { print: 'green', motion: 'green', scheme: 'green' },
    );
    await probeSays({ html: probeHtml(), deterministic: true }, { motion: 'green' }, 'deterministic implies reduce');
    await probeSays({ html: probeHtml(), deterministic: true, reducedMotion: 'no-preference', colorScheme: 'dark' }, { motion: 'blue', scheme: 'green' });
  });
});

describe('device', () => {
  test('a preset: its viewport and scale, mobile, touch and its user agent, in html and url mode', async () => {
    const html = await capture({ html: probeHtml(), device }, 'device-html');
    assert.deepEqual([html.img.width, html.img.height], [1179, 1977]);
    assert.deepEqual(pick(html.blocks, { touch: 'green', mobile: 'green', ua: 'green' }), { touch: 'green', mobile: 'green', ua: 'green' });
    const url = await capture({ url: probe.url, device: 'Pixel 5 landscape' });
    const p = KnownDevices['Pixel 5 landscape'].viewport;
    assert.deepEqual([url.img.width, url.img.height], [Math.round(p.width * p.deviceScaleFactor!), Math.round(p.height * p.deviceScaleFactor!)]);
    assert.deepEqual(pick(url.blocks, { touch: 'green', mobile: 'green', ua: 'green' }), { touch: 'green', mobile: 'green', ua: 'green' });
    const desk = await capture({ html: probeHtml(), viewport: VP });
    assert.deepEqual(
      pick(desk.blocks, { touch: 'blue', mobile: 'blue', ua: 'blue' }),
      { touch: 'blue', mobile: 'blue', ua: 'blue' },
      'without a preset: a desktop',
    );
  });

  test("an explicit viewport replaces the preset's size (its scale stays unless sent); an explicit userAgent replaces its user agent", async () => {
    const sized = await capture({ html: probeHtml(), device, viewport: VP }, 'device-viewport');
    assert.deepEqual([sized.img.width, sized.img.height], [960, 720], "the preset's scale 3");
    assert.deepEqual(pick(sized.blocks, { touch: 'green', mobile: 'green', ua: 'green' }), { touch: 'green', mobile: 'green', ua: 'green' });
    const scaled = await capture({ html: probeHtml(), device, viewport: { ...VP, deviceScaleFactor: 1 }, userAgent: 'DesktopBot/1.0' });
    assert.deepEqual([scaled.img.width, scaled.img.height], [320, 240]);
    assert.deepEqual(pick(scaled.blocks, { touch: 'green', mobile: 'green', ua: 'blue' }), { touch: 'green', mobile: 'green', ua: 'blue' });
  });
});

describe('geolocation', () => {
  test("the target's origin gets the position; a page asking without one is refused at once", async () => {
    await probeSays({ url: probe.url, geolocation }, { position: 'green' }, 'geolocation');
    await probeSays({ url: probe.url }, { position: 'blue' });
    await probeSays({ html: probeHtml() }, { position: 'blue' });
  });

  test("granted to the target's own origin only: a frame of another site asking is refused", async () => {
    const { img } = await capture({ url: `${a.origin}/two-askers`, viewport: { width: 200, height: 60 }, geolocation }, 'geolocation-frames');
    assert.ok(near(img.at(50, 30), GREEN, 24), "a frame of the target's own origin");
    assert.ok(near(img.at(150, 30), BLUE, 24), 'a frame of another site: refused, not waiting');
    const hopped = await capture({ url: `${a.origin}/hop`, viewport: { width: 40, height: 30 }, geolocation });
    assert.ok(near(hopped.img.at(20, 15), BLUE, 24), 'the page after a redirect to another origin: refused');
  });
});

describe('javaScriptEnabled false', () => {
  test('no script runs, <noscript> applies, the rest of the emulation still holds (url and html)', async () => {
    const want = { scripts: 'blue', zone: 'yellow', worker: 'yellow', frame: 'yellow', print: 'green', header: 'green' } as const;
    await probeSays({ url: probe.url, javaScriptEnabled: false, mediaType: 'print', locale }, want, 'no-js');
    await probeSays({ html: probeHtml(a.origin), javaScriptEnabled: false, mediaType: 'print', locale }, want);
  });

  test('the banner clean-up still hides a banner of the markup, without its scripts', async () => {
    for (const js of [true, false]) {
      const { r, img } = await capture(
        { html: consentFixture('custom-en.html'), viewport: { width: 800, height: 600 }, javaScriptEnabled: js },
        `banner-js-${js}`,
      );
      assert.match(
        r.headers.get('x-banner-action') ?? '',
        js ? /^rejected:/ : /^hidden:generic$/,
        `scripts ${js ? 'on: the reject button' : 'off: hidden (found by what it is)'}`,
      );
      assert.ok(!near(img.at(400, 560), [0x7a, 0x1f, 0x1f], 24), 'the banner strip is gone');
    }
  });

  test("fullPage and deterministic captures finish without the page's scripts", async () => {
    const tall =
      '<body style="margin:0"><div style="height:3000px;background:#20a040"></div><img loading="lazy" src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"></body>';
    const full = await shoot(srv.url, { html: tall, viewport: VP, fullPage: true, javaScriptEnabled: false });
    assert.equal(full.status, 200, show(full));
    assert.ok((await decode(full.body)).height > 3000, 'the whole page, the lazy image below it included');
    const still = await shoot(srv.url, { html: probeHtml(), viewport: VP, deterministic: true, javaScriptEnabled: false });
    assert.equal(still.status, 200, show(still));
  });
});
