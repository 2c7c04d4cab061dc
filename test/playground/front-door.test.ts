// The playground as a first-time user meets it, in a real browser (Playwright driving the system
// Chromium against a reference server on port 0): options in the groups /openapi.json declares,
// presets, the request as curl, JavaScript and Python that answer the same bytes as the page got,
// a share link that fills the form, keyboard use, one column on narrow screens, and axe-core's
// accessibility rules. Set PLAYGROUND_SCREENSHOTS=<dir> to keep pictures of the page (wide, narrow).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from '@playwright/test';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
let srv: TestServer;
let browser: Browser;
let dir: string;
const pageErrors: string[] = [];

before(async () => {
  srv = await startTestServer();
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH, chromiumSandbox: false });
  dir = await mkdtemp(path.join(tmpdir(), 'playground-code-'));
});

after(async () => {
  await browser?.close();
  await srv?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const link = (body: object) => `${srv.url}/#request=${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
/** A deterministic html capture: the same bytes every time it is rendered. */
const DETERMINISTIC = {
  html: '<body style="margin:0;background:linear-gradient(#0a66c2,#7c3aed);color:#fff;font:60px sans-serif;display:grid;place-items:center;height:100vh">Hello</body>',
  viewport: { width: 1280, height: 900, deviceScaleFactor: 1 },
  deterministic: true,
};

async function open(url = `${srv.url}/`, width = 1280): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage(); // AxeBuilder needs a context of its own
  page.on('pageerror', (e) => void pageErrors.push(e.message));
  page.on('console', (m) => void (m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && pageErrors.push(m.text())));
  await page.goto(url);
  await page.locator('#group-picture').waitFor();
  return page;
}

const schemaOf = async () => {
  const doc = await (await fetch(`${srv.url}/openapi.json`)).json();
  return doc.components.requestBodies.ScreenshotRequest.content['application/json'].schema;
};
const code = (page: Page, lang: 'curl' | 'js' | 'python') => page.locator(`#code-${lang}`).textContent().then(String);
/** The body in the JavaScript snippet (a JSON literal). */
const bodyInCode = async (page: Page) => JSON.parse(/const body = (\{[\s\S]*?\n\});/.exec(await code(page, 'js'))![1]!);

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`);
}

test('every field of /openapi.json sits in the group it declares; essentials open, the rest folded', async () => {
  const schema = await schemaOf();
  const page = await open();
  for (const [name, s] of Object.entries<any>(schema.properties)) {
    assert.equal(await page.locator(`#group-${s['x-group']} [id="f-${name}"]`).count(), 1, `${name} in ${s['x-group']}`);
  }
  for (const g of schema['x-groups']) {
    const box = page.locator(`#group-${g.name}`);
    assert.equal(await box.locator('summary').innerText(), g.title);
    assert.equal(await box.evaluate((d: HTMLDetailsElement) => d.open), g.open, `${g.name} open: ${g.open}`);
  }
  assert.equal(await page.locator('#group-comparison #compare-on').count(), 1, 'the comparison in its group');
  await page.close();
});

test('a field added to the schema appears in its group by itself, and is sent', async () => {
  const page = await browser.newPage();
  await page.route('**/openapi.json', async (route) => {
    const doc = await (await route.fetch()).json();
    const body = doc.components.requestBodies.ScreenshotRequest.content['application/json'].schema;
    body.properties.grayscale = { type: 'boolean', default: false, description: 'Render in grey.', 'x-group': 'picture' };
    body.properties.watermark = { type: 'string', description: 'A group this page does not list.', 'x-group': 'branding' };
    await route.fulfill({ json: doc });
  });
  await page.goto(`${srv.url}/`);
  await page.locator('#group-picture [id="f-grayscale"]').waitFor();
  await page.getByLabel('grayscale', { exact: true }).check();
  assert.equal((await bodyInCode(page)).grayscale, true);
  assert.equal(await page.locator('#group-branding [id="f-watermark"]').count(), 1, 'an unknown group is made, not dropped');
  await page.close();
});

test('the copied curl, JavaScript and Python answer the same bytes as the picture the page got', async () => {
  const page = await open(link(DETERMINISTIC));
  assert.equal(await page.getByLabel('html', { exact: true }).inputValue(), DETERMINISTIC.html, 'the link filled the form');
  assert.equal(await page.getByLabel('deterministic', { exact: true }).isChecked(), true);
  await page.getByLabel('API key').fill(TEST_KEY);
  const answer = page.waitForResponse((r) => r.url().endsWith('/v1/screenshot'));
  await page.getByRole('button', { name: 'Take screenshot' }).click();
  assert.equal((await answer).status(), 200);
  await page.locator('#caption', { hasText: '1280 × 900 px' }).waitFor();
  // The bytes the page got, by its download link.
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: /^download / }).click();
  const bytes = await readFile((await (await download).path())!);
  // The picture is to the right of the form.
  const [form, shot] = await Promise.all([page.locator('#form').boundingBox(), page.locator('#shot').boundingBox()]);
  assert.ok(shot!.x >= form!.x + form!.width, `picture at x=${shot!.x}, form ends at ${form!.x + form!.width}`);
  const env = { PATH: process.env.PATH ?? '', API_KEY: TEST_KEY };
  const curl = await code(page, 'curl');
  for (const text of [curl, await code(page, 'js'), await code(page, 'python'), await page.locator('#share-link').inputValue()]) {
    assert.ok(!text.includes(TEST_KEY), 'the key is never written out');
  }
  assert.match(curl, /\$API_KEY/);
  await run('bash', ['-c', curl], { cwd: dir, env });
  assert.ok(bytes.length > 1000 && bytes.equals(await readFile(path.join(dir, 'screenshot.png'))), 'curl: the same bytes');
  await writeFile(path.join(dir, 'shot.mjs'), await code(page, 'js'));
  await run(process.execPath, ['shot.mjs'], { cwd: dir, env });
  assert.ok(bytes.equals(await readFile(path.join(dir, 'screenshot.png'))), 'JavaScript: the same bytes');
  await writeFile(path.join(dir, 'shot.py'), await code(page, 'python'));
  try {
    await run('python3', ['-c', 'import requests']);
  } catch {
    return void (await page.close()); // no requests module here: the other two have proved the request
  }
  await rm(path.join(dir, 'screenshot.png'));
  await run('python3', ['shot.py'], { cwd: dir, env });
  assert.ok(bytes.equals(await readFile(path.join(dir, 'screenshot.png'))), 'Python: the same bytes');
  await page.close();
});

test('the share link holds the form (never the key) and opening it fills the same form', async () => {
  const page = await open();
  await page.getByLabel('API key').fill(TEST_KEY);
  await page.getByLabel('url', { exact: true }).fill('https://example.com/a?b=1');
  await page.getByLabel('format', { exact: true }).selectOption('jpeg');
  await page.getByLabel('quality', { exact: true }).fill('70');
  await page.getByRole('group', { name: 'viewport' }).getByLabel('width', { exact: true }).fill('800');
  await page.getByRole('group', { name: 'viewport' }).getByLabel('height', { exact: true }).fill('600');
  await page.locator('#group-banners summary').click();
  await page.getByLabel('hideSelectors', { exact: true }).fill('.ad\n#chat');
  await page.getByLabel('headers', { exact: true }).fill('X-Tenant: 7');
  await page.getByLabel('headers', { exact: true }).press('Tab'); // the edit is finished: the address bar follows
  const sent = await bodyInCode(page);
  assert.deepEqual(sent, {
    url: 'https://example.com/a?b=1',
    format: 'jpeg',
    quality: 70,
    viewport: { width: 800, height: 600, deviceScaleFactor: 1 },
    hideSelectors: ['.ad', '#chat'],
    headers: { 'X-Tenant': '7' },
  });
  const shared = await page.locator('#share-link').inputValue();
  assert.ok(!shared.includes(TEST_KEY));
  const fragment = /#request=([A-Za-z0-9_-]+)$/.exec(shared)![1]!;
  assert.deepEqual(JSON.parse(Buffer.from(fragment, 'base64url').toString()), sent, 'base64url of the JSON body');
  assert.equal(new URL(page.url()).hash, `#request=${fragment}`, 'the address bar follows the form');
  const other = await browser.newPage(); // another tab: no key in its sessionStorage
  await other.goto(shared);
  await other.locator('#group-picture').waitFor();
  await other.waitForFunction(() => (document.getElementById('code-js')?.textContent ?? '').includes('X-Tenant'));
  assert.deepEqual(await bodyInCode(other), sent);
  assert.equal(await other.getByLabel('API key').inputValue(), '');
  assert.equal(await other.locator('#group-banners').evaluate((d: HTMLDetailsElement) => d.open), true, 'a folded group it sets opens');
  assert.match(await other.locator('#group-banners summary').innerText(), /1 set/);
  await other.goto(`${srv.url}/#request=bm90IGpzb24`); // "not json"
  await other.locator('#form-error:not([hidden])').waitFor();
  assert.match(await other.locator('#form-error').innerText(), /The link does not hold a request/);
  await other.close();
  await page.close();
});

test('presets: share card 1200x630 at 2x, phone, full page, visual comparison', async () => {
  const page = await open(link({ html: DETERMINISTIC.html }));
  await page.getByLabel('API key').fill(TEST_KEY);
  await page.getByRole('button', { name: 'Phone' }).click();
  assert.deepEqual(await bodyInCode(page), { html: DETERMINISTIC.html, device: 'iPhone 15 Pro' });
  await page.getByRole('button', { name: 'Full page' }).click();
  assert.deepEqual(await bodyInCode(page), { html: DETERMINISTIC.html, fullPage: true }, 'a preset replaces the last one');
  await page.getByRole('button', { name: 'Share card' }).click();
  assert.deepEqual(await bodyInCode(page), { html: DETERMINISTIC.html, viewport: { width: 1200, height: 630, deviceScaleFactor: 2 } });
  await page.getByRole('button', { name: 'Take screenshot' }).click();
  await page.locator('#caption', { hasText: '2400 × 1260 px' }).waitFor();
  await page.getByRole('button', { name: 'Visual comparison' }).click();
  assert.equal(await page.getByLabel(/^Compare with a baseline/).isChecked(), true);
  assert.equal(await page.locator('#submit').innerText(), 'Compare');
  const compare = await bodyInCode(page);
  assert.equal(compare.deterministic, true);
  assert.ok(typeof compare.baseline.image === 'string' && compare.baseline.image.length > 100, 'the previous picture is the baseline');
  const done = page.waitForResponse((r) => r.url().endsWith('/v1/compare'));
  await page.getByRole('button', { name: 'Compare' }).click();
  const r = await done;
  assert.equal(r.status(), 200, await r.text());
  await page.close();
});

test('keyboard: a folded group opens with Enter, the code tabs move with the arrow keys, Enter submits', async () => {
  const page = await open(link({ html: '<p>keys</p>' }));
  await page.locator('#group-waiting summary').focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('#group-waiting').evaluate((d: HTMLDetailsElement) => d.open), true);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('details')?.id), 'group-waiting');
  await page.locator('#tab-curl').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-js');
  assert.equal(await page.locator('#panel-js').isVisible(), true);
  await page.keyboard.press('End');
  assert.equal(await page.locator('#panel-python').isVisible(), true);
  await page.getByLabel('API key').fill(TEST_KEY);
  const done = page.waitForResponse((r) => r.url().endsWith('/v1/screenshot'));
  await page.getByLabel('API key').press('Enter');
  assert.equal((await done).status(), 200);
  await page.close();
});

test('axe-core: no serious or critical violations before and after a capture, wide and narrow; narrow is one column', async () => {
  for (const width of [1280, 800]) {
    const page = await open(link({ ...DETERMINISTIC, viewport: { width: 400, height: 300 } }), width);
    if (width > 1100) assert.deepEqual(await seriousViolations(page), [], `before a capture, ${width} px`); // the same page narrower: after only
    await page.getByLabel('API key').fill(TEST_KEY);
    await page.getByRole('button', { name: 'Take screenshot' }).click();
    await page.locator('#result:not([hidden])').waitFor();
    await page.waitForFunction(() => (document.getElementById('shot') as HTMLImageElement).naturalWidth === 400);
    assert.deepEqual(await seriousViolations(page), [], `after a capture, ${width} px`);
    const [form, answer] = await Promise.all([page.locator('#form').boundingBox(), page.locator('#answer').boundingBox()]);
    if (width < 1100) assert.ok(answer!.y >= form!.y + form!.height, 'one column: the answer under the form');
    else assert.ok(answer!.x >= form!.x + form!.width, 'two columns: the answer beside the form');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'nothing wider than the window');
    if (process.env.PLAYGROUND_SCREENSHOTS) await page.screenshot({ path: path.join(process.env.PLAYGROUND_SCREENSHOTS, `playground-${width}.png`) });
    await page.close();
  }
  assert.deepEqual(pageErrors, [], 'no script or CSP errors on the page');
});
