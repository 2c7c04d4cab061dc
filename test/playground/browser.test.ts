// The playground page (GET /) and cross-origin calls, in a real browser: Playwright
// driving the system Chromium against a reference server on port 0. The form is filled by its
// labels (so every control has one), the image is decoded by the page, errors must appear next to
// the field they name. CORS is checked from two other origins: one listed in CORS_ORIGINS, one not.
// Set PLAYGROUND_SCREENSHOT=<file.png> to keep a picture of the page after a capture.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from '@playwright/test';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { startFixture, type Fixture } from '../support/fixture.ts';
import { startTestServer, testEnv, TEST_KEY, type TestServer } from '../support/server.ts';

let srv: TestServer;
let browser: Browser;
let page: Page;
let other: Fixture;
let otherPort: number;
const consoleErrors: string[] = [];

before(async () => {
  // Another origin for the CORS checks: http://127.0.0.1:<port> is listed, http://localhost:<port> is not.
  other = await startFixture();
  other.route('/', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
  otherPort = other.port;
  srv = await startTestServer({ CORS_ORIGINS: `http://127.0.0.1:${otherPort}` });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH, chromiumSandbox: false });
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on('console', (m) => void (m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && consoleErrors.push(m.text())));
  page.on('pageerror', (e) => void consoleErrors.push(e.message));
});

after(async () => {
  await browser?.close();
  await srv?.close();
  await other?.close();
});

const errorOf = (path: string) => page.locator(`[id="err-${path}"]`);
/** A field of an object's fieldset (viewport.width and clip.width are both labelled "width"). */
const nested = (object: string, name: string) => page.getByRole('group', { name: object }).getByLabel(name, { exact: true });

async function submitAndWait(): Promise<void> {
  const done = page.waitForResponse((r) => r.url().endsWith('/v1/screenshot'));
  await page.getByRole('button', { name: 'Take screenshot' }).click();
  await done;
  await page.waitForFunction(() => !(document.getElementById('submit') as HTMLButtonElement).disabled);
}

test('GET / is the playground, with a strict CSP, and its form is built from the request schema', async () => {
  const res = await page.goto(`${srv.url}/`);
  assert.equal(res?.status(), 200);
  const csp = res?.headers()['content-security-policy'] ?? '';
  for (const d of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.includes(d), d);
  await nested('viewport', 'width').waitFor();
  // Folded groups open on a click on their title (the tests below fill fields of every group).
  for (const d of await page.locator('details.group').all()) if (!(await d.evaluate((e: HTMLDetailsElement) => e.open))) await d.locator('summary').click();
  const doc = await (await fetch(`${srv.url}/openapi.json`)).json();
  const schema = doc.components.requestBodies.ScreenshotRequest.content['application/json'].schema;
  for (const [name, s] of Object.entries<any>(schema.properties)) {
    if (s.type === 'object' && s.properties) assert.equal(await page.getByRole('group', { name }).count(), 1, `a fieldset for ${name}`);
    else assert.equal(await page.getByLabel(name, { exact: true }).count(), 1, `a labelled control for ${name}`);
  }
  for (const [object, s] of Object.entries<any>(schema.properties)) {
    if (s.type !== 'object' || !s.properties) continue;
    for (const name of Object.keys(s.properties)) assert.equal(await nested(object, name).count(), 1, `${object}.${name}`);
  }
  assert.equal(await page.getByRole('link', { name: 'OpenAPI document' }).getAttribute('href'), '/openapi.json');
  assert.equal(await page.getByRole('link', { name: 'README' }).getAttribute('href'), '/README.md');
  assert.equal((await fetch(`${srv.url}/README.md`)).status, 200);
});

test('without a key, the auth error shows next to the key field', async () => {
  await page.getByLabel('API key').fill('');
  await page.getByLabel('HTML markup').check();
  await page.getByLabel('html', { exact: true }).fill('<p>hi</p>');
  await submitAndWait();
  await errorOf('key').waitFor();
  assert.match(await errorOf('key').innerText(), /the API key is missing/);
  assert.equal(await page.getByLabel('API key').getAttribute('aria-invalid'), 'true');
});

test('fill the form and press Enter: an image of the requested size, the headers and the Server-Timing waterfall', async () => {
  await page.getByLabel('API key').fill(TEST_KEY);
  await page.getByLabel('html', { exact: true }).fill('<body style="margin:0;background:#0a66c2;color:#fff;font:40px sans-serif">Playground</body>');
  await nested('viewport', 'width').fill('400');
  await nested('viewport', 'height').fill('300');
  await page.getByLabel('format').selectOption('png');
  const done = page.waitForResponse((r) => r.url().endsWith('/v1/screenshot'));
  await nested('viewport', 'height').press('Enter'); // the keyboard submits the form
  assert.equal((await done).status(), 200);
  await page.locator('#result:not([hidden])').waitFor();
  await page.waitForFunction(() => (document.getElementById('shot') as HTMLImageElement).naturalWidth > 0);
  assert.deepEqual(await page.locator('#shot').evaluate((i: HTMLImageElement) => [i.naturalWidth, i.naturalHeight]), [400, 300]);
  const headers = await page.locator('#headers').innerText();
  assert.match(headers, /x-credits-charged\s+1/);
  assert.match(headers, /x-banner-action\s+\S+/);
  assert.ok((await page.locator('#timing tbody tr').count()) >= 3, 'a waterfall row per render step');
  assert.match(await page.locator('#caption').innerText(), /400 × 300 px/);
  // The key stays in this tab: sessionStorage, never localStorage.
  assert.deepEqual(await page.evaluate(() => [sessionStorage.length, localStorage.length]), [1, 0]);
  if (process.env.PLAYGROUND_SCREENSHOT) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: process.env.PLAYGROUND_SCREENSHOT, fullPage: true });
  }
});

test('compare with a baseline: the previous screenshot is the baseline; the diff picture and its figures are shown', async () => {
  await page.getByLabel('API key').fill(TEST_KEY);
  await page.getByLabel('HTML markup').check();
  const html = (extra: string) =>
    `<body style="margin:0;background:#fff"><div style="position:absolute;left:10px;top:10px;width:60px;height:30px;background:#888"></div>${extra}</body>`;
  await page.getByLabel('html', { exact: true }).fill(html(''));
  await nested('viewport', 'width').fill('200');
  await nested('viewport', 'height').fill('120');
  await submitAndWait(); // the baseline: the screenshot taken last
  await page.getByLabel('html', { exact: true }).fill(html('<div style="position:absolute;left:120px;top:50px;width:40px;height:25px;background:#d00"></div>'));
  await page.getByLabel(/^Compare with a baseline/).check();
  await page.getByLabel('threshold').fill('0.05');
  const done = page.waitForResponse((r) => r.url().endsWith('/v1/compare'));
  await page.getByRole('button', { name: 'Compare' }).click();
  assert.equal((await done).status(), 200);
  await page.waitForFunction(() => !(document.getElementById('submit') as HTMLButtonElement).disabled);
  await page.waitForFunction(() => (document.getElementById('shot') as HTMLImageElement).naturalWidth === 200);
  const headers = await page.locator('#headers').innerText();
  assert.match(headers, /x-diff-pixels\s+1000/);
  assert.match(headers, /x-diff-regions\s+\[\{"x":120,"y":50,"width":40,"height":25\}\]/);
  assert.match(headers, /x-baseline-size\s+200x120/);
  // The picture shows the change in red (decoded by the page).
  const red = await page.locator('#shot').evaluate((i: HTMLImageElement) => {
    const c = document.createElement('canvas');
    c.width = i.naturalWidth;
    c.height = i.naturalHeight;
    const g = c.getContext('2d')!;
    g.drawImage(i, 0, 0);
    return [...g.getImageData(140, 60, 1, 1).data];
  });
  assert.deepEqual(red, [255, 0, 0, 255]);
  await page.getByLabel(/^Compare with a baseline/).uncheck();
  assert.equal(await page.getByRole('button', { name: 'Take screenshot' }).count(), 1);
});

test('a bad field shows the server message next to that field', async () => {
  await nested('viewport', 'width').fill('0');
  await page.getByLabel('quality').fill('50'); // with png: a cross-field rule that names quality
  await submitAndWait();
  await errorOf('viewport.width').waitFor();
  assert.match(await errorOf('viewport.width').innerText(), /viewport\.width must be/);
  assert.equal(await nested('viewport', 'width').getAttribute('aria-invalid'), 'true');
  assert.match(await errorOf('quality').innerText(), /quality is only allowed with format/);
  assert.equal(await errorOf('key').isHidden(), true, 'the earlier auth error is gone');
  await nested('viewport', 'width').fill('400');
  await page.getByLabel('quality').fill('');
  assert.deepEqual(consoleErrors, [], 'no script or CSP errors on the page');
});

test('extension fields: headers and cookies as lines, an enum without default sends nothing', async () => {
  await page.getByLabel('html', { exact: true }).fill('<p>x</p>');
  await page.getByLabel('headers', { exact: true }).fill('X-Tenant: 7\nAccept-Language: fr');
  await page.getByLabel('cookies', { exact: true }).fill('session=abc=1');
  await page.getByLabel('deterministic', { exact: true }).check();
  assert.equal(await page.getByLabel('colorScheme', { exact: true }).inputValue(), '');
  const sent = page.waitForRequest((r) => r.url().endsWith('/v1/screenshot'));
  await submitAndWait();
  const body = (await sent).postDataJSON();
  assert.deepEqual(body.headers, { 'X-Tenant': '7', 'Accept-Language': 'fr' });
  assert.deepEqual(body.cookies, [{ name: 'session', value: 'abc=1' }]);
  assert.equal(body.deterministic, true);
  assert.ok(!('colorScheme' in body) && !('cacheTtl' in body) && !('userAgent' in body));
  // With html, the server refuses headers and cookies; the message is shown by the field it names.
  await errorOf('headers').waitFor();
  assert.match(await errorOf('headers').innerText(), /headers and cookies are only allowed with url/);
  await page.getByLabel('headers', { exact: true }).fill('');
  await page.getByLabel('cookies', { exact: true }).fill('');
  await page.getByLabel('deterministic', { exact: true }).uncheck();
});

test('the fields that prepare the page: css, js, actions as JSON lines, blocking lines, clip, delay, failOnTargetError', async () => {
  await page
    .getByLabel('html', { exact: true })
    .fill('<body style="margin:0"><button id="b" style="width:60px;height:30px">b</button><div id="m"></div></body>');
  await page.getByLabel('css', { exact: true }).fill('#m { width: 100px; height: 100px; background: rgb(0, 0, 255) }');
  await page.getByLabel('actions', { exact: true }).fill('{"click": "#b"}\n{"wait": 10}');
  await page.getByLabel('js', { exact: true }).fill("document.getElementById('m').style.background = 'rgb(0, 170, 0)';");
  await page.getByLabel('blockResourceTypes', { exact: true }).fill('image\nfont');
  await page.getByLabel('blockUrls', { exact: true }).fill('*/ads/*');
  for (const [k, v] of Object.entries({ x: '0', y: '30', width: '40', height: '20' })) await nested('clip', k).fill(v);
  await page.getByLabel('delay', { exact: true }).fill('20');
  await page.getByLabel('failOnTargetError', { exact: true }).check();
  const sent = page.waitForRequest((r) => r.url().endsWith('/v1/screenshot'));
  await submitAndWait();
  const body = (await sent).postDataJSON();
  assert.deepEqual(body.actions, [{ click: '#b' }, { wait: 10 }]);
  assert.deepEqual(body.blockResourceTypes, ['image', 'font']);
  assert.deepEqual(body.blockUrls, ['*/ads/*']);
  assert.deepEqual(body.clip, { x: 0, y: 30, width: 40, height: 20 });
  assert.equal(body.delay, 20);
  assert.equal(body.failOnTargetError, true);
  assert.match(body.js, /rgb\(0, 170, 0\)/);
  await page.locator('#result:not([hidden])').waitFor();
  await page.waitForFunction(() => (document.getElementById('shot') as HTMLImageElement).naturalWidth === 40);
  const green = await page.locator('#shot').evaluate((i: HTMLImageElement) => {
    const c = document.createElement('canvas');
    c.width = i.naturalWidth;
    c.height = i.naturalHeight;
    const g = c.getContext('2d')!;
    g.drawImage(i, 0, 0);
    return Array.from(g.getImageData(20, 10, 1, 1).data.slice(0, 3));
  });
  assert.deepEqual(green, [0, 170, 0], 'css, the click and js, in the clip');
  assert.match(await page.locator('#timing').innerText(), /actions\[0\] \(click\)/);
  // A line that is not JSON is sent as it is; the server's message shows by the field.
  await page.getByLabel('actions', { exact: true }).fill('click #b');
  await submitAndWait();
  await errorOf('actions').waitFor();
  assert.match(await errorOf('actions').innerText(), /actions\[0\] must be an object with exactly one action/);
  for (const f of ['css', 'actions', 'js', 'blockResourceTypes', 'blockUrls', 'delay']) await page.getByLabel(f, { exact: true }).fill('');
  for (const k of ['x', 'y', 'width', 'height']) await nested('clip', k).fill('');
  await page.getByLabel('failOnTargetError', { exact: true }).uncheck();
});

test('emulation fields come from the schema: the device presets as a list, geolocation as its own fields', async () => {
  await page.getByLabel('html', { exact: true }).fill('<p>x</p>');
  assert.equal(await page.getByLabel('device', { exact: true }).inputValue(), '');
  await page.getByLabel('device', { exact: true }).selectOption('iPhone 15 Pro');
  await page.getByLabel('timezone', { exact: true }).fill('Asia/Tokyo');
  assert.equal(await page.getByLabel('javaScriptEnabled', { exact: true }).isChecked(), true);
  const sent = page.waitForRequest((r) => r.url().endsWith('/v1/screenshot'));
  await submitAndWait();
  const body = (await sent).postDataJSON();
  assert.equal(body.device, 'iPhone 15 Pro');
  assert.equal(body.timezone, 'Asia/Tokyo');
  assert.ok(!('geolocation' in body) && !('javaScriptEnabled' in body) && !('mediaType' in body), JSON.stringify(body));
  await page.getByLabel('device', { exact: true }).selectOption('');
  await page.getByLabel('timezone', { exact: true }).fill('');
});

test('CORS: a page on a listed origin can call the API and read its headers; another origin cannot', async () => {
  const attempt = async (origin: string) => {
    const p = await browser.newPage();
    await p.goto(`${origin}/`);
    const out = await p.evaluate(
      async ([api, key]) => {
        try {
          const r = await fetch(`${api}/v1/screenshot`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ html: '<p>x</p>', viewport: { width: 40, height: 30 } }),
          });
          return { status: r.status, charged: r.headers.get('x-credits-charged'), bytes: (await r.arrayBuffer()).byteLength };
        } catch (e) {
          return { failed: String(e) };
        }
      },
      [srv.url, TEST_KEY] as const,
    );
    await p.close();
    return out;
  };
  const listed = await attempt(`http://127.0.0.1:${otherPort}`);
  assert.equal(listed.status, 200, JSON.stringify(listed));
  assert.equal(listed.charged, '1', 'an exposed header is readable');
  assert.ok((listed.bytes ?? 0) > 0);
  const unlisted = await attempt(`http://localhost:${otherPort}`);
  assert.match(String(unlisted.failed), /Failed to fetch/, JSON.stringify(unlisted));
});

test('OPTIONS: 204 with Allow on known routes, preflight headers only for a listed origin, 404 elsewhere', async () => {
  const options = (p: string, headers: Record<string, string> = {}) => fetch(`${srv.url}${p}`, { method: 'OPTIONS', headers });
  const plain = await options('/v1/screenshot');
  assert.equal(plain.status, 204);
  assert.equal(plain.headers.get('allow'), 'POST, OPTIONS');
  assert.equal(plain.headers.get('access-control-allow-origin'), null);
  const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' };
  const listed = await options('/mcp', { origin: `http://127.0.0.1:${otherPort}`, ...preflight });
  assert.equal(listed.status, 204);
  assert.equal(listed.headers.get('access-control-allow-origin'), `http://127.0.0.1:${otherPort}`);
  assert.equal(listed.headers.get('access-control-allow-methods'), 'POST');
  assert.match(listed.headers.get('access-control-allow-headers') ?? '', /authorization/);
  assert.match(listed.headers.get('vary') ?? '', /Origin/i);
  const unlisted = await options('/v1/screenshot', { origin: 'https://evil.example', ...preflight });
  assert.equal(unlisted.status, 204);
  assert.equal(unlisted.headers.get('access-control-allow-origin'), null);
  assert.equal((await options('/openapi.json')).headers.get('allow'), 'GET, HEAD, OPTIONS');
  assert.equal((await options('/nope')).status, 404);
});

test('CORS_ORIGINS is validated: exact origins, or * alone', () => {
  const env = testEnv();
  assert.deepEqual(loadConfig({ ...env, CORS_ORIGINS: 'https://a.example, http://127.0.0.1:8080' }).corsOrigins, [
    'https://a.example',
    'http://127.0.0.1:8080',
  ]);
  assert.deepEqual(loadConfig({ ...env, CORS_ORIGINS: '*' }).corsOrigins, ['*']);
  assert.deepEqual(loadConfig(env).corsOrigins, []);
  for (const bad of ['https://a.example/', 'https://a.example/path', 'a.example', '*,https://a.example', 'ftp://a.example']) {
    assert.throws(
      () => loadConfig({ ...env, CORS_ORIGINS: bad }),
      (e: unknown) => e instanceof ConfigError && /CORS_ORIGINS/.test((e as Error).message),
      bad,
    );
  }
});
